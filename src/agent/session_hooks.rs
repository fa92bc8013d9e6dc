//! The session's hooks (`[[hooks.session_start]]`, `[[hooks.user_prompt_submit]]`,
//! `[[hooks.stop]]`), run by the turn loop as Claude Code and Gemini CLI run theirs:
//! `session_start` context goes into the system prompt; `user_prompt_submit` may block
//! the message (exit 2 or `{"decision": "deny"}`, the reason shown, the message never
//! reaches the model) or add context to it; `stop` may keep the turn going with its
//! reason as the next instruction (`stop_hook_active` is true on the hooks' next run
//! in the same turn; at most [`MAX_STOP_CONTINUATIONS`] a turn, and `max_steps` still
//! bounds it). Sub-agents' sessions run none of them. Each run is one `hook` line in
//! the audit log.

use serde_json::{Value, json};

use super::cancel::Cancel;
use super::event::AgentEvent;
use super::event::TurnEnd;
use super::turn::{Conversation, Tally, TurnEnv};
use crate::hooks::{HookEvent, HookInput, HookVerdict};
use crate::llm::Message;

/// How many times `stop` hooks may keep one turn going (Claude Code leaves loops to
/// the hook's `stop_hook_active` check; a bound keeps a careless hook from looping).
pub const MAX_STOP_CONTINUATIONS: u32 = 3;

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
/// `resumed`: the session continues a saved conversation.
pub(super) async fn session_start(env: &TurnEnv, session_id: &str, resumed: bool) -> Vec<String> {
    let mut input = input(env, HookEvent::SessionStart, session_id);
    input.source = Some(if resumed { "resume" } else { "startup" }.into());
    run(env, input, None)
        .await
        .map(|v| v.context)
        .unwrap_or_default()
}

/// The system prompt's section for `session_start` context (empty without any).
pub(super) fn session_section(context: &[String]) -> String {
    if context.is_empty() {
        return String::new();
    }
    format!(
        "\n\n## Session context (from session_start hooks)\n\n{}",
        context.join("\n")
    )
}

/// A `user_prompt_submit` hook blocked the user's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Message blocked by hook `{command}`: {reason}")]
pub struct PromptBlocked {
    /// The hook command that denied it.
    pub command: String,
    pub reason: String,
}

/// `user_prompt_submit`: the hooks' context for the model (`None`: nothing to add),
/// or why the message was blocked.
pub(super) async fn prompt_submit(
    env: &TurnEnv,
    session_id: &str,
    run_id: &str,
    text: &str,
) -> Result<Option<String>, PromptBlocked> {
    let mut input = input(env, HookEvent::UserPromptSubmit, session_id);
    input.prompt = Some(text.to_owned());
    let Some(verdict) = run(env, input, Some(run_id)).await else {
        return Ok(None);
    };
    if verdict.is_deny() {
        return Err(PromptBlocked {
            command: deciding_command(&verdict),
            reason: verdict.reason.unwrap_or_else(|| "no reason given".into()),
        });
    }
    Ok(Some(verdict.context.join("\n")).filter(|c| !c.is_empty()))
}

/// The user's message as the model reads it, with a `user_prompt_submit` hook's
/// context (the same text a resumed session rebuilds from its `HookNote`).
pub fn prompt_with_context(message: &mut String, context: &str) {
    message.push_str("\n\n[hook context]\n");
    message.push_str(context);
}

/// `stop`, when a turn completed: the reason to keep going, if a hook blocks the stop.
/// `active`: a stop hook already kept this turn going.
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
    Some(format!("[stop hook `{by}`] {reason}"))
}

fn deciding_command(verdict: &HookVerdict) -> String {
    (verdict.records.iter())
        .find(|r| r.outcome == "deny")
        .map_or_else(|| "?".into(), |r| r.command.clone())
}

/// The user's message after the `user_prompt_submit` hooks: with their context, or
/// `Err` saying which hook blocked it.
pub(super) async fn user_message(
    env: &TurnEnv,
    session_id: &str,
    run_id: &str,
    mut text: String,
) -> Result<Message, PromptBlocked> {
    if let Some(context) = prompt_submit(env, session_id, run_id, &text).await? {
        prompt_with_context(&mut text, &context);
        env.sink.emit(AgentEvent::HookNote {
            run_id: run_id.to_owned(),
            hook: HookEvent::UserPromptSubmit.key().to_owned(),
            text: context,
        });
    }
    Ok(Message::user(text))
}

/// The turn's steps; when they complete, `stop` hooks may keep the turn going with
/// their reason as a new user message, at most `MAX_STOP_CONTINUATIONS` times.
pub(super) async fn steps_and_stop_hooks(
    env: &mut TurnEnv,
    convo: &mut Conversation,
    run_id: &str,
    cancel: &Cancel,
    tally: &mut Tally,
) -> TurnEnd {
    let mut continued = 0;
    loop {
        let reason = super::turn::steps(env, convo, run_id, cancel, tally).await;
        if reason != TurnEnd::Completed {
            return reason;
        }
        let session_id = convo.session_id.clone();
        let Some(note) = stop(env, &session_id, run_id, continued > 0).await else {
            return reason;
        };
        if continued >= MAX_STOP_CONTINUATIONS {
            env.sink.emit(AgentEvent::Notice {
                run_id: Some(run_id.to_owned()),
                message: format!(
                    "A stop hook asked to go on again; stopped after {continued} continuations."
                ),
            });
            return reason;
        }
        continued += 1;
        env.sink.emit(AgentEvent::HookNote {
            run_id: run_id.to_owned(),
            hook: HookEvent::Stop.key().to_owned(),
            text: note.clone(),
        });
        convo.messages.push(Message::user(note));
    }
}
