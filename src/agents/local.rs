//! A local agent's run: its own session, one turn on the task, every tool call
//! through the gate as the sub-agent.

use std::sync::Arc;

use super::tool::{AgentTool, RunFacts};
use crate::agent::{AgentEvent, Delegation, Op, Session, SessionOptions, TurnEnd};
use crate::config::{AgentDef, AgentScope, SystemPromptError};
use crate::gate::CallEnd;
use crate::llm::{LlmError, ProviderChoice, RetryPolicy, provider_from_config};
use crate::policy::Scope;
use crate::tools::{AllowlistError, Registry, ToolAllowlist, ToolContext, ToolResult};

/// Why a local agent's session could not be set up.
#[derive(Debug, thiserror::Error)]
enum SetupError {
    #[error(transparent)]
    Provider(#[from] LlmError),
    #[error(transparent)]
    Allowlist(#[from] AllowlistError),
    #[error(transparent)]
    SystemPrompt(#[from] SystemPromptError),
}

/// Runs the agent on `task` until its turn ends; its answer is the result.
pub(super) async fn run(
    tool: &AgentTool,
    def: &AgentDef,
    registry: &Arc<Registry>,
    task: &str,
    ctx: &ToolContext,
) -> (ToolResult, RunFacts) {
    let options = match options(tool, def, registry, ctx) {
        Ok(o) => o,
        Err(message) => {
            let text = format!("Agent {} could not start: {message}", tool.name);
            return (ToolResult::error(text), RunFacts::failed("failed", false));
        }
    };
    let handle = Session::spawn(options);
    let mut ops = Some(handle.ops);
    let mut events = handle.events;
    if let Some(ops) = &ops {
        let _ = ops.send(Op::UserTurn {
            text: task.to_owned(),
        });
    }
    let mut run = Run::default();
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            // Dropping the ops interrupts the running turn; it still ends with TurnDone.
            () = ctx.cancel.cancelled(), if ops.is_some() => {
                ops = None;
                continue;
            }
        };
        let Some(event) = event else { break };
        if run.take(event) {
            break;
        }
    }
    run.finish(&tool.name)
}

fn options(
    tool: &AgentTool,
    def: &AgentDef,
    registry: &Arc<Registry>,
    ctx: &ToolContext,
) -> Result<SessionOptions, SetupError> {
    let env = |name: &str| std::env::var(name).ok();
    let choice = ProviderChoice {
        name: def.provider.clone(),
        model: def.model.clone(),
    };
    let (provider_name, provider) =
        provider_from_config(&tool.config, &choice, &env, RetryPolicy::default())?;
    let allowlist = match &def.tools {
        Some(patterns) => Some(Arc::new(ToolAllowlist::new(patterns)?)),
        None => None,
    };
    let mut options = SessionOptions::new(provider, Arc::clone(registry));
    options.provider_name = provider_name;
    options.system_prompt = def.custom_system_prompt(&tool.workspace)?;
    options.max_steps = def.max_steps();
    options.max_tool_result_chars = tool.config.agent.max_tool_result_chars;
    options.request_options.model.clone_from(&def.model);
    // A read-only caller cannot widen its sub-agent's access.
    options.scope = if def.scope == AgentScope::ReadOnly || ctx.scope == Scope::ReadOnly {
        Scope::ReadOnly
    } else {
        Scope::Full
    };
    let prefix = ctx
        .call_id
        .as_ref()
        .map_or_else(|| ctx.run_id.clone(), |id| id.0.clone());
    options.delegation = Some(Delegation {
        agent: tool.name.clone(),
        depth: ctx.depth + 1,
        allowlist,
        call_prefix: format!("{prefix}/{}", tool.name),
        forward: ctx.observer.clone(),
    });
    Ok(options)
}

/// What the sub-agent's session reported so far.
#[derive(Default)]
struct Run {
    answer: String,
    error: Option<String>,
    reason: Option<TurnEnd>,
    steps: u32,
    tool_calls: u32,
    denied: u32,
    failed: u32,
}

impl Run {
    /// Takes one event; true when the turn is over. (The gate's events about the
    /// agent's calls reach the caller's observer directly: `Delegation::forward`.)
    fn take(&mut self, event: AgentEvent) -> bool {
        match event {
            // Its own calls only: nested agents' gate events pass through its sink.
            AgentEvent::ToolResult {
                outcome, is_error, ..
            } => {
                self.tool_calls += 1;
                if outcome == Some(CallEnd::Denied) {
                    self.denied += 1;
                } else if is_error {
                    self.failed += 1;
                }
            }
            AgentEvent::ModelResponse { text, .. } if !text.trim().is_empty() => {
                self.answer = text;
            }
            AgentEvent::Error { message, .. } => self.error = Some(message),
            AgentEvent::TurnDone { reason, steps, .. } => {
                self.reason = Some(reason);
                self.steps = steps;
                return true;
            }
            _ => {}
        }
        false
    }

    fn finish(self, name: &str) -> (ToolResult, RunFacts) {
        let mut facts = RunFacts {
            outcome: "completed",
            steps: self.steps,
            tool_calls: self.tool_calls,
            denied: self.denied,
            failed: self.failed,
            retryable: false,
        };
        let result = match self.reason {
            Some(TurnEnd::Completed) => ToolResult::text(self.answer),
            Some(TurnEnd::MaxSteps) => {
                facts.outcome = "max_steps";
                ToolResult::text(format!(
                    "{}\n\n[agent {name} stopped after {} model requests (max_steps) before finishing]",
                    self.answer, self.steps
                ))
            }
            Some(TurnEnd::ProviderError) => {
                facts.outcome = "provider_error";
                facts.retryable = true;
                let why = self.error.unwrap_or_else(|| "the provider failed".into());
                ToolResult::error(format!("Agent {name} failed: {why}"))
            }
            // Sub-agents run no session hooks, so nothing blocks their task.
            Some(TurnEnd::Interrupted | TurnEnd::Blocked) | None => {
                facts.outcome = "interrupted";
                ToolResult::error(format!("Agent {name} was interrupted."))
            }
        };
        (result, facts)
    }
}
