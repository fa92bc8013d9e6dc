//! Reading a call's arguments, with messages the model can act on.

use serde_json::{Map, Value};

/// An argument is missing or has the wrong type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgError {
    #[error("missing required argument `{0}`")]
    Missing(&'static str),
    #[error("argument `{0}` must be {1}")]
    WrongType(&'static str, &'static str),
}

/// A required string.
pub fn string<'a>(args: &'a Map<String, Value>, name: &'static str) -> Result<&'a str, ArgError> {
    optional_string(args, name)?.ok_or(ArgError::Missing(name))
}

/// An optional string (absent or null → `None`).
pub fn optional_string<'a>(
    args: &'a Map<String, Value>,
    name: &'static str,
) -> Result<Option<&'a str>, ArgError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ArgError::WrongType(name, "a string")),
    }
}

/// An optional non-negative integer.
pub fn optional_u64(
    args: &Map<String, Value>,
    name: &'static str,
) -> Result<Option<u64>, ArgError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or(ArgError::WrongType(name, "a non-negative integer")),
    }
}

/// A required non-negative integer.
pub fn u64_arg(args: &Map<String, Value>, name: &'static str) -> Result<u64, ArgError> {
    optional_u64(args, name)?.ok_or(ArgError::Missing(name))
}

/// An optional array of strings.
pub fn string_list(args: &Map<String, Value>, name: &'static str) -> Result<Vec<String>, ArgError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or(ArgError::WrongType(name, "an array of strings"))
            })
            .collect(),
        Some(_) => Err(ArgError::WrongType(name, "an array of strings")),
    }
}

/// An optional object of string values.
pub fn string_map(
    args: &Map<String, Value>,
    name: &'static str,
) -> Result<Vec<(String, String)>, ArgError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|s| (k.clone(), s.to_owned()))
                    .ok_or(ArgError::WrongType(name, "an object of strings"))
            })
            .collect(),
        Some(_) => Err(ArgError::WrongType(name, "an object of strings")),
    }
}
