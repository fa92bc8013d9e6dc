//! Agents that work together: `[agents.NAME]` as tools (`agent__NAME`), and the
//! coordinator that runs several on one task.
//!
//! - [`tool`]: [`AgentTool`], the registry tool behind `agent__NAME`. A call runs the
//!   agent to its end and returns its answer as the tool result. Nesting is limited
//!   to [`MAX_DEPTH`] agents.
//! - [`local`]: a local agent's turn: its own session (provider, prompt, conversation)
//!   whose every tool call passes `Registry::invoke` as the sub-agent (origin
//!   `agent`, its name, its scope, its tool allowlist); the gate's events about those
//!   calls go to the caller's observer, so approvals reach the same pane.
//! - [`remote`]: an `a2a` agent: the task sent over A2A, followed to its end,
//!   cancelled on the server when the call is.
//! - [`coordinator`]: sequential, parallel and pipeline runs of several agents (and
//!   `kind = "chain"`), each step a call of `agent__NAME` through the gate, traced
//!   without task text or outputs.

pub mod coordinator;
mod local;
mod remote;
pub mod tool;

use std::path::Path;
use std::sync::Arc;

pub use coordinator::{Plan, RunMode, StepError, StepOutcome, coordinate, outcomes_text};
pub use remote::{CardError, read_card};
pub use tool::AgentTool;

use crate::config::{AgentDef, Config};
use crate::tools::Registry;

/// How many agents deep a call may be: an agent at this depth cannot call another.
pub const MAX_DEPTH: u32 = 3;

/// Registers one `agent__NAME` tool per `[agents.NAME]`; returns the failures
/// (name, why) so a front end can show them.
pub async fn register_agents(
    registry: &Arc<Registry>,
    config: &Config,
    workspace: &Path,
) -> Vec<(String, String)> {
    let shared = Arc::new(config.clone());
    let mut failed = Vec::new();
    for name in config.agents.keys() {
        let tool = AgentTool::new(name, Arc::clone(&shared), registry, workspace);
        if let Err(e) = registry.register(Arc::new(tool)).await {
            failed.push((name.clone(), e.to_string()));
        }
    }
    failed
}

/// One line about an agent for lists (the catalog's Agents tab, `agents` output).
pub fn describe(name: &str, def: &AgentDef) -> String {
    let detail = match def.kind {
        crate::config::AgentKind::Local => format!(
            "{} · {} · {} steps",
            def.provider.as_deref().unwrap_or("default provider"),
            match def.scope {
                crate::config::AgentScope::ReadOnly => "read-only",
                crate::config::AgentScope::Full => "full",
            },
            def.max_steps()
        ),
        crate::config::AgentKind::Chain => format!("chain: {}", def.agents.join(" → ")),
        crate::config::AgentKind::A2a => format!("a2a: {}", def.url.as_deref().unwrap_or("")),
    };
    let _ = name;
    format!("{} · {detail}", def.kind.as_str())
}
