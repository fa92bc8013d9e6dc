//! What a field of a schema-driven form holds: one `FieldKind` types the fields of the
//! elicitation form (`state::elicit`, from a server's `requestedSchema`) and of the
//! argument form (`form`, from a tool's or a prompt's input schema).

use serde_json::Value;

/// One choice of an enum: the value sent and what is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub value: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Text {
        format: Option<String>,
        min_len: Option<usize>,
        max_len: Option<usize>,
    },
    Number {
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    Bool,
    /// One of `options`; `value` holds the chosen option's value ("" for none yet).
    Choice {
        options: Vec<Choice>,
    },
    /// Any of `options`: `chosen[i]` per option, `cursor` the one Space toggles.
    Multi {
        options: Vec<Choice>,
        chosen: Vec<bool>,
        cursor: usize,
        min_items: Option<usize>,
        max_items: Option<usize>,
    },
    /// A JSON value typed as text: an array or an object (`bare_text` false), or a
    /// union or an untyped value, where text that is not JSON is sent as a string.
    Json {
        bare_text: bool,
    },
}

impl FieldKind {
    /// The kind of a tool's or prompt's argument from its type as `tools::schema_fields`
    /// names it (`string`, `integer`, `array<string>`, `string | null`, `any`, …) and
    /// its enum values (a non-empty enum is a choice, whatever its type).
    pub fn of_argument(ty: &str, enum_values: &[String]) -> Self {
        if !enum_values.is_empty() {
            let options = enum_values
                .iter()
                .map(|v| Choice {
                    value: v.clone(),
                    title: v.clone(),
                })
                .collect();
            return Self::Choice { options };
        }
        match ty {
            "string" | "enum" => Self::Text {
                format: None,
                min_len: None,
                max_len: None,
            },
            "integer" | "number" => Self::Number {
                integer: ty == "integer",
                min: None,
                max: None,
            },
            "boolean" => Self::Bool,
            _ => Self::Json {
                bare_text: !(ty.starts_with("array") || ty == "object"),
            },
        }
    }

    /// Chosen with ←/→ (and Space), not typed.
    pub fn is_choice(&self) -> bool {
        matches!(self, Self::Bool | Self::Choice { .. } | Self::Multi { .. })
    }

    /// The values ←/→ step through: `false` and `true`, or the options' values.
    pub fn choice_values(&self) -> Vec<&str> {
        match self {
            Self::Bool => vec!["false", "true"],
            Self::Choice { options } => options.iter().map(|o| o.value.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    /// A number as typed (`integer`: a whole number); `None` when it does not parse.
    pub fn number(text: &str, integer: bool) -> Option<Value> {
        if integer {
            text.parse::<i64>().ok().map(Value::from)
        } else {
            text.parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn argument_types_become_kinds() {
        let text = FieldKind::Text {
            format: None,
            min_len: None,
            max_len: None,
        };
        assert_eq!(FieldKind::of_argument("string", &[]), text);
        assert_eq!(
            FieldKind::of_argument("integer", &[]),
            FieldKind::Number {
                integer: true,
                min: None,
                max: None
            }
        );
        assert_eq!(FieldKind::of_argument("boolean", &[]), FieldKind::Bool);
        let strict = FieldKind::Json { bare_text: false };
        assert_eq!(FieldKind::of_argument("array<string>", &[]), strict);
        assert_eq!(FieldKind::of_argument("object", &[]), strict);
        let lenient = FieldKind::Json { bare_text: true };
        assert_eq!(FieldKind::of_argument("string | null", &[]), lenient);
        assert_eq!(FieldKind::of_argument("any", &[]), lenient);
        let choice = FieldKind::of_argument("integer", &["1".into(), "2".into()]);
        assert!(choice.is_choice());
        assert_eq!(choice.choice_values(), vec!["1", "2"]);
        assert_eq!(FieldKind::Bool.choice_values(), vec!["false", "true"]);
    }

    #[test]
    fn numbers_parse_by_kind() {
        assert_eq!(FieldKind::number("3", true), Some(json!(3)));
        assert_eq!(FieldKind::number("3.5", true), None);
        assert_eq!(FieldKind::number("3.5", false), Some(json!(3.5)));
        assert_eq!(FieldKind::number("x", false), None);
    }
}
