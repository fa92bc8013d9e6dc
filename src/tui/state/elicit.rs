//! The form of a form-mode elicitation, built from the server's `requestedSchema`
//! (MCP 2025-11-25 "Elicitation", <https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation>):
//! a flat object of strings (with formats and lengths), numbers and integers (with
//! ranges), booleans, single-choice enums (`enum`, titled `oneOf` const/title, legacy
//! `enumNames`) and multi-select enums (`array` of `enum` or `anyOf` const/title).
//! Defaults are filled in (SEP-1034); required fields are marked; nothing is sent until
//! every value is valid.

use serde_json::{Map, Value};

pub use crate::tui::field::{Choice, FieldKind};

#[derive(Debug, Clone, PartialEq)]
pub struct AskField {
    /// The property name (the key sent back).
    pub name: String,
    /// The schema's `title`, else the name (sanitised).
    pub label: String,
    pub description: Option<String>,
    pub required: bool,
    pub kind: FieldKind,
    /// Text and numbers as typed; `true`/`false`; the chosen enum value.
    pub value: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ElicitForm {
    pub fields: Vec<AskField>,
    pub sel: usize,
    /// Why the last accept was refused.
    pub error: Option<String>,
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn clean(s: &str) -> String {
    crate::sanitize::sanitize_line(s)
}

/// `[{const, title}]` (titled enums) or plain `enum` values (with `enumNames`).
fn choices(schema: &Value) -> Option<Vec<Choice>> {
    let titled = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array);
    if let Some(list) = titled {
        let options = list
            .iter()
            .filter_map(|o| {
                let value = text(o.get("const")?);
                let title = o.get("title").map_or_else(|| value.clone(), text);
                Some(Choice {
                    value,
                    title: clean(&title),
                })
            })
            .collect();
        return Some(options);
    }
    let values = schema.get("enum")?.as_array()?;
    let names = schema.get("enumNames").and_then(Value::as_array);
    Some(
        values
            .iter()
            .enumerate()
            .map(|(i, v)| Choice {
                value: text(v),
                title: clean(&names.and_then(|n| n.get(i)).map_or_else(|| text(v), text)),
            })
            .collect(),
    )
}

fn num(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

fn count(schema: &Value, key: &str) -> Option<usize> {
    schema
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

fn field(name: &str, schema: &Value, required: bool) -> AskField {
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    let default = schema.get("default");
    let (kind, value) = match ty {
        "array" => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            let options = choices(items).unwrap_or_default();
            let defaults: Vec<String> = default
                .and_then(Value::as_array)
                .map(|d| d.iter().map(text).collect())
                .unwrap_or_default();
            let chosen = options
                .iter()
                .map(|o| defaults.contains(&o.value))
                .collect();
            let kind = FieldKind::Multi {
                options,
                chosen,
                cursor: 0,
                min_items: count(schema, "minItems"),
                max_items: count(schema, "maxItems"),
            };
            (kind, String::new())
        }
        "boolean" => (
            FieldKind::Bool,
            default
                .and_then(Value::as_bool)
                .unwrap_or(false)
                .to_string(),
        ),
        "number" | "integer" => (
            FieldKind::Number {
                integer: ty == "integer",
                min: num(schema, "minimum"),
                max: num(schema, "maximum"),
            },
            default
                .filter(|d| d.is_number())
                .map(text)
                .unwrap_or_default(),
        ),
        _ => match choices(schema) {
            Some(options) => {
                let value = default
                    .map(text)
                    .filter(|d| options.iter().any(|o| o.value == *d))
                    .unwrap_or_default();
                (FieldKind::Choice { options }, value)
            }
            None => (
                FieldKind::Text {
                    format: schema.get("format").and_then(Value::as_str).map(clean),
                    min_len: count(schema, "minLength"),
                    max_len: count(schema, "maxLength"),
                },
                default
                    .filter(|d| d.is_string())
                    .map(text)
                    .unwrap_or_default(),
            ),
        },
    };
    AskField {
        name: name.to_owned(),
        label: clean(schema.get("title").and_then(Value::as_str).unwrap_or(name)),
        description: schema.get("description").and_then(Value::as_str).map(clean),
        required,
        kind,
        value,
    }
}

impl ElicitForm {
    pub fn from_schema(schema: &Value) -> Self {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let fields = schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(name, s)| field(name, s, required.contains(&name.as_str())))
            .collect();
        Self {
            fields,
            sel: 0,
            error: None,
        }
    }

    pub fn selected(&mut self) -> Option<&mut AskField> {
        self.fields.get_mut(self.sel)
    }

    /// ←/→: the previous or next choice (enum, boolean) or multi-select option.
    pub fn cycle(&mut self, delta: isize) {
        let Some(f) = self.fields.get_mut(self.sel) else {
            return;
        };
        let step = |at: usize, n: usize| (at.cast_signed() + delta).rem_euclid(n.cast_signed());
        match &mut f.kind {
            FieldKind::Bool => {
                f.value = (f.value != "true").to_string();
            }
            FieldKind::Choice { options } if !options.is_empty() => {
                // An optional choice may also be left unset ("").
                let mut values: Vec<&str> = options.iter().map(|o| o.value.as_str()).collect();
                if !f.required {
                    values.insert(0, "");
                }
                let at = values.iter().position(|v| *v == f.value).unwrap_or(0);
                f.value = values[step(at, values.len()).cast_unsigned()].to_owned();
            }
            FieldKind::Multi {
                options, cursor, ..
            } if !options.is_empty() => {
                *cursor = step(*cursor, options.len()).cast_unsigned();
            }
            _ => {}
        }
    }

    /// Space on a multi-select field: the option under the cursor in or out. False when
    /// the field is not a multi-select (the space is typed).
    pub fn toggle(&mut self) -> bool {
        let Some(AskField {
            kind: FieldKind::Multi { chosen, cursor, .. },
            ..
        }) = self.fields.get_mut(self.sel)
        else {
            return false;
        };
        if let Some(c) = chosen.get_mut(*cursor) {
            *c = !*c;
        }
        true
    }

    /// Typed text goes to text and number fields only.
    pub fn text_mut(&mut self) -> Option<&mut String> {
        let f = self.fields.get_mut(self.sel)?;
        (!f.kind.is_choice()).then_some(&mut f.value)
    }

    /// The content to accept with, or the first problem (named by the field's label).
    pub fn content(&self) -> Result<Map<String, Value>, String> {
        let mut out = Map::new();
        for f in &self.fields {
            if let Some(value) = f.parse()? {
                out.insert(f.name.clone(), value);
            }
        }
        Ok(out)
    }
}

impl AskField {
    /// The value to send (`None`: optional and left empty), or why it is not valid.
    fn parse(&self) -> Result<Option<Value>, String> {
        let label = &self.label;
        let typed = self.value.trim();
        let empty = typed.is_empty() && !matches!(self.kind, FieldKind::Multi { .. });
        if empty {
            return if self.required {
                Err(format!("{label} is required"))
            } else {
                Ok(None)
            };
        }
        match &self.kind {
            FieldKind::Bool => Ok(Some(Value::Bool(typed == "true"))),
            FieldKind::Choice { .. } => Ok(Some(Value::String(self.value.clone()))),
            FieldKind::Text {
                format,
                min_len,
                max_len,
            } => {
                let n = self.value.chars().count();
                if min_len.is_some_and(|m| n < m) || max_len.is_some_and(|m| n > m) {
                    return Err(format!(
                        "{label} must have {} characters",
                        range_text(*min_len, *max_len)
                    ));
                }
                if let Some(format) = format
                    && !format_ok(format, typed)
                {
                    return Err(format!("{label} must be a valid {format}"));
                }
                Ok(Some(Value::String(self.value.clone())))
            }
            FieldKind::Number { integer, min, max } => {
                let value = FieldKind::number(typed, *integer).ok_or_else(|| {
                    let what = if *integer {
                        "a whole number"
                    } else {
                        "a number"
                    };
                    format!("{label} must be {what}")
                })?;
                let x = value.as_f64().unwrap_or(0.0);
                if min.is_some_and(|m| x < m) || max.is_some_and(|m| x > m) {
                    return Err(format!("{label} must be {}", range_text(*min, *max)));
                }
                Ok(Some(value))
            }
            FieldKind::Multi {
                options,
                chosen,
                min_items,
                max_items,
                ..
            } => {
                let picked: Vec<Value> = options
                    .iter()
                    .zip(chosen)
                    .filter(|(_, c)| **c)
                    .map(|(o, _)| Value::String(o.value.clone()))
                    .collect();
                let n = picked.len();
                if min_items.is_some_and(|m| n < m) || max_items.is_some_and(|m| n > m) {
                    return Err(format!(
                        "{label}: choose {}",
                        range_text(*min_items, *max_items)
                    ));
                }
                Ok((self.required || n > 0).then_some(Value::Array(picked)))
            }
            FieldKind::Json { bare_text } => serde_json::from_str(typed)
                .ok()
                .or_else(|| bare_text.then(|| Value::String(self.value.clone())))
                .map(Some)
                .ok_or_else(|| format!("{label} must be JSON")),
        }
    }
}

fn range_text<T: std::fmt::Display>(min: Option<T>, max: Option<T>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("between {a} and {b}"),
        (Some(a), None) => format!("at least {a}"),
        (None, Some(b)) => format!("at most {b}"),
        (None, None) => String::new(),
    }
}

/// The string formats elicitation allows: `email`, `uri`, `date`, `date-time`.
fn format_ok(format: &str, value: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let date = |s: &str| {
        let parts: Vec<&str> = s.split('-').collect();
        parts.len() == 3
            && parts.iter().all(|p| digits(p))
            && parts[0].len() == 4
            && parts[1].len() == 2
            && parts[2].len() == 2
    };
    match format {
        "email" => value
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.')),
        "uri" => reqwest::Url::parse(value).is_ok(),
        "date" => date(value),
        "date-time" => value
            .split_once(['T', 't'])
            .is_some_and(|(d, t)| date(d) && t.len() >= 5 && t.as_bytes()[2] == b':'),
        _ => true,
    }
}
