//! Who is calling and with which access: facts every policy decision starts from.

use std::fmt;

use serde::{Deserialize, Serialize};

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
    /// A sub-agent (`[agents.NAME]`) asked for it; `ToolContext::agent` names it.
    Agent,
    /// An MCP App (a tool's `ui://` page, opened by `switchboard app` or the TUI)
    /// asked for it; `ToolContext::app` names it.
    App,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Manual => "manual",
            Self::Cli => "cli",
            Self::Serve => "serve",
            Self::Agent => "agent",
            Self::App => "app",
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
