//! Reading tool calls out of a user's message for the scripted provider:
//! `TOOL_NAME {json args}` or `/call TOOL_NAME key=value …`.

use serde_json::{Map, Value};

/// A call a line asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestedCall {
    pub name: String,
    pub arguments: Map<String, Value>,
}

/// Every line of `text` that is a tool call, in order.
pub fn requested_calls(text: &str) -> Vec<RequestedCall> {
    text.lines().filter_map(parse_line).collect()
}

/// `fs {"operation":"list"}` or `/call fs operation=list path=.`.
pub fn parse_line(line: &str) -> Option<RequestedCall> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("/call ") {
        // The composer's own parser: the same quoting and typing as `/call` typed in
        // the TUI.
        let call = crate::tools::parse_call_line(rest).ok()?;
        return is_tool_name(&call.tool).then(|| RequestedCall {
            name: call.tool,
            arguments: call.args,
        });
    }
    let (name, rest) = line.split_once(char::is_whitespace)?;
    let rest = rest.trim();
    if !is_tool_name(name) || !rest.starts_with('{') {
        return None;
    }
    match serde_json::from_str(rest).ok()? {
        Value::Object(arguments) => Some(RequestedCall {
            name: name.to_owned(),
            arguments,
        }),
        _ => None,
    }
}

fn is_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_lines() {
        let calls = requested_calls(
            "please\nfs {\"operation\":\"list\",\"path\":\".\"}\nweather__get {\"city\":\"Oslo\"}",
        );
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "fs");
        assert_eq!(calls[0].arguments["operation"], "list");
        assert_eq!(calls[1].name, "weather__get");
    }

    #[test]
    fn call_lines() {
        let c =
            parse_line(r#"/call fs operation=write path=a.md content="two words" n=3"#).unwrap();
        assert_eq!(
            Value::Object(c.arguments),
            json!({"operation":"write","path":"a.md","content":"two words","n":3})
        );
    }

    #[test]
    fn call_lines_read_json_values_as_the_composer_does() {
        let c = parse_line(r#"/call notes tags=["x","y"] title="a b" n=null"#).unwrap();
        assert_eq!(
            Value::Object(c.arguments),
            json!({"tags": ["x", "y"], "title": "a b", "n": null})
        );
    }

    #[test]
    fn prose_is_not_a_call() {
        assert_eq!(parse_line("hello there"), None);
        assert_eq!(parse_line("what is {x}"), None);
        assert_eq!(parse_line("fs {not json}"), None);
        assert_eq!(parse_line("/call fs novalue"), None);
    }
}
