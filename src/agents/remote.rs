//! An `a2a` agent's run: the task sent over A2A and followed to its end. A FAILED or
//! REJECTED task is an error result for the model, not a transport failure; a
//! cancelled call cancels the task on the server. [`read_card`] reads an agent's card
//! on its own, for front ends that show it.

use std::time::Duration;

use super::tool::{AgentTool, RunFacts};
use crate::a2a::{A2aAuth, A2aClient, A2aError, AgentCard, TaskState};
use crate::config::AgentDef;
use crate::tools::{ToolContext, ToolResult};

/// The credentials `[agents.NAME]` names for its requests.
fn auth(def: &AgentDef) -> A2aAuth {
    A2aAuth {
        headers: def.headers.clone(),
        bearer_token_env_var: def.bearer_token_env_var.clone(),
        api_key_env_var: def.api_key_env_var.clone(),
        api_key_header: def.api_key_header.clone(),
    }
}

/// Why an agent's card could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CardError {
    #[error(transparent)]
    A2a(#[from] A2aError),
    #[error("no answer from {url} within {} s", .timeout.as_secs_f64())]
    Timeout { url: String, timeout: Duration },
}

/// Reads an `a2a` agent's card (with its configured credentials), giving up after
/// `timeout`; the error says why it could not be read.
pub async fn read_card(def: &AgentDef, timeout: Duration) -> Result<AgentCard, CardError> {
    let headers = auth(def).header_map(&|k| std::env::var(k).ok())?;
    let url = def.url.as_deref().unwrap_or_default();
    match tokio::time::timeout(timeout, A2aClient::connect(url, headers)).await {
        Ok(Ok(client)) => Ok(client.card().clone()),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(CardError::Timeout {
            url: url.to_owned(),
            timeout,
        }),
    }
}

pub(super) async fn run(
    tool: &AgentTool,
    def: &AgentDef,
    task: &str,
    ctx: &ToolContext,
) -> (ToolResult, RunFacts) {
    let name = &tool.name;
    let auth = auth(def);
    let fail = |e: &A2aError| {
        let retryable = matches!(e, A2aError::Transport { .. } | A2aError::Status { .. });
        (
            ToolResult::error(format!("Remote agent {name}: {e}")),
            RunFacts::failed("failed", retryable),
        )
    };
    let headers = match auth.header_map(&|k| std::env::var(k).ok()) {
        Ok(h) => h,
        Err(e) => return fail(&e),
    };
    let url = def.url.as_deref().unwrap_or_default();
    let client = match A2aClient::connect(url, headers).await {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let outcome = match client.run(task, None, &ctx.cancel).await {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    let mut facts = RunFacts {
        outcome: "completed",
        steps: 1,
        ..RunFacts::default()
    };
    let result = match outcome.state {
        TaskState::Completed => ToolResult::text(outcome.text),
        TaskState::InputRequired | TaskState::AuthRequired => {
            facts.outcome = "input_required";
            ToolResult::text(format!(
                "{}\n\n[remote agent {name} stopped to ask for more input]",
                outcome.text
            ))
        }
        TaskState::Canceled => {
            facts.outcome = "interrupted";
            ToolResult::error(format!("Remote agent {name}: the task was cancelled."))
        }
        state => {
            facts.outcome = "failed";
            let why = if outcome.status_text.is_empty() {
                format!("{state:?}")
            } else {
                outcome.status_text
            };
            ToolResult::error(format!("Remote agent {name} failed its task: {why}"))
        }
    };
    (result, facts)
}
