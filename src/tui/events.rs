//! What session and gate events do to the UI state. Events can reach the UI twice
//! (from the session and from the gate's broadcast), so every handler is idempotent.

use serde_json::Value;

use crate::agent::{AgentEvent, CallOutcome, StepPause, TurnEnd};

use super::approvals;
use super::cards::{CardStatus, ToolCard};
use super::state::{ChatEntry, ChatKind, State, TailScroll};

pub fn on_agent_event(state: &mut State, event: AgentEvent) {
    match event {
        AgentEvent::ApprovalRequested(request) => {
            if let Some(card) = open_card(state, &request.run_id, &request.tool) {
                card.status = CardStatus::WaitingApproval;
                card.effect = Some(request.effect);
            }
            approvals::push(state, request);
        }
        AgentEvent::ApprovalResolved { id, .. } => approvals::remove(state, id),
        AgentEvent::SessionStarted {
            session_id,
            provider,
            model,
            step_mode,
        } => {
            state.session_id = Some(session_id);
            state.status.provider = provider;
            state.status.model = model;
            state.status.step_mode = step_mode;
        }
        AgentEvent::TurnStarted { run_id, .. } => state.turn = Some(run_id),
        AgentEvent::TextDelta { run_id, text } => match state.chat.last_mut() {
            Some(entry) if entry.streaming.as_deref() == Some(run_id.as_str()) => {
                entry.text.push_str(&text);
            }
            _ => {
                let mut entry = ChatEntry::new(ChatKind::Assistant, text);
                entry.streaming = Some(run_id);
                state.chat.push(entry);
            }
        },
        AgentEvent::ModelResponse { run_id, text, .. } => finish_text(state, &run_id, text),
        AgentEvent::ToolCallRequested {
            run_id,
            tool_call_id,
            tool,
            args,
        } => {
            if !state.chat.iter().any(|e| {
                e.card
                    .as_ref()
                    .is_some_and(|c| c.tool_call_id == tool_call_id && c.run_id == run_id)
            }) {
                let mut entry = ChatEntry::new(ChatKind::Tool, String::new());
                entry.card = Some(ToolCard {
                    run_id,
                    tool_call_id,
                    tool,
                    args: compact(&args),
                    effect: None,
                    status: CardStatus::Requested,
                    call_id: None,
                    result: None,
                    truncated: false,
                    duration_ms: None,
                });
                state.chat.push(entry);
            }
        }
        AgentEvent::ToolCallStarted {
            call_id,
            run_id,
            tool,
            effect,
            ..
        } => {
            let known = cards(state).any(|c| c.call_id == Some(call_id));
            if !known && let Some(card) = open_card(state, &run_id, &tool) {
                card.call_id = Some(call_id);
                card.effect = Some(effect);
                card.status = CardStatus::Running;
            }
        }
        AgentEvent::ToolCallFinished {
            call_id,
            outcome,
            duration_ms,
            ..
        } => {
            if let Some(card) = cards(state).find(|c| c.call_id == Some(call_id)) {
                card.duration_ms = Some(duration_ms);
                match outcome {
                    CallOutcome::Denied => card.status = CardStatus::Denied,
                    CallOutcome::Aborted => card.status = CardStatus::Aborted,
                    CallOutcome::Ran => {}
                }
            }
        }
        AgentEvent::ToolResult {
            run_id,
            tool_call_id,
            is_error,
            content,
            truncated,
            ..
        } => {
            if let Some(card) =
                cards(state).find(|c| c.tool_call_id == tool_call_id && c.run_id == run_id)
            {
                if card.status.is_open() || card.status == CardStatus::Ok {
                    card.status = if is_error {
                        CardStatus::Error
                    } else {
                        CardStatus::Ok
                    };
                }
                card.result = Some(content);
                card.truncated = truncated;
            }
        }
        AgentEvent::Usage { session, .. } => {
            state.status.tokens_in = session.input_tokens;
            state.status.tokens_out = session.output_tokens;
        }
        AgentEvent::StepPaused { pause, .. } => {
            state
                .chat
                .push(ChatEntry::new(ChatKind::Note, pause_text(&pause)));
            state.step_pause = Some(pause);
        }
        AgentEvent::StepModeChanged { on } => state.status.step_mode = on,
        AgentEvent::Notice { message, .. } => {
            state.chat.push(ChatEntry::new(ChatKind::Note, message));
        }
        AgentEvent::Error { message, .. } => {
            state.chat.push(ChatEntry::new(ChatKind::Error, message));
        }
        AgentEvent::TurnDone {
            run_id,
            reason,
            steps,
            ..
        } => turn_done(state, &run_id, reason, steps),
    }
}

fn cards(state: &mut State) -> impl Iterator<Item = &mut ToolCard> {
    state.chat.iter_mut().rev().filter_map(|e| e.card.as_mut())
}

/// The oldest card of this run and tool that has not entered the gate yet (calls
/// enter the gate in the order the model made them).
fn open_card<'s>(state: &'s mut State, run_id: &str, tool: &str) -> Option<&'s mut ToolCard> {
    state
        .chat
        .iter_mut()
        .filter_map(|e| e.card.as_mut())
        .find(|c| {
            c.run_id == run_id
                && c.tool == tool
                && matches!(
                    c.status,
                    CardStatus::Requested | CardStatus::WaitingApproval
                )
                && c.call_id.is_none()
        })
}

fn compact(args: &Value) -> String {
    serde_json::to_string(args).unwrap_or_default()
}

/// The full answer of one request replaces what streamed in (it is authoritative).
fn finish_text(state: &mut State, run_id: &str, text: String) {
    if let Some(entry) = state
        .chat
        .iter_mut()
        .rev()
        .find(|e| e.streaming.as_deref() == Some(run_id))
    {
        entry.streaming = None;
        if !text.is_empty() {
            entry.text = text;
        }
    } else if !text.trim().is_empty() {
        state.chat.push(ChatEntry::new(ChatKind::Assistant, text));
    }
}

fn turn_done(state: &mut State, run_id: &str, reason: TurnEnd, steps: u32) {
    for entry in &mut state.chat {
        if entry.streaming.as_deref() == Some(run_id) {
            entry.streaming = None;
        }
        if let Some(card) = entry
            .card
            .as_mut()
            .filter(|c| c.run_id == run_id && c.status.is_open())
        {
            card.status = CardStatus::Aborted;
        }
    }
    if state.turn.as_deref() == Some(run_id) {
        state.turn = None;
    }
    state.step_pause = None;
    let note = match reason {
        TurnEnd::Completed => None,
        TurnEnd::Interrupted => Some("Turn interrupted; nothing more runs.".to_string()),
        TurnEnd::MaxSteps => Some(format!(
            "Turn stopped after {steps} model requests ([agent] max_steps)."
        )),
        TurnEnd::ProviderError => Some("Turn ended by a provider error.".to_string()),
    };
    if let Some(note) = note {
        state.chat.push(ChatEntry::new(ChatKind::Note, note));
    }
}

fn pause_text(pause: &StepPause) -> String {
    match pause {
        StepPause::ModelRequest {
            step,
            messages,
            tools,
            last_message,
        } => format!(
            "⏸ before model request {step}: {messages} messages, {} tools offered\n  last: {last_message}\n  n next · c continue · Esc interrupt",
            tools.len()
        ),
        StepPause::ToolCall { tool, args, .. } => format!(
            "⏸ before tool call {tool} {}\n  n next · c continue · Esc interrupt",
            compact(args)
        ),
    }
}

/// A call, read or prompt the person started answered: its whole text goes into the
/// transcript.
pub fn on_call_done(state: &mut State, tool: &str, text: &str, is_error: bool) {
    let status = if is_error { "error" } else { "ok" };
    // The whole text is kept; the transcript folds long results until `e`.
    state.chat.push(ChatEntry::new(
        if is_error {
            ChatKind::Error
        } else {
            ChatKind::Tool
        },
        format!("{tool} → {status}\n{text}"),
    ));
    state.chat_scroll = TailScroll(0);
}

/// `weather ▕████░░░░░░▏ 40% fetching` — a progress bar for the status bar.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub fn progress_text(
    server: &str,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) -> String {
    let bar = match total.filter(|t| *t > 0.0) {
        Some(total) => {
            let ratio = (progress / total).clamp(0.0, 1.0);
            // ratio is within 0..=1, so this is 0..=10.
            let filled = usize::from((ratio * 10.0).round() as u8);
            format!(
                "▕{}{}▏ {:.0}%",
                "█".repeat(filled),
                "░".repeat(10 - filled.min(10)),
                ratio * 100.0
            )
        }
        None => format!("{progress}"),
    };
    let message = message.map(|m| format!(" {m}")).unwrap_or_default();
    format!("{server} {bar}{message}")
}
