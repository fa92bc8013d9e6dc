//! A light JSON Schema check for arguments before they are sent: `type`, `required`,
//! `enum`, `properties` and `items`, recursively, with the path of each problem. It
//! is what a person filling a form needs to hear; the server stays the authority on
//! everything else (formats, patterns, ranges, combinators).

use serde_json::{Map, Value};

/// Nesting deeper than this is not checked.
const MAX_DEPTH: usize = 16;

/// Every problem found, as `path: what` (`options.days: required`).
pub fn check(schema: &Value, value: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    walk(schema, value, "", 0, &mut problems);
    problems
}

fn at(path: &str) -> &str {
    if path.is_empty() { "arguments" } else { path }
}

fn type_matches(ty: &str, value: &Value) -> bool {
    match ty {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "number" => value.is_number(),
        _ => true,
    }
}

fn walk(schema: &Value, value: &Value, path: &str, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH || !schema.is_object() {
        return;
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.is_empty() && !types.iter().any(|t| type_matches(t, value)) {
        out.push(format!("{}: must be {}", at(path), types.join(" or ")));
        return;
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array)
        && !choices.contains(value)
    {
        let list: Vec<String> = choices.iter().map(Value::to_string).collect();
        out.push(format!("{}: must be one of {}", at(path), list.join(", ")));
    }
    if let Value::Object(map) = value {
        object(schema, map, path, depth, out);
    }
    if let (Value::Array(items), Some(item_schema)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            walk(item_schema, item, &format!("{path}[{i}]"), depth + 1, out);
        }
    }
}

fn object(
    schema: &Value,
    map: &Map<String, Value>,
    path: &str,
    depth: usize,
    out: &mut Vec<String>,
) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for key in required.iter().filter_map(Value::as_str) {
            if !map.contains_key(key) {
                out.push(format!("{}: required", join(key)));
            }
        }
    }
    let props = schema.get("properties").and_then(Value::as_object);
    for (key, item) in map {
        match props.and_then(|p| p.get(key)) {
            Some(prop) => walk(prop, item, &join(key), depth + 1, out),
            None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                out.push(format!("{}: not an argument of this tool", join(key)));
            }
            None => {}
        }
    }
}

/// A value to start editing from: objects with their required properties (all of
/// them when none is required), each filled with its default, its first enum value
/// or an empty value of its type.
pub fn skeleton(schema: &Value) -> Value {
    skeleton_at(schema, 0)
}

fn skeleton_at(schema: &Value, depth: usize) -> Value {
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match ty {
        "object" if depth < MAX_DEPTH => {
            let props = schema.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            for (key, prop) in props.into_iter().flatten() {
                if required.is_empty() || required.contains(&key.as_str()) {
                    out.insert(key.clone(), skeleton_at(prop, depth + 1));
                }
            }
            Value::Object(out)
        }
        "object" => Value::Object(Map::new()),
        "array" => Value::Array(Vec::new()),
        "integer" | "number" => Value::from(0),
        "boolean" => Value::Bool(false),
        "null" => Value::Null,
        _ => Value::String(String::new()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "options": {"type": "object", "properties": {
                    "days": {"type": "integer"},
                    "hourly": {"type": "boolean", "default": true}
                }, "required": ["days"], "additionalProperties": false},
                "stops": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}
                }, "required": ["name"]}}
            },
            "required": ["city", "options"]
        })
    }

    #[test]
    fn a_good_value_has_no_problems() {
        let value = json!({"city": "Lyon", "options": {"days": 3}, "stops": [{"name": "a"}]});
        assert_eq!(check(&schema(), &value), Vec::<String>::new());
        assert!(check(&json!({"type": "integer"}), &json!(3.0)).is_empty());
    }

    #[test]
    fn problems_name_their_path() {
        let value = json!({
            "units": "kelvin",
            "options": {"days": "three", "extra": 1},
            "stops": [{"name": "a"}, {}]
        });
        assert_eq!(
            check(&schema(), &value),
            vec![
                "city: required",
                "units: must be one of \"metric\", \"imperial\"",
                "options.days: must be integer",
                "options.extra: not an argument of this tool",
                "stops[1].name: required",
            ]
        );
        assert_eq!(
            check(&schema(), &json!([])),
            vec!["arguments: must be object"]
        );
    }

    #[test]
    fn skeletons_fill_required_properties_with_defaults_and_empties() {
        assert_eq!(
            skeleton(&schema()),
            json!({"city": "", "options": {"days": 0}})
        );
        assert_eq!(
            skeleton(&schema()["properties"]["options"]["properties"]["hourly"]),
            json!(true)
        );
        let none_required = json!({"type": "object", "properties": {"a": {"type": "array"}, "b": {"enum": ["x", "y"]}}});
        assert_eq!(skeleton(&none_required), json!({"a": [], "b": "x"}));
    }
}
