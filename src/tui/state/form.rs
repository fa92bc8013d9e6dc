//! The argument form's data, generated from a schema: one field per top-level
//! argument, validated before anything is sent; raw JSON on a toggle.

use serde_json::{Map, Value};

use crate::tools::schema_fields;
use crate::tui::field::{Choice, FieldKind};

/// What the form sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormTarget {
    /// A tool, by the name the gate knows (through `Registry::invoke`).
    Tool(String),
    Prompt {
        server: String,
        name: String,
    },
    /// A resource template: the fields are its URI variables; sending reads the URI.
    Template {
        server: String,
        uri_template: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    pub name: String,
    /// The schema's type, as shown: `string`, `integer`, `array<…>`, `string | null`, …
    pub ty: String,
    /// What the value is read as: text, a number, a choice (booleans and enums), JSON.
    pub kind: FieldKind,
    pub required: bool,
    pub description: Option<String>,
    /// As typed; arrays and objects as JSON.
    pub value: String,
    /// What the server's `completion/complete` offers for the value typed so far.
    pub suggestions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FormState {
    pub target: FormTarget,
    pub fields: Vec<FormField>,
    pub sel: usize,
    /// Raw JSON mode: the whole arguments object as text.
    pub raw: Option<String>,
    /// Why the last send was refused.
    pub error: Option<String>,
    /// The input schema the arguments are checked against (`Null` for templates).
    pub schema: Value,
}

impl FormState {
    pub fn for_schema(target: FormTarget, schema: &Value) -> Self {
        let fields = schema_fields(schema)
            .into_iter()
            .filter(|f| !f.path.contains(['.', '[']))
            .map(|f| {
                let kind = FieldKind::of_argument(&f.ty, &f.enum_values);
                let value = f.default.clone().unwrap_or_else(|| match &kind {
                    FieldKind::Bool => "false".into(),
                    FieldKind::Choice { options } => {
                        options.first().map(|o| o.value.clone()).unwrap_or_default()
                    }
                    _ => String::new(),
                });
                FormField {
                    name: f.path,
                    ty: f.ty,
                    kind,
                    required: f.required,
                    description: f.description,
                    value,
                    suggestions: Vec::new(),
                }
            })
            .collect();
        Self {
            target,
            fields,
            sel: 0,
            raw: None,
            error: None,
            schema: schema.clone(),
        }
    }

    /// A field per variable of a resource template.
    pub fn for_template(server: &str, uri_template: &str) -> Self {
        let fields = crate::tui::uri_template::variables(uri_template)
            .into_iter()
            .map(|name| FormField {
                name,
                ty: "string".into(),
                kind: FieldKind::of_argument("string", &[]),
                required: true,
                description: None,
                value: String::new(),
                suggestions: Vec::new(),
            })
            .collect();
        Self {
            target: FormTarget::Template {
                server: server.to_string(),
                uri_template: uri_template.to_string(),
            },
            fields,
            sel: 0,
            raw: None,
            error: None,
            schema: Value::Null,
        }
    }

    pub fn title(&self) -> String {
        match &self.target {
            FormTarget::Tool(name) => format!("Call {name}"),
            FormTarget::Prompt { server, name } => format!("Prompt {server} · {name}"),
            FormTarget::Template {
                server,
                uri_template,
            } => format!("Read {server} · {uri_template}"),
        }
    }

    /// The URI a template form reads, once every variable has a value.
    pub fn uri(&self) -> Result<String, String> {
        let FormTarget::Template { uri_template, .. } = &self.target else {
            return Err("not a template".into());
        };
        if let Some(f) = self.fields.iter().find(|f| f.value.trim().is_empty()) {
            return Err(format!("`{}` is required", f.name));
        }
        Ok(crate::tui::uri_template::expand(uri_template, |name| {
            self.fields
                .iter()
                .find(|f| f.name == name)
                .map(|f| f.value.clone())
                .unwrap_or_default()
        }))
    }

    /// Take the first suggestion for the selected field; false when there is none.
    pub fn accept_suggestion(&mut self) -> bool {
        let Some(f) = self.fields.get_mut(self.sel) else {
            return false;
        };
        match f.suggestions.first().cloned() {
            Some(first) if !f.kind.is_choice() => {
                f.value = first;
                f.suggestions.clear();
                true
            }
            _ => false,
        }
    }

    /// The arguments, or the first problem: a missing required value, a number that
    /// does not parse, a value outside the enum, JSON that is not JSON, then anything
    /// the schema says against the whole (nested required fields, types, enums).
    pub fn to_args(&self) -> Result<Map<String, Value>, String> {
        let args = self.collect_args()?;
        let problems = crate::tools::check_schema(&self.schema, &Value::Object(args.clone()));
        match problems.as_slice() {
            [] => Ok(args),
            [one] => Err(one.clone()),
            [first, rest @ ..] => Err(format!("{first} (and {} more)", rest.len())),
        }
    }

    /// The values as typed, parsed by their field type; no schema check.
    fn collect_args(&self) -> Result<Map<String, Value>, String> {
        if let Some(raw) = &self.raw {
            return match serde_json::from_str::<Value>(raw) {
                Ok(Value::Object(map)) => Ok(map),
                Ok(_) => Err("the arguments must be a JSON object".into()),
                Err(e) => Err(format!("not valid JSON: {e}")),
            };
        }
        let mut args = Map::new();
        for (i, f) in self.fields.iter().enumerate() {
            let text = f.value.trim();
            if text.is_empty() {
                if f.required {
                    return Err(format!("`{}` is required", f.name));
                }
                continue;
            }
            let value = match &f.kind {
                FieldKind::Choice { options } => self.chosen(i, options, text)?,
                FieldKind::Text { .. } => Value::String(f.value.clone()),
                FieldKind::Number { integer, .. } => {
                    FieldKind::number(text, *integer).ok_or_else(|| {
                        let what = if *integer {
                            "a whole number"
                        } else {
                            "a number"
                        };
                        format!("`{}` must be {what}", f.name)
                    })?
                }
                FieldKind::Bool => match text {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => return Err(format!("`{}` must be true or false", f.name)),
                },
                FieldKind::Json { bare_text } => serde_json::from_str(text)
                    .ok()
                    .or_else(|| bare_text.then(|| Value::String(f.value.clone())))
                    .ok_or_else(|| format!("`{}` must be JSON ({})", f.name, f.ty))?,
                FieldKind::Multi { .. } => serde_json::from_str(text)
                    .map_err(|_| format!("`{}` must be JSON ({})", f.name, f.ty))?,
            };
            args.insert(f.name.clone(), value);
        }
        Ok(args)
    }

    /// The value of field `index`, a choice: the schema's enum value shown as `text`
    /// (so an integer enum sends a number), or the text where the schema has none.
    fn chosen(&self, index: usize, options: &[Choice], text: &str) -> Result<Value, String> {
        if !options.iter().any(|o| o.value == text) {
            let values: Vec<&str> = options.iter().map(|o| o.value.as_str()).collect();
            let name = self.fields.get(index).map_or("", |f| f.name.as_str());
            return Err(format!("`{name}` must be one of {}", values.join(", ")));
        }
        let declared = self
            .field_schema(index)
            .and_then(|s| s.get("enum"))
            .and_then(Value::as_array)
            .and_then(|values| values.iter().find(|v| scalar(v) == text));
        Ok(declared.map_or_else(|| Value::String(text.to_owned()), Clone::clone))
    }

    /// Switch between fields and raw JSON, carrying the values over when they are valid.
    pub fn toggle_raw(&mut self) {
        self.error = None;
        if let Some(raw) = self.raw.take() {
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&raw) {
                for f in &mut self.fields {
                    if let Some(v) = map.get(&f.name) {
                        f.value = match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                    }
                }
            }
        } else {
            let args = self.collect_args().unwrap_or_default();
            self.raw = Some(serde_json::to_string(&Value::Object(args)).unwrap_or_default());
        }
    }

    /// The text being edited: the selected field, or the raw JSON.
    pub fn text_mut(&mut self) -> Option<&mut String> {
        match &mut self.raw {
            Some(raw) => Some(raw),
            None => self.fields.get_mut(self.sel).map(|f| &mut f.value),
        }
    }

    /// The selected field's sub-schema (its `properties` entry).
    pub fn field_schema(&self, index: usize) -> Option<&Value> {
        let name = &self.fields.get(index)?.name;
        self.schema.get("properties")?.get(name)
    }

    /// The schema of the objects a field holds: its own, or its items' for an array
    /// of objects (`true` then).
    pub fn object_schema(&self, index: usize) -> Option<(&Value, bool)> {
        let schema = self.field_schema(index)?;
        Some(match schema.get("items") {
            Some(items) if items.get("properties").is_some() => (items, true),
            _ => (schema, false),
        })
    }

    /// A JSON value to start from for an object or array field: its required
    /// properties with defaults, one item for arrays of objects.
    pub fn skeleton(&self) -> Option<String> {
        let value = match self.object_schema(self.sel)? {
            (items, true) => Value::Array(vec![crate::tools::schema_skeleton(items)]),
            (schema, false) => crate::tools::schema_skeleton(schema),
        };
        (value.is_object() || value.is_array())
            .then(|| serde_json::to_string_pretty(&value).unwrap_or_default())
    }

    /// What the editor saved replaces the value being edited.
    pub fn edited(&mut self, result: Result<String, String>) {
        match result {
            Ok(text) => {
                if let Some(value) = self.text_mut() {
                    *value = text;
                }
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// ←/→ on an enum or boolean field: the previous or next choice.
    pub fn cycle(&mut self, delta: isize) {
        if self.raw.is_some() {
            return;
        }
        let Some(f) = self.fields.get_mut(self.sel) else {
            return;
        };
        let choices = f.kind.choice_values();
        if choices.is_empty() {
            return;
        }
        let n = choices.len().cast_signed();
        let at = choices
            .iter()
            .position(|c| *c == f.value)
            .unwrap_or(0)
            .cast_signed();
        f.value = choices[(at + delta).rem_euclid(n).cast_unsigned()].to_owned();
    }
}

/// An enum value as the form shows it: a string as is, anything else as JSON.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn form() -> FormState {
        FormState::for_schema(
            FormTarget::Tool("weather__forecast".into()),
            &json!({"type": "object", "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "default": 3},
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "hourly": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}}
            }, "required": ["city"]}),
        )
    }

    #[test]
    fn fields_validate_and_convert() {
        let mut f = form();
        assert_eq!(f.to_args(), Err("`city` is required".into()));
        f.fields[0].value = "Oslo".into();
        f.fields[4].value = "[\"a\"]".into();
        assert_eq!(
            Value::Object(f.to_args().unwrap()),
            json!({"city": "Oslo", "days": 3, "units": "metric", "hourly": false, "tags": ["a"]})
        );
        f.fields[1].value = "three".into();
        assert_eq!(f.to_args(), Err("`days` must be a whole number".into()));
        f.fields[1].value = "3".into();
        f.fields[2].value = "kelvin".into();
        assert_eq!(
            f.to_args(),
            Err("`units` must be one of metric, imperial".into())
        );
        f.fields[2].value = "metric".into();
        f.fields[4].value = "[a".into();
        assert_eq!(
            f.to_args(),
            Err("`tags` must be JSON (array<string>)".into())
        );
    }

    #[test]
    fn a_choice_sends_the_schema_enum_value() {
        let mut f = FormState::for_schema(
            FormTarget::Tool("t".into()),
            &json!({"type": "object", "properties": {
                "level": {"type": "integer", "enum": [1, 2]},
                "mode": {"enum": [1, "fast"]}
            }}),
        );
        f.cycle(1);
        f.sel = 1;
        f.cycle(1);
        assert_eq!(
            Value::Object(f.to_args().unwrap()),
            json!({"level": 2, "mode": "fast"})
        );
        f.cycle(1);
        assert_eq!(
            Value::Object(f.to_args().unwrap()),
            json!({"level": 2, "mode": 1})
        );
    }

    #[test]
    fn enums_and_booleans_cycle_and_raw_round_trips() {
        let mut f = form();
        f.sel = 2;
        f.cycle(1);
        assert_eq!(f.fields[2].value, "imperial");
        f.sel = 3;
        f.cycle(-1);
        assert_eq!(f.fields[3].value, "true");
        f.fields[0].value = "Oslo".into();
        f.toggle_raw();
        let raw = f.raw.clone().unwrap();
        assert!(raw.contains("\"city\":\"Oslo\""), "{raw}");
        *f.text_mut().unwrap() = raw.replace("Oslo", "Bergen");
        f.toggle_raw();
        assert_eq!(f.fields[0].value, "Bergen");
    }
}
