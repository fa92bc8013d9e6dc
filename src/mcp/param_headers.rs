//! `x-mcp-header` annotations on tool input schemas (MCP 2026-07-28, Streamable HTTP
//! "Standard headers", SEP-2243): a property so annotated is mirrored to an
//! `Mcp-Param-{Name}` request header. A tool whose annotations are invalid must not be
//! used; rmcp's HTTP client drops such a tool from `tools/list` with only a log line,
//! so we check each listed tool the same way and keep `(name, reason)` for the person.
//!
//! The rules (those rmcp's client enforces): the annotation sits on a property reached
//! from the root through `properties` keys alone (never on the root, in `$defs`,
//! `items`, `anyOf` …); it is a non-empty HTTP token (RFC 9110 §5.6.2); the names are
//! unique ignoring case; the property's `type` is `string`, `integer` or `boolean`.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

const KEY: &str = "x-mcp-header";

/// Why a tool's `x-mcp-header` annotations are invalid; `path` is the annotated
/// property's dotted path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderAnnotationError {
    #[error("x-mcp-header must annotate a property, not the schema root")]
    OnRoot,
    #[error("x-mcp-header must sit on a `properties`-only path from the root")]
    OffChain,
    #[error("property `{path}`: x-mcp-header must be a string")]
    NotAString { path: String },
    #[error("property `{path}`: x-mcp-header must not be empty")]
    Empty { path: String },
    #[error("property `{path}`: x-mcp-header `{header}` is not a valid HTTP token")]
    NotAToken { path: String, header: String },
    #[error("property `{path}`: duplicate x-mcp-header `{header}` (ignoring case)")]
    Duplicate { path: String, header: String },
    #[error(
        "property `{path}`: x-mcp-header needs type string, integer or boolean, not {}",
        .found.as_deref().unwrap_or("(none)")
    )]
    WrongType { path: String, found: Option<String> },
}

/// Why a tool's input schema is refused, if it is.
pub fn check(schema: &Map<String, Value>) -> Result<(), HeaderAnnotationError> {
    if schema.contains_key(KEY) {
        return Err(HeaderAnnotationError::OnRoot);
    }
    if off_chain(schema, true) {
        return Err(HeaderAnnotationError::OffChain);
    }
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    annotations(schema.get("properties"), &mut Vec::new(), &mut found);
    for (path, property, header) in found {
        let Value::String(header) = header else {
            return Err(HeaderAnnotationError::NotAString { path });
        };
        if header.is_empty() {
            return Err(HeaderAnnotationError::Empty { path });
        }
        if !header.chars().all(is_tchar) {
            return Err(HeaderAnnotationError::NotAToken {
                path,
                header: header.clone(),
            });
        }
        if !seen.insert(header.to_ascii_lowercase()) {
            return Err(HeaderAnnotationError::Duplicate {
                path,
                header: header.clone(),
            });
        }
        match property.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                return Err(HeaderAnnotationError::WrongType {
                    path,
                    found: other.map(str::to_owned),
                });
            }
        }
    }
    Ok(())
}

/// RFC 9110 §5.6.2 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// `(dotted path, property schema, annotation)` along `properties` chains.
fn annotations<'a>(
    properties: Option<&'a Value>,
    path: &mut Vec<&'a str>,
    out: &mut Vec<(String, &'a Value, &'a Value)>,
) {
    let Some(Value::Object(properties)) = properties else {
        return;
    };
    for (name, schema) in properties {
        path.push(name);
        if let Some(header) = schema.get(KEY) {
            out.push((path.join("."), schema, header));
        }
        annotations(schema.get("properties"), path, out);
        path.pop();
    }
}

/// An annotation anywhere but on a `properties` chain from the root.
fn off_chain(schema: &Map<String, Value>, on_chain: bool) -> bool {
    schema.iter().any(|(key, value)| match key.as_str() {
        KEY => !on_chain,
        "properties" => map_off_chain(value, on_chain),
        "$defs" | "definitions" | "dependencies" | "dependentSchemas" | "patternProperties" => {
            map_off_chain(value, false)
        }
        // Instance data or property names, not subschemas.
        "default" | "const" | "enum" | "examples" | "dependentRequired" => false,
        _ => sub_off_chain(value, false),
    })
}

fn map_off_chain(map: &Value, on_chain: bool) -> bool {
    map.as_object()
        .is_some_and(|m| m.values().any(|s| sub_off_chain(s, on_chain)))
}

fn sub_off_chain(value: &Value, on_chain: bool) -> bool {
    match value {
        Value::Object(schema) => off_chain(schema, on_chain),
        Value::Array(items) => items.iter().any(|i| sub_off_chain(i, false)),
        _ => false,
    }
}

/// The refused tools of a `tools/list` result (wire JSON): `(name, reason)`.
pub fn refused_in(result: &Value) -> Vec<(String, String)> {
    result
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tool| {
            let schema = tool.get("inputSchema")?.as_object()?;
            let reason = check(schema).err()?.to_string();
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
            Some((name.to_owned(), reason))
        })
        .collect()
}

/// Tools refused on one connection since the last [`Refusals::take`], recorded by the
/// HTTP tap before rmcp drops them.
#[derive(Debug, Clone, Default)]
pub struct Refusals(Arc<Mutex<Vec<(String, String)>>>);

impl Refusals {
    /// Records the refusals in a JSON-RPC message's `result`, if it lists tools.
    pub fn record(&self, message: &Value) {
        let Some(result) = message.get("result").filter(|r| r.get("tools").is_some()) else {
            return;
        };
        let refused = refused_in(result);
        if !refused.is_empty() {
            self.lock().extend(refused);
        }
    }

    /// As [`Refusals::record`] for an SSE event's data; only parsed when it mentions
    /// the annotation at all.
    pub fn record_text(&self, data: &str) {
        if data.contains(KEY)
            && let Ok(message) = serde_json::from_str::<Value>(data)
        {
            self.record(&message);
        }
    }

    pub fn take(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, String)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn why(schema: &Value) -> Result<(), HeaderAnnotationError> {
        check(schema.as_object().unwrap())
    }

    #[test]
    fn valid_annotations_pass() {
        let ok = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "x-mcp-header": {"type": "string"}
        }, "default": {"x-mcp-header": "not a schema"}});
        assert_eq!(why(&ok), Ok(()));
    }

    #[test]
    fn each_rule_names_its_reason() {
        let cases = [
            (json!({"x-mcp-header": "Root"}), "not the schema root"),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "bad name"}}}),
                "not a valid HTTP token",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
                "must not be empty",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": 3}}}),
                "must be a string",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"},
                "b": {"type": "string", "x-mcp-header": "x"}}}),
                "duplicate",
            ),
            (
                json!({"properties": {"a": {"type": "array", "x-mcp-header": "A"}}}),
                "not array",
            ),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "I"}}}}),
                "`properties`-only path",
            ),
            (
                json!({"$defs": {"a": {"type": "string", "x-mcp-header": "D"}}}),
                "`properties`-only path",
            ),
        ];
        for (schema, reason) in cases {
            let got = why(&schema).unwrap_err().to_string();
            assert!(got.contains(reason), "{schema}: {got}");
        }
    }

    #[test]
    fn refusals_are_recorded_from_a_listing_and_taken_once() {
        let refusals = Refusals::default();
        let list = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "good", "inputSchema": {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "R"}}}},
            {"name": "bad", "inputSchema": {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "a b"}}}}
        ]}});
        refusals.record_text(&list.to_string());
        refusals.record_text(r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#);
        let taken = refusals.take();
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].0, "bad");
        assert!(taken[0].1.contains("`a b` is not a valid HTTP token"));
        assert!(refusals.take().is_empty());
    }
}
