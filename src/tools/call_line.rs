//! A tool call written on one line, as people type it: `TOOL key=value …` or
//! `TOOL {"json": "object"}`. Used by the composer's `/call` and by scripts.

use serde_json::{Map, Value};

/// A parsed call line.
#[derive(Debug, Clone, PartialEq)]
pub struct CallLine {
    pub tool: String,
    pub args: Map<String, Value>,
}

/// Why a call line could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CallLineError {
    #[error("name a tool: TOOL key=value … or TOOL {{json}}")]
    NoTool,
    #[error("the arguments must be a JSON object")]
    NotAnObject,
    #[error("arguments are not valid JSON: {0}")]
    Json(#[source] serde_json::Error),
    #[error("expected key=value, got `{word}`")]
    NotKeyValue { word: String },
    #[error("missing key before `={value}`")]
    MissingKey { value: String },
    #[error("unterminated quote")]
    UnterminatedQuote,
}

/// Parse `TOOL {json}` or `TOOL key=value key="quoted value" n=3 flag=true`.
/// Values that parse as JSON (numbers, booleans, arrays, objects, null) keep their
/// type; anything else is a string.
pub fn parse_call_line(line: &str) -> Result<CallLine, CallLineError> {
    let line = line.trim();
    let (tool, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(t, r)| (t, r.trim()));
    if tool.is_empty() {
        return Err(CallLineError::NoTool);
    }
    let args = if rest.starts_with('{') {
        match serde_json::from_str::<Value>(rest) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(CallLineError::NotAnObject),
            Err(e) => return Err(CallLineError::Json(e)),
        }
    } else {
        let mut map = Map::new();
        let mut last_key: Option<String> = None;
        for word in split_words(rest)? {
            let Some((key, value)) = word.split_once('=') else {
                // A bare word continues the previous text value: `message=hello world`.
                match last_key.as_ref().and_then(|k| map.get_mut(k)) {
                    Some(Value::String(text)) => {
                        text.push(' ');
                        text.push_str(&word);
                        continue;
                    }
                    _ => return Err(CallLineError::NotKeyValue { word }),
                }
            };
            if key.is_empty() {
                return Err(CallLineError::MissingKey {
                    value: value.to_owned(),
                });
            }
            let value = parse_value(value);
            map.insert(key.to_string(), value);
            last_key = Some(key.to_string());
        }
        map
    };
    Ok(CallLine {
        tool: tool.to_string(),
        args,
    })
}

/// A typed value: JSON when it parses as JSON (numbers, booleans, arrays, objects,
/// null, quoted strings), otherwise the text itself. Shared by `/call` lines and the
/// CLI's `-a key=value`.
pub fn parse_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// Split on spaces, keeping double-quoted values (with `\"` escapes) together.
fn split_words(text: &str) -> Result<Vec<String>, CallLineError> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            // A quote opens only at the start of a value; elsewhere it is literal
            // (so `tags=["x"]` stays JSON).
            '"' if in_quotes => in_quotes = false,
            '"' if current.is_empty() || current.ends_with('=') => in_quotes = true,
            '\\' if in_quotes => {
                if let Some(next) = chars.next() {
                    current.push(match next {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
            }
            c if c.is_whitespace() && !in_quotes => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if in_quotes {
        return Err(CallLineError::UnterminatedQuote);
    }
    if !current.is_empty() {
        words.push(current);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn mistake(line: &str) -> String {
        parse_call_line(line).unwrap_err().to_string()
    }

    #[test]
    fn key_values_keep_json_types_and_quotes() {
        let call =
            parse_call_line(r#"fs operation=write path="docs/a b.md" n=3 ok=true tags=["x"]"#)
                .unwrap();
        assert_eq!(call.tool, "fs");
        assert_eq!(
            Value::Object(call.args),
            json!({"operation": "write", "path": "docs/a b.md", "n": 3, "ok": true, "tags": ["x"]})
        );
    }

    #[test]
    fn bare_words_continue_the_previous_text_value() {
        let call = parse_call_line("everything__echo message=hello big world n=2").unwrap();
        assert_eq!(
            Value::Object(call.args),
            json!({"message": "hello big world", "n": 2})
        );
        assert_eq!(mistake("t n=2 x"), "expected key=value, got `x`");
    }

    #[test]
    fn json_object_arguments() {
        let call = parse_call_line(r#"weather__get {"city": "Oslo"}"#).unwrap();
        assert_eq!(call.tool, "weather__get");
        assert_eq!(Value::Object(call.args), json!({"city": "Oslo"}));
        assert_eq!(parse_call_line("echo").unwrap().args, Map::new());
    }

    #[test]
    fn mistakes_are_explained() {
        assert_eq!(mistake(""), "name a tool: TOOL key=value … or TOOL {json}");
        assert_eq!(mistake("fs path"), "expected key=value, got `path`");
        assert_eq!(mistake("fs a=\"x"), "unterminated quote");
        assert!(mistake("fs {bad").starts_with("arguments are not valid JSON"));
        assert_eq!(mistake("fs [1]"), "expected key=value, got `[1]`");
    }
}
