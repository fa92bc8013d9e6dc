//! `ToolSpec`: a tool's catalog entry and the facts the gate derives from its arguments.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::policy::{CallFacts, SubjectStyle, ToolEffect};

/// How to find a call's main argument (its *subject*) for rule matching.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Subject {
    /// Rules can only name the tool.
    #[default]
    None,
    /// A string argument such as `path` or `url`; matched like a path (`*` stops at `/`).
    Argument(String),
    /// A command line: the `program` argument followed by the `args` argument (an array
    /// of strings or one string), joined by spaces; `*` matches across `/`.
    CommandLine { program: String, args: String },
}

/// A tool's description in the catalog plus how to classify its calls.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Qualified name: `SERVER__TOOL` for MCP tools, a bare name for built-ins.
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    /// The effect when the selector argument is missing, mistyped or unmapped, and the
    /// effect of every call when there is no selector.
    pub default_effect: ToolEffect,
    /// The argument whose value selects the effect (`operation`, `command`, `method`).
    pub effect_argument: Option<String>,
    /// The selector value assumed when the argument is absent (e.g. `GET`).
    pub effect_argument_default: Option<String>,
    pub subject: Subject,
    /// Only an MCP App may call it (MCP Apps `_meta.ui.visibility` without `"model"`):
    /// never declared to a model, and the gate refuses a model's or sub-agent's call.
    pub app_only: bool,
    /// An MCP App may not call it (`_meta.ui.visibility` without `"app"`): the gate
    /// refuses its calls from an app.
    pub hidden_from_apps: bool,
    /// Lowercased selector value → effect; frozen at construction.
    effect_mapping: BTreeMap<String, ToolEffect>,
}

impl ToolSpec {
    pub fn builder(name: impl Into<String>) -> ToolSpecBuilder {
        ToolSpecBuilder {
            spec: Self {
                name: name.into(),
                title: None,
                description: String::new(),
                input_schema: serde_json::json!({"type": "object"}),
                output_schema: None,
                default_effect: ToolEffect::Unknown,
                effect_argument: None,
                effect_argument_default: None,
                subject: Subject::None,
                app_only: false,
                hidden_from_apps: false,
                effect_mapping: BTreeMap::new(),
            },
        }
    }

    /// Lowercased selector value → effect.
    pub fn effect_mapping(&self) -> &BTreeMap<String, ToolEffect> {
        &self.effect_mapping
    }

    /// The selector value of a call: the effect argument when it is a string, else the
    /// declared default when the argument is absent (or null). Mistyped → `None`.
    pub fn selector_value<'a>(&'a self, args: &'a Map<String, Value>) -> Option<&'a str> {
        let name = self.effect_argument.as_deref()?;
        match args.get(name) {
            None | Some(Value::Null) => self.effect_argument_default.as_deref(),
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => None,
        }
    }

    /// The effect of a call with these arguments.
    pub fn effect_for(&self, args: &Map<String, Value>) -> ToolEffect {
        self.selector_value(args)
            .and_then(|v| self.effect_mapping.get(&v.to_ascii_lowercase()).copied())
            .unwrap_or(self.default_effect)
    }

    /// The call's subject text, if the tool declares one and the arguments carry it.
    pub fn subject_for(&self, args: &Map<String, Value>) -> Option<String> {
        match &self.subject {
            Subject::None => None,
            Subject::Argument(name) => args.get(name).and_then(Value::as_str).map(str::to_owned),
            Subject::CommandLine {
                program,
                args: rest,
            } => {
                let mut line = args.get(program)?.as_str()?.to_owned();
                match args.get(rest) {
                    Some(Value::String(s)) if !s.is_empty() => {
                        line.push(' ');
                        line.push_str(s);
                    }
                    Some(Value::Array(items)) => {
                        for item in items {
                            line.push(' ');
                            match item {
                                Value::String(s) => line.push_str(s),
                                other => line.push_str(&other.to_string()),
                            }
                        }
                    }
                    _ => {}
                }
                Some(line)
            }
        }
    }

    /// The facts rules see about a call with `args`, classified as `effect`.
    pub fn facts(&self, args: &Map<String, Value>, effect: ToolEffect) -> CallFacts {
        CallFacts {
            tool: self.name.clone(),
            effect,
            selector: self.selector_value(args).map(str::to_owned),
            subject: self.subject_for(args),
            subject_style: self.subject_style(),
        }
    }

    /// How patterns on this tool's subject treat `/`.
    pub fn subject_style(&self) -> SubjectStyle {
        match self.subject {
            Subject::CommandLine { .. } => SubjectStyle::Text,
            Subject::None | Subject::Argument(_) => SubjectStyle::Path,
        }
    }
}

/// Builds a [`ToolSpec`]; the effect mapping cannot change after `build`.
#[derive(Debug, Clone)]
pub struct ToolSpecBuilder {
    spec: ToolSpec,
}

impl ToolSpecBuilder {
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.spec.title = Some(title.into());
        self
    }

    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.spec.description = description.into();
        self
    }

    #[must_use]
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.spec.input_schema = schema;
        self
    }

    #[must_use]
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.spec.output_schema = Some(schema);
        self
    }

    #[must_use]
    pub fn default_effect(mut self, effect: ToolEffect) -> Self {
        self.spec.default_effect = effect;
        self
    }

    #[must_use]
    pub fn effect_argument(mut self, name: impl Into<String>) -> Self {
        self.spec.effect_argument = Some(name.into());
        self
    }

    /// Maps a selector value (case-insensitive) to an effect.
    #[must_use]
    pub fn map_effect(mut self, value: &str, effect: ToolEffect) -> Self {
        self.spec
            .effect_mapping
            .insert(value.to_ascii_lowercase(), effect);
        self
    }

    #[must_use]
    pub fn effect_argument_default(mut self, value: impl Into<String>) -> Self {
        self.spec.effect_argument_default = Some(value.into());
        self
    }

    #[must_use]
    pub fn subject(mut self, subject: Subject) -> Self {
        self.spec.subject = subject;
        self
    }

    #[must_use]
    pub fn app_only(mut self, app_only: bool) -> Self {
        self.spec.app_only = app_only;
        self
    }

    #[must_use]
    pub fn hidden_from_apps(mut self, hidden: bool) -> Self {
        self.spec.hidden_from_apps = hidden;
        self
    }

    pub fn build(self) -> ToolSpec {
        self.spec
    }
}
