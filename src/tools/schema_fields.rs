//! A JSON Schema as a readable field list (name, type, required, enum values, default,
//! description), for detail panes and call skeletons.

use serde_json::Value;

/// One argument of a tool, possibly nested (`options.depth`, `items[].name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaField {
    pub path: String,
    pub ty: String,
    pub required: bool,
    pub enum_values: Vec<String>,
    pub default: Option<String>,
    pub description: Option<String>,
}

/// Nesting deeper than this is shown as its type only.
const MAX_DEPTH: usize = 6;

pub fn schema_fields(schema: &Value) -> Vec<SchemaField> {
    let mut out = Vec::new();
    collect(schema, "", 0, &mut out);
    out
}

fn type_name(schema: &Value) -> String {
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if schema.get("enum").is_some() => "enum".into(),
        _ if schema.get("properties").is_some() => "object".into(),
        _ if schema.get("anyOf").is_some() || schema.get("oneOf").is_some() => "one of".into(),
        _ => "any".into(),
    };
    if ty == "array" {
        let inner = schema.get("items").map_or_else(|| "any".into(), type_name);
        return format!("array<{inner}>");
    }
    ty
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn collect(schema: &Value, prefix: &str, depth: usize, out: &mut Vec<SchemaField>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, prop) in props {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        out.push(SchemaField {
            path: path.clone(),
            ty: type_name(prop),
            required: required.contains(&name.as_str()),
            enum_values: prop
                .get("enum")
                .and_then(Value::as_array)
                .map(|vs| vs.iter().map(scalar).collect())
                .unwrap_or_default(),
            default: prop.get("default").map(scalar),
            description: prop
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
        if depth < MAX_DEPTH {
            collect(prop, &path, depth + 1, out);
            if let Some(items) = prop.get("items") {
                collect(items, &format!("{path}[]"), depth + 1, out);
            }
        }
    }
}

/// A `/call` line with the required top-level arguments left to fill in:
/// `fs operation= path=`.
pub fn call_skeleton(tool: &str, schema: &Value) -> String {
    let mut line = tool.to_string();
    for field in schema_fields(schema) {
        if field.required && !field.path.contains(['.', '[']) {
            line.push(' ');
            line.push_str(&field.path);
            line.push('=');
            if let Some(first) = field.enum_values.first() {
                line.push_str(first);
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nested_schema_becomes_a_field_list() {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
                "options": {"type": "object", "properties": {
                    "days": {"type": "integer"}
                }, "required": ["days"]},
                "stops": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": ["string", "null"]}
                }}}
            },
            "required": ["city"]
        });
        let fields = schema_fields(&schema);
        let rows: Vec<(String, String, bool)> = fields
            .iter()
            .map(|f| (f.path.clone(), f.ty.clone(), f.required))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("city".into(), "string".into(), true),
                ("units".into(), "string".into(), false),
                ("options".into(), "object".into(), false),
                ("options.days".into(), "integer".into(), true),
                ("stops".into(), "array<object>".into(), false),
                ("stops[].name".into(), "string | null".into(), false),
            ]
        );
        assert_eq!(fields[1].enum_values, vec!["metric", "imperial"]);
        assert_eq!(fields[1].default.as_deref(), Some("metric"));
        assert_eq!(fields[0].description.as_deref(), Some("City name"));
    }

    #[test]
    fn skeleton_lists_required_arguments() {
        let schema = json!({"type": "object", "properties": {
            "operation": {"type": "string", "enum": ["read", "write"]},
            "path": {"type": "string"},
            "content": {"type": "string"}
        }, "required": ["operation", "path"]});
        assert_eq!(call_skeleton("fs", &schema), "fs operation=read path=");
        assert_eq!(call_skeleton("ping", &json!({})), "ping");
    }
}
