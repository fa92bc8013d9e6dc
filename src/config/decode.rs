//! Turn serde's deserialization errors into [`ConfigError`]s a person can act on.
//!
//! serde reports problems as text (`unknown field `x`, expected one of …`); its wording
//! is stable, so it is read back here into unknown-key, wrong-type and bad-value
//! errors. The key path comes from `serde_path_to_error`, the place from toml's span.

use std::path::Path;

use serde_path_to_error::Segment;

use super::error::{ConfigError, ErrorKind};
use super::key_path::KeyPath;
use super::locate::SourceMap;
use super::suggest;

/// Prefix of the private keys `toml::Spanned` uses to carry its span through serde.
const SPANNED_PRIVATE: &str = "$__serde_spanned_private";

/// Explain one deserialization error of `text` (the content of `path`).
pub fn explain(
    path: &Path,
    text: &str,
    err: &serde_path_to_error::Error<toml::de::Error>,
) -> ConfigError {
    let keys = key_segments(err.path());
    let inner = err.inner();
    let message = inner.message();
    let span = inner.span().unwrap_or_else(|| {
        let names: Vec<&str> = keys.iter().map(String::as_str).collect();
        SourceMap::parse(text).map_or(0..0, |map| map.nearest_span(&names))
    });
    let d = describe(&keys, message);
    ConfigError::located(path, text, span, d.kind, d.key, d.message, d.hint)
}

/// The rendered parts of a located error.
struct Description {
    kind: ErrorKind,
    key: String,
    message: String,
    hint: Option<String>,
}

fn describe(keys: &[String], message: &str) -> Description {
    let key = KeyPath::new(keys).to_string();
    if let Some(rest) = message.strip_prefix("unknown field ") {
        return unknown_key(keys, rest);
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        let (value, expected) = split_expected(rest);
        let value = first_backticked(value).unwrap_or(value);
        let accepted = backticked_items(expected);
        return Description {
            kind: ErrorKind::InvalidValue,
            message: format!("`{key}`: unknown value `{value}`"),
            hint: suggest::hint(value, &accepted, "accepted values"),
            key,
        };
    }
    if message.starts_with("invalid type: ") && message.contains(super::KEY_SPEC_EXPECTED) {
        return Description {
            kind: ErrorKind::WrongType,
            message: format!("`{key}`: expected {}", super::KEY_SPEC_EXPECTED),
            hint: None,
            key,
        };
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let (found, expected) = split_expected(rest);
        return Description {
            kind: ErrorKind::WrongType,
            message: format!(
                "`{key}`: expected {}, found {}",
                expected_noun(expected),
                found_noun(found)
            ),
            hint: None,
            key,
        };
    }
    if let Some(rest) = message.strip_prefix("invalid value: ") {
        let (found, expected) = split_expected(rest);
        let found = first_backticked(found).unwrap_or(found);
        return Description {
            kind: ErrorKind::InvalidValue,
            message: format!(
                "`{key}`: expected {}, found {found}",
                expected_noun(expected)
            ),
            hint: None,
            key,
        };
    }
    if let Some(field) = message
        .strip_prefix("missing field ")
        .and_then(first_backticked)
    {
        let mut full = keys.to_vec();
        full.push(field.to_owned());
        let table = if keys.is_empty() {
            "at the top level".to_owned()
        } else {
            format!("in [{key}]")
        };
        return Description {
            kind: ErrorKind::MissingKey,
            message: format!("missing required key `{field}` {table}"),
            hint: None,
            key: KeyPath::new(&full).to_string(),
        };
    }
    let first_line = message.lines().next().unwrap_or_default();
    Description {
        kind: ErrorKind::InvalidValue,
        message: if key.is_empty() {
            first_line.to_owned()
        } else {
            format!("`{key}`: {first_line}")
        },
        hint: None,
        key,
    }
}

/// `rest` is what follows `unknown field `; the last key segment is the unknown key.
fn unknown_key(keys: &[String], rest: &str) -> Description {
    let (field, expected) = split_expected(rest);
    let field = first_backticked(field).unwrap_or(field);
    let parent = keys.split_last().map_or(keys, |(_, p)| p);
    let place = if parent.is_empty() {
        "at the top level".to_owned()
    } else {
        format!("in [{}]", KeyPath::new(parent))
    };
    let expected = backticked_items(expected);
    // The skills tool is the one built-in configured at the top level.
    let hint = if parent == ["tools"] && field == "skills" {
        Some("the skills tool is configured under [skills] (e.g. [skills] enabled = false)".into())
    } else {
        suggest::hint(field, &expected, "expected keys")
    };
    Description {
        kind: ErrorKind::UnknownKey,
        message: format!("unknown key `{field}` {place}"),
        hint,
        key: KeyPath::new(keys).to_string(),
    }
}

/// The map keys of a serde path, without `Spanned`'s private keys.
fn key_segments(path: &serde_path_to_error::Path) -> Vec<String> {
    path.iter()
        .filter_map(|seg| match seg {
            Segment::Map { key } if !key.starts_with(SPANNED_PRIVATE) => Some(key.clone()),
            Segment::Seq { index } => Some(format!("[{index}]")),
            _ => None,
        })
        .collect()
}

/// Split `X, expected Y` (or `X, there are no fields`) into `X` and `Y`.
fn split_expected(text: &str) -> (&str, &str) {
    if let Some((found, expected)) = text.split_once(", expected ") {
        return (found, expected);
    }
    text.split_once(", ").unwrap_or((text, ""))
}

fn first_backticked(text: &str) -> Option<&str> {
    let start = text.find('`')? + 1;
    let len = text[start..].find('`')?;
    Some(&text[start..start + len])
}

/// Every `` `item` `` in `text`.
fn backticked_items(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// serde's description of a found value (`string "x"`, `integer `3``) as a noun.
fn found_noun(found: &str) -> String {
    let nouns = [
        ("string", "a string"),
        ("boolean", "a boolean"),
        ("integer", "an integer"),
        ("floating point", "a float"),
        ("sequence", "an array"),
        ("map", "a table"),
    ];
    nouns
        .iter()
        .find(|(prefix, _)| found.starts_with(prefix))
        .map_or_else(|| found.to_owned(), |(_, noun)| (*noun).to_owned())
}

/// serde's description of an expected type (`a sequence`, `u32`) in TOML words.
fn expected_noun(expected: &str) -> String {
    let noun = match expected {
        "a sequence" => "an array",
        "a map" => "a table",
        "u8" | "u16" | "u32" | "u64" | "usize" => "a non-negative integer",
        "i8" | "i16" | "i32" | "i64" | "isize" => "an integer",
        "f32" | "f64" => "a number",
        "path string" => "a path (string)",
        e if e.starts_with("struct ") => "a table",
        e => e,
    };
    noun.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(k: &[&str]) -> Vec<String> {
        k.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn unknown_field_names_the_table_and_suggests() {
        let d = describe(
            &keys(&["servers", "weather", "comand"]),
            "unknown field `comand`, expected one of `command`, `args`",
        );
        assert_eq!(d.kind, ErrorKind::UnknownKey);
        assert_eq!(d.message, "unknown key `comand` in [servers.weather]");
        assert_eq!(d.hint.as_deref(), Some("did you mean `command`?"));
        assert_eq!(d.key, "servers.weather.comand");
    }

    #[test]
    fn tools_skills_points_to_the_skills_table() {
        let text = "[tools.skills]\nenabled = false\n";
        let error = crate::config::parse_str(text, Path::new("s.toml")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "s.toml:1:8: unknown key `skills` in [tools]\n  hint: the skills tool is configured under [skills] (e.g. [skills] enabled = false)"
        );
    }

    #[test]
    fn wrong_types_are_said_in_toml_words() {
        let d = describe(
            &keys(&["policy", "allow"]),
            "invalid type: string \"x\", expected a sequence",
        );
        assert_eq!(
            d.message,
            "`policy.allow`: expected an array, found a string"
        );
        let d = describe(
            &keys(&["policy", "max_calls", "a.b"]),
            "invalid value: integer `-1`, expected u32",
        );
        assert_eq!(
            d.message,
            "`policy.max_calls.\"a.b\"`: expected a non-negative integer, found -1"
        );
    }

    #[test]
    fn unknown_messages_pass_through_with_the_key() {
        let d = describe(&keys(&["ui"]), "something odd\nmore");
        assert_eq!(d.message, "`ui`: something odd");
    }
}
