//! What a call gave then against what it gives now: how it ended, its text (a line
//! diff, or field by field when both texts are JSON) and its structured content field
//! by field, each field named by its JSON Pointer (RFC 6901). Pointers to ignore are
//! dropped from both sides first.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

use super::recorded::Seen;
use crate::gate::CallEnd;
use crate::tools::{same_data, structured_section};

/// At most this many changed fields are reported per part.
const MAX_FIELDS: usize = 100;
/// At most this many lines of a text diff are kept.
const MAX_DIFF_LINES: usize = 200;

/// A JSON Pointer (RFC 6901): `/timestamp`, `/items/0/id`, `/a~1b` for the key `a/b`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    text: String,
    tokens: Vec<String>,
}

/// Not a JSON Pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a JSON Pointer (RFC 6901): it starts with `/` (like /timestamp), and `~` \
     is written ~0, `/` inside a key ~1"
)]
pub struct PointerError(String);

impl FromStr for Pointer {
    type Err = PointerError;

    /// The whole document (`""`) is refused: ignoring it would compare nothing.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let Some(rest) = text.strip_prefix('/') else {
            return Err(PointerError(text.to_owned()));
        };
        let tokens = rest
            .split('/')
            .map(unescape)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| PointerError(text.to_owned()))?;
        Ok(Self {
            text: text.to_owned(),
            tokens,
        })
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `~1` is `/`, `~0` is `~` (in that order, RFC 6901 §4); any other `~` is an error.
fn unescape(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// A key as a pointer token.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

impl Pointer {
    /// Removes what the pointer names from `value` (a member of an object, an item of
    /// an array); true when there was something.
    pub fn remove_from(&self, value: &mut Value) -> bool {
        let Some((last, parents)) = self.tokens.split_last() else {
            return false;
        };
        let mut at = value;
        for token in parents {
            let next = match at {
                Value::Object(map) => map.get_mut(token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
                _ => None,
            };
            match next {
                Some(next) => at = next,
                None => return false,
            }
        }
        match at {
            Value::Object(map) => map.remove(last).is_some(),
            Value::Array(items) => match last.parse::<usize>() {
                Ok(i) if i < items.len() => {
                    items.remove(i);
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }
}

/// Which part of a result a field belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The text, when then and now it is JSON.
    Text,
    /// The structured content.
    Structured,
}

impl Part {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Structured => "structured",
        }
    }
}

/// One way a call's result differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Difference {
    /// It ended otherwise (`ok` then, `error` now).
    Outcome { was: CallEnd, now: CallEnd },
    /// The text differs: a unified line diff (`-` then, `+` now).
    Text { diff: String },
    /// A field differs; `pointer` is `""` for the whole value, `was` / `now` are
    /// absent where the field is.
    Field {
        part: Part,
        pointer: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        was: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        now: Option<Value>,
    },
    /// More fields differ than are listed.
    More { part: Part, count: usize },
}

/// How `now` differs from `was`, with the `ignore` pointers dropped from both sides.
/// The structured content is compared only when the session recorded it; the text is
/// then compared without it (the transcript's text shows it too).
pub fn compare(was: &Seen, now: &Seen, ignore: &[Pointer]) -> Vec<Difference> {
    let mut out = Vec::new();
    if was.outcome != now.outcome {
        out.push(Difference::Outcome {
            was: was.outcome,
            now: now.outcome,
        });
    }
    match &was.structured {
        Some(then) => {
            let text_then = text_part(&was.text, Some(then));
            let text_now = text_part(&now.text, now.structured.as_ref());
            compare_text(&text_then, &text_now, ignore, &mut out);
            match &now.structured {
                Some(today) => {
                    let (mut then, mut today) = (then.clone(), today.clone());
                    drop_ignored(&mut then, ignore);
                    drop_ignored(&mut today, ignore);
                    push_fields(Part::Structured, &then, &today, &mut out);
                }
                None => out.push(Difference::Field {
                    part: Part::Structured,
                    pointer: String::new(),
                    was: Some(then.clone()),
                    now: None,
                }),
            }
        }
        None => compare_text(&was.text, &now.text, ignore, &mut out),
    }
    out
}

/// `text` without the structured content it shows: the transcript's section for it,
/// or all of it when it is only that content (what the model reads when there is no
/// text block).
fn text_part(text: &str, structured: Option<&Value>) -> String {
    let Some(structured) = structured else {
        return text.to_owned();
    };
    let section = structured_section(structured);
    if let Some(at) = text.find(&section) {
        let mut out = text[..at].to_owned();
        out.push_str(&text[at + section.len()..]);
        return out;
    }
    if serde_json::from_str::<Value>(text).is_ok_and(|v| v == *structured) {
        return String::new();
    }
    text.to_owned()
}

fn compare_text(was: &str, now: &str, ignore: &[Pointer], out: &mut Vec<Difference>) {
    if was == now {
        return;
    }
    if let (Ok(mut then), Ok(mut today)) = (
        serde_json::from_str::<Value>(was),
        serde_json::from_str::<Value>(now),
    ) {
        drop_ignored(&mut then, ignore);
        drop_ignored(&mut today, ignore);
        push_fields(Part::Text, &then, &today, out);
        return;
    }
    out.push(Difference::Text {
        diff: line_diff(was, now),
    });
}

fn drop_ignored(value: &mut Value, ignore: &[Pointer]) {
    for pointer in ignore {
        pointer.remove_from(value);
    }
}

fn push_fields(part: Part, was: &Value, now: &Value, out: &mut Vec<Difference>) {
    let changes = field_changes(was, now);
    let count = changes.len();
    out.extend(
        changes
            .into_iter()
            .take(MAX_FIELDS)
            .map(|(pointer, was, now)| Difference::Field {
                part,
                pointer,
                was,
                now,
            }),
    );
    if count > MAX_FIELDS {
        out.push(Difference::More {
            part,
            count: count - MAX_FIELDS,
        });
    }
}

/// Every leaf where `was` and `now` differ, by JSON Pointer, with its value on each
/// side (`None` where it is missing). Numbers compare by value (`7` is `7.0`).
pub fn field_changes(was: &Value, now: &Value) -> Vec<(String, Option<Value>, Option<Value>)> {
    let mut out = Vec::new();
    walk(&mut String::new(), Some(was), Some(now), &mut out);
    out
}

fn walk(
    path: &mut String,
    was: Option<&Value>,
    now: Option<&Value>,
    out: &mut Vec<(String, Option<Value>, Option<Value>)>,
) {
    let len = path.len();
    match (was, now) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                path.push('/');
                path.push_str(&escape(key));
                walk(path, a.get(key), b.get(key), out);
                path.truncate(len);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            for i in 0..a.len().max(b.len()) {
                path.push('/');
                path.push_str(&i.to_string());
                walk(path, a.get(i), b.get(i), out);
                path.truncate(len);
            }
        }
        (Some(a), Some(b)) if same_data(a, b) => {}
        (None, None) => {}
        (a, b) => out.push((path.clone(), a.cloned(), b.cloned())),
    }
}

/// A unified diff of the lines (one line of context), without file headers; cut to
/// [`MAX_DIFF_LINES`] lines.
pub fn line_diff(was: &str, now: &str) -> String {
    let diff = similar::TextDiff::from_lines(was, now);
    let text = diff
        .unified_diff()
        .context_radius(1)
        .missing_newline_hint(false)
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= MAX_DIFF_LINES {
        return text;
    }
    let mut out = lines[..MAX_DIFF_LINES].join("\n");
    let _ = write!(out, "\n… {} more lines\n", lines.len() - MAX_DIFF_LINES);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn seen(text: &str, structured: Option<Value>) -> Seen {
        Seen {
            outcome: CallEnd::Ok,
            text: text.into(),
            structured,
        }
    }

    fn pointer(text: &str) -> Pointer {
        text.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn pointers_follow_rfc_6901() {
        assert_eq!(pointer("/a~1b/~0c/0").tokens, ["a/b", "~c", "0"]);
        assert!("timestamp".parse::<Pointer>().is_err());
        assert!("".parse::<Pointer>().is_err());
        assert!("/a~2".parse::<Pointer>().is_err());
        let mut v = json!({"a/b": {"~c": [1, 2]}, "keep": 1});
        assert!(pointer("/a~1b/~0c/0").remove_from(&mut v));
        assert_eq!(v, json!({"a/b": {"~c": [2]}, "keep": 1}));
        assert!(!pointer("/nothing/here").remove_from(&mut v));
        assert!(pointer("/keep").remove_from(&mut v));
        assert_eq!(v, json!({"a/b": {"~c": [2]}}));
    }

    #[test]
    fn the_same_result_has_no_differences() {
        let a = seen("{\"sum\":3}", Some(json!({"sum": 3})));
        assert_eq!(compare(&a, &a.clone(), &[]), []);
        // 3 and 3.0 are the same sum.
        let b = seen("{\"sum\":3.0}", Some(json!({"sum": 3.0})));
        assert_eq!(compare(&a, &b, &[]), []);
    }

    #[test]
    fn fields_are_named_by_pointer_and_ignored_ones_dropped() {
        let was = seen(
            "{\"sum\":3,\"timestamp\":1}",
            Some(json!({"sum": 3, "timestamp": 1, "tags": ["a"]})),
        );
        let now = seen(
            "{\"sum\":3,\"timestamp\":2}",
            Some(json!({"sum": 3, "timestamp": 2, "tags": ["a", "b/c"]})),
        );
        assert_eq!(
            compare(&was, &now, &[]),
            [
                Difference::Field {
                    part: Part::Text,
                    pointer: "/timestamp".into(),
                    was: Some(json!(1)),
                    now: Some(json!(2)),
                },
                Difference::Field {
                    part: Part::Structured,
                    pointer: "/tags/1".into(),
                    was: None,
                    now: Some(json!("b/c")),
                },
                Difference::Field {
                    part: Part::Structured,
                    pointer: "/timestamp".into(),
                    was: Some(json!(1)),
                    now: Some(json!(2)),
                },
            ]
        );
        let ignore = [pointer("/timestamp"), pointer("/tags")];
        assert_eq!(compare(&was, &now, &ignore), []);
    }

    #[test]
    fn text_differs_by_lines_and_outcomes_are_compared() {
        let was = seen("one\ntwo\nthree\n", None);
        let mut now = seen("one\n2\nthree\n", None);
        now.outcome = CallEnd::Error;
        let found = compare(&was, &now, &[]);
        assert_eq!(
            found[0],
            Difference::Outcome {
                was: CallEnd::Ok,
                now: CallEnd::Error
            }
        );
        let Difference::Text { diff } = &found[1] else {
            panic!("{found:?}");
        };
        assert!(diff.contains("-two\n+2\n"), "{diff}");
        assert!(diff.contains(" one\n"), "{diff}");
    }

    #[test]
    fn the_transcripts_structured_section_is_compared_as_data_not_text() {
        let then = json!({"sum": 3, "at": 1});
        let today = json!({"sum": 3, "at": 2});
        let text = |v: &Value| format!("▸ text\nhello\n{}", structured_section(v));
        let was = seen(&text(&then), Some(then.clone()));
        let now = seen(&text(&today), Some(today.clone()));
        assert_eq!(compare(&was, &now, &[pointer("/at")]), []);
        // What the model reads when there is no text block: the content itself.
        let was = seen(&then.to_string(), Some(then));
        let now = seen(&today.to_string(), Some(today));
        assert_eq!(compare(&was, &now, &[pointer("/at")]), []);
    }

    #[test]
    fn structured_content_that_is_gone_differs() {
        let was = seen("x", Some(json!({"a": 1})));
        let now = seen("x", None);
        assert_eq!(
            compare(&was, &now, &[]),
            [Difference::Field {
                part: Part::Structured,
                pointer: String::new(),
                was: Some(json!({"a": 1})),
                now: None,
            }]
        );
        // A session that did not record structured content compares the text only.
        assert_eq!(
            compare(&seen("x", None), &seen("x", Some(json!(1))), &[]),
            []
        );
    }
}
