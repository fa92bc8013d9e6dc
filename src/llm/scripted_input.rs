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
        let mut words = split_words(rest).into_iter();
        let name = words.next().filter(|n| is_tool_name(n))?;
        let mut arguments = Map::new();
        for word in words {
            let (key, value) = word.split_once('=')?;
            arguments.insert(key.to_owned(), loose_value(value));
        }
        return Some(RequestedCall { name, arguments });
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

/// `3` → number, `true` → bool, `[1]` → array, anything else → the string itself.
fn loose_value(text: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ (Value::Number(_) | Value::Bool(_) | Value::Array(_) | Value::Object(_))) => v,
        _ => Value::String(text.to_owned()),
    }
}

/// Splits on whitespace; double quotes group words (`content="two words"`).
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            '\\' if quoted => {
                if let Some(next) = chars.next() {
                    word.push(match next {
                        'n' => '\n',
                        other => other,
                    });
                }
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
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
    fn prose_is_not_a_call() {
        assert_eq!(parse_line("hello there"), None);
        assert_eq!(parse_line("what is {x}"), None);
        assert_eq!(parse_line("fs {not json}"), None);
        assert_eq!(parse_line("/call fs novalue"), None);
    }
}
