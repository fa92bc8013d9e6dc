//! The session's hooks (`[[hooks.session_start]]`, `[[hooks.user_prompt_submit]]`,
//! `[[hooks.stop]]`), run by the turn loop as Claude Code and Gemini CLI run theirs:
//! `session_start` context goes into the system prompt; `user_prompt_submit` may block
//! the message (exit 2 or `{"decision": "deny"}`, the reason shown, the message never
//! reaches the model) or add context to it; `stop` may keep the turn going with its
//! reason as the next instruction (`stop_hook_active` is true on the hooks' next run
//! in the same turn; `max_steps` still bounds it). Sub-agents' sessions run none of
//! them. Each run is one `hook` line in the audit log.

use serde_json::{Value, json};

use super::event::AgentEvent;
use super::turn::TurnEnv;
use crate::hooks::{HookEvent, HookInput, HookVerdict};

/// Runs the hooks of `input.event`, reporting failed hooks and auditing the run;
/// `None` when none are configured (or the session is a sub-agent's).
async fn run(env: &TurnEnv, input: HookInput, run_id: Option<&str>) -> Option<HookVerdict> {
    let hooks = env.options.registry.hooks();
    if env.options.delegation.is_some() || hooks.count(input.event, None) == 0 {
        return None;
    }
    let verdict = hooks.run(&input).await;
    for warning in &verdict.warnings {
        env.sink.emit(AgentEvent::Notice {
            run_id: run_id.map(str::to_owned),
            message: warning.clone(),
        });
    }
    let records: Vec<Value> = (verdict.records.iter())
        .filter_map(|r| serde_json::to_value(r).ok())
        .collect();
    if let Value::Object(line) = json!({"event": "hook", "hook_event": input.event.key(),
        "session_id": input.session_id, "run_id": run_id, "hooks": records})
    {
        env.options.registry.audit().append_trace(line);
    }
    Some(verdict)
}

fn input(env: &TurnEnv, event: HookEvent, session_id: &str) -> HookInput {
    HookInput::new(event, session_id, env.options.registry.hooks().cwd())
}

/// `session_start`: what the hooks want the model to know, for the system prompt.
pub(super) async fn session_start(env: &TurnEnv, session_id: &str) -> Vec<String> {
    let input = input(env, HookEvent::SessionStart, session_id);
    run(env, input, None)
        .await
        .map(|v| v.context)
        .unwrap_or_default()
}

/// `user_prompt_submit`: the message the model gets (with the hooks' context), or
/// why it was blocked.
pub(super) async fn prompt_submit(
    env: &TurnEnv,
    session_id: &str,
    run_id: &str,
    text: String,
) -> Result<String, String> {
    let mut input = input(env, HookEvent::UserPromptSubmit, session_id);
    input.prompt = Some(text.clone());
    let Some(verdict) = run(env, input, Some(run_id)).await else {
        return Ok(text);
    };
    if verdict.is_deny() {
        let by = deciding_command(&verdict);
        let reason = verdict.reason.unwrap_or_else(|| "no reason given".into());
        return Err(format!("Message blocked by hook `{by}`: {reason}"));
    }
    if verdict.context.is_empty() {
        return Ok(text);
    }
    Ok(format!("{text}\n\n[hook context]\n{}", verdict.context.join("\n")))
}

/// `stop`, when a turn completed: the reason to keep going, if a hook blocks the stop.
pub(super) async fn stop(
    env: &TurnEnv,
    session_id: &str,
    run_id: &str,
    active: bool,
) -> Option<String> {
    let mut input = input(env, HookEvent::Stop, session_id);
    input.stop_hook_active = Some(active);
    let verdict = run(env, input, Some(run_id)).await?;
    if !verdict.is_deny() {
        return None;
    }
    let by = deciding_command(&verdict);
    let reason = verdict.reason.unwrap_or_else(|| "go on".into());
    Some(format!("[hook `{by}`] {reason}"))
}

fn deciding_command(verdict: &HookVerdict) -> String {
    (verdict.records.iter())
        .find(|r| r.outcome == "deny")
        .map_or_else(|| "?".into(), |r| r.command.clone())
}
