//! Who is calling, from where, with which access: the context every call carries.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The access a caller has. `ReadOnly` admits only `Read` calls, whatever the rules say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    #[default]
    Full,
    ReadOnly,
}

/// Where a call comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The model asked for it during a turn.
    Model,
    /// The user filled in the manual call form.
    Manual,
    /// `switchboard call`.
    Cli,
    /// A client of serve mode.
    Serve,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Manual => "manual",
            Self::Cli => "cli",
            Self::Serve => "serve",
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The context of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolContext {
    /// The turn (or CLI invocation) this call belongs to; cancelling it aborts the call.
    pub run_id: String,
    /// The model's tool-call id, when there is one.
    pub step_id: Option<String>,
    pub scope: Scope,
    pub origin: Origin,
    /// A snapshot of caller metadata (e.g. progress token); shared, never mutated.
    pub metadata: Arc<Value>,
}

impl ToolContext {
    /// A full-scope context with no step and empty metadata.
    pub fn new(run_id: impl Into<String>, origin: Origin) -> Self {
        Self {
            run_id: run_id.into(),
            step_id: None,
            scope: Scope::Full,
            origin,
            metadata: Arc::new(Value::Null),
        }
    }

    #[must_use]
    pub fn with_scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    #[must_use]
    pub fn with_step(mut self, step_id: impl Into<String>) -> Self {
        self.step_id = Some(step_id.into());
        self
    }

    #[must_use]
    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.metadata = Arc::new(metadata);
        self
    }
}
