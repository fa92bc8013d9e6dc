//! `agent__NAME`: one configured agent as a registry tool.

use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Instant;

use serde_json::{Map, Value, json};

use super::MAX_DEPTH;
use crate::config::{AgentDef, AgentKind, AgentScope, Config};
use crate::policy::ToolEffect;
use crate::tools::{Registry, Tool, ToolContext, ToolResult, ToolSpec};

/// The tool behind `agent__NAME`.
pub struct AgentTool {
    pub(super) name: String,
    pub(super) config: Arc<Config>,
    pub(super) registry: Weak<Registry>,
    pub(super) workspace: PathBuf,
    spec: ToolSpec,
}

impl AgentTool {
    pub fn new(
        name: &str,
        config: Arc<Config>,
        registry: &Arc<Registry>,
        workspace: &std::path::Path,
    ) -> Self {
        let def = config.agents.get(name).cloned().unwrap_or_default();
        let spec = spec_for(name, &def);
        Self {
            name: name.to_owned(),
            config,
            registry: Arc::downgrade(registry),
            workspace: workspace.to_owned(),
            spec,
        }
    }

    pub(super) fn def(&self) -> AgentDef {
        self.config
            .agents
            .get(&self.name)
            .cloned()
            .unwrap_or_default()
    }
}

/// Local and chain agents are `read`: handing over a task changes nothing, and every
/// call the agent makes passes the gate on its own. A remote agent acts beyond the
/// gate, so its calls are `compute` (asked for in the `ask` mode).
fn spec_for(name: &str, def: &AgentDef) -> ToolSpec {
    let kind = match def.kind {
        AgentKind::Local if def.scope == AgentScope::ReadOnly => "a read-only agent",
        AgentKind::Local => "an agent",
        AgentKind::Chain => "a chain of agents",
        AgentKind::A2a => "a remote agent (A2A)",
    };
    let about = def
        .description
        .clone()
        .unwrap_or_else(|| format!("Hands a task to {kind} named {name}."));
    ToolSpec::builder(AgentDef::tool_name(name))
        .title(format!("agent {name}"))
        .description(format!(
            "{about} Give it a self-contained task; it answers with its result."
        ))
        .input_schema(json!({
            "type": "object",
            "properties": {"task": {"type": "string", "description": "The task, in full: the agent sees nothing else."}},
            "required": ["task"],
        }))
        .default_effect(if def.kind == AgentKind::A2a {
            ToolEffect::Compute
        } else {
            ToolEffect::Read
        })
        .build()
}

/// What a finished agent run came to, for the result's metadata and the audit trace.
#[derive(Debug, Clone, Default)]
pub(super) struct RunFacts {
    /// `completed`, `max_steps`, `provider_error`, `interrupted`, `failed`, …
    pub outcome: &'static str,
    pub steps: u32,
    pub tool_calls: u32,
    pub denied: u32,
    /// Its calls that failed (other than refusals).
    pub failed: u32,
    pub retryable: bool,
}

impl RunFacts {
    pub fn failed(outcome: &'static str, retryable: bool) -> Self {
        Self {
            outcome,
            retryable,
            ..Self::default()
        }
    }
}

#[async_trait::async_trait]
impl Tool for AgentTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, args: Map<String, Value>, ctx: &ToolContext) -> ToolResult {
        let started = Instant::now();
        let Some(task) = args
            .get("task")
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
        else {
            return ToolResult::error("`task` must be a non-empty string.");
        };
        if ctx.depth >= MAX_DEPTH {
            return ToolResult::error(format!(
                "Agent {} was not run: agents may call agents at most {MAX_DEPTH} deep.",
                self.name
            ));
        }
        let Some(registry) = self.registry.upgrade() else {
            return ToolResult::error("The tool registry has shut down.");
        };
        let def = self.def();
        let (result, facts) = match def.kind {
            AgentKind::Local => super::local::run(self, &def, &registry, task, ctx).await,
            AgentKind::A2a => super::remote::run(self, &def, task, ctx).await,
            AgentKind::Chain => {
                super::coordinator::run_chain(self, &def, &registry, task, ctx).await
            }
        };
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        trace(&registry, &self.name, def.kind, &facts, ms, ctx);
        let metadata = json!({
            "agent": self.name, "kind": def.kind.as_str(), "outcome": facts.outcome,
            "steps": facts.steps, "tool_calls": facts.tool_calls, "denied": facts.denied,
            "retryable": facts.retryable, "duration_ms": ms,
        });
        result.with_metadata(metadata)
    }
}

/// The audit log's line about one agent run: names and counts, never the task or
/// the answer.
fn trace(
    registry: &Registry,
    name: &str,
    kind: AgentKind,
    facts: &RunFacts,
    ms: u64,
    ctx: &ToolContext,
) {
    let Value::Object(line) = json!({
        "event": "agent_run", "run_id": ctx.run_id, "agent": name, "kind": kind.as_str(),
        "caller": ctx.agent, "depth": ctx.depth + 1, "outcome": facts.outcome,
        "steps": facts.steps, "tool_calls": facts.tool_calls, "denied": facts.denied,
        "failed": facts.failed, "duration_ms": ms,
    }) else {
        return;
    };
    registry.audit().append_trace(line);
}
