//! What session events (the gate's included) do to the UI state, and the commands
//! they call for. Each event arrives once, on one route (the session's sink), and
//! names its call by `CallId`: a card is found by id, never guessed.

use serde_json::Value;

use crate::agent::{AgentEvent, StepPause, TurnEnd};
use crate::gate::{CallId, GateEvent};
use crate::policy::Origin;

use super::approval;
use super::cards::{CardKind, CardStatus, ToolCard};
use super::msg::{Cmd, FileCmd, GateCmd};
use super::state::{ChatEntry, ChatKind, State};

pub fn on_agent_event(state: &mut State, event: AgentEvent) -> Vec<Cmd> {
    // Anything after the wait means the turn went on.
    state.turn.waiting_for_servers = false;
    match event {
        AgentEvent::WaitingForServers { servers, .. } => {
            state.turn.waiting_for_servers = true;
            state.chat.push(ChatEntry::new(
                ChatKind::Note,
                format!(
                    "Waiting for {} to connect… (Esc goes on without them)",
                    servers.join(", ")
                ),
            ));
        }
        AgentEvent::Gate(event) => return on_gate_event(state, event),
        AgentEvent::SessionStarted {
            session_id,
            provider,
            model,
            step_mode,
            tools,
            ..
        } => {
            state.status.budget = tools;
            state.session_id = Some(session_id);
            state.status.provider = provider;
            state.status.model = model;
            state.status.step_mode = step_mode;
        }
        AgentEvent::TurnStarted { run_id, .. } => state.turn.run = Some(run_id),
        AgentEvent::TextDelta { run_id, text } => {
            let entries = &mut state.chat.entries;
            match entries.last() {
                Some(entry) if entry.streaming.as_deref() == Some(run_id.as_str()) => {
                    entries.append_text(entries.len() - 1, &text);
                }
                _ => {
                    let mut entry = ChatEntry::new(ChatKind::Assistant, text);
                    entry.streaming = Some(run_id);
                    state.chat.push(entry);
                }
            }
        }
        AgentEvent::ModelResponse { run_id, text, .. } => finish_text(state, &run_id, text),
        event @ (AgentEvent::ToolCallRequested { .. }
        | AgentEvent::RequestStarted { .. }
        | AgentEvent::RequestFinished { .. }
        | AgentEvent::ToolResult { .. }) => on_card_event(state, event),
        AgentEvent::Usage { session, .. } => {
            state.status.tokens_in = session.input_tokens;
            state.status.tokens_out = session.output_tokens;
        }
        AgentEvent::StepPaused { pause, .. } => {
            state
                .chat
                .push(ChatEntry::new(ChatKind::Note, pause_text(&pause)));
            state.turn.step_pause = Some(pause);
        }
        AgentEvent::StepModeChanged { on } => state.status.step_mode = on,
        AgentEvent::ToolsOffered { report, .. } => tools_offered(state, report),
        AgentEvent::ToolsLoaded { tools, .. } => {
            let text = format!(
                "tool_search found {}: {}; declared from the next request on",
                super::words::count(tools.len(), "tool", "tools"),
                tools.join(", ")
            );
            state.chat.push(ChatEntry::new(ChatKind::Note, text));
        }
        AgentEvent::Notice { message, .. } => {
            state.chat.push(ChatEntry::new(ChatKind::Note, message));
        }
        AgentEvent::HookNote { hook, text, .. } => {
            let note = format!("{hook} hook: {text}");
            state.chat.push(ChatEntry::new(ChatKind::Note, note));
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
    Vec::new()
}

/// A request declares other tools than the last: the status bar follows, and the
/// transcript says when tool search turns on or off.
fn tools_offered(state: &mut State, report: crate::agent::exposure::OfferReport) {
    let was = state.status.offered.as_ref().is_some_and(|r| r.search);
    if report.search && !was {
        let text = format!(
            "Tool search on: {} ({} tok, {} of the {} tok window) are found through \
             tool_search; this request declares {} ({} tok)",
            super::words::count(report.total, "tool", "tools"),
            crate::llm::token_estimate::short(report.total_tokens as u64),
            crate::llm::token_estimate::percent(report.total_tokens, report.window),
            crate::llm::token_estimate::short(report.window),
            super::words::count(report.offered, "tool", "tools"),
            crate::llm::token_estimate::short(report.offered_tokens as u64),
        );
        state.chat.push(ChatEntry::new(ChatKind::Note, text));
    } else if was && !report.search {
        let text = format!(
            "Tool search off: every tool is declared ({} tok)",
            crate::llm::token_estimate::short(report.total_tokens as u64)
        );
        state.chat.push(ChatEntry::new(ChatKind::Note, text));
    }
    state.status.offered = Some(report);
}

/// The events that open a card or fill one in: a tool call asked for, a request
/// started or finished, a tool's result.
fn on_card_event(state: &mut State, event: AgentEvent) {
    match event {
        AgentEvent::ToolCallRequested {
            run_id,
            call_id,
            tool,
            args,
            origin,
        } => {
            let mut card = ToolCard::new(call_id, run_id, CardKind::Tool, origin);
            card.tool = tool;
            card.args = compact(&args);
            open_card(state, card);
        }
        AgentEvent::RequestStarted {
            run_id,
            call_id,
            label,
            ..
        } => {
            let mut card = ToolCard::new(call_id, run_id, CardKind::Request, Origin::Manual);
            card.tool = label;
            card.status = CardStatus::Running;
            open_card(state, card);
        }
        AgentEvent::RequestFinished {
            call_id,
            outcome,
            text,
            duration_ms,
            ..
        } => {
            if let Some(card) = card(state, &call_id) {
                card.status = CardStatus::of(outcome);
                card.result = Some(text);
                card.duration_ms = Some(duration_ms);
            }
        }
        AgentEvent::ToolResult {
            call_id,
            is_error,
            content,
            truncated,
            outcome,
            structured,
            ..
        } => {
            if let Some(card) = card(state, &call_id) {
                if card.status.is_open() {
                    card.status = match outcome {
                        Some(end) => CardStatus::of(end),
                        None if is_error => CardStatus::Error,
                        None => CardStatus::Ok,
                    };
                }
                card.result = Some(content);
                card.structured = structured;
                card.truncated = truncated;
            }
        }
        // The rest are `on_agent_event`'s; listed so a new event is never dropped
        // unseen.
        AgentEvent::WaitingForServers { .. }
        | AgentEvent::Gate(_)
        | AgentEvent::SessionStarted { .. }
        | AgentEvent::TurnStarted { .. }
        | AgentEvent::TextDelta { .. }
        | AgentEvent::ModelResponse { .. }
        | AgentEvent::Usage { .. }
        | AgentEvent::StepPaused { .. }
        | AgentEvent::StepModeChanged { .. }
        | AgentEvent::ToolsOffered { .. }
        | AgentEvent::ToolsLoaded { .. }
        | AgentEvent::Notice { .. }
        | AgentEvent::HookNote { .. }
        | AgentEvent::Error { .. }
        | AgentEvent::TurnDone { .. } => {}
    }
}

/// The gate's events about one call: its card follows them; approvals queue.
fn on_gate_event(state: &mut State, event: GateEvent) -> Vec<Cmd> {
    match event {
        GateEvent::ToolCallStarted {
            call_id,
            run_id,
            tool,
            effect,
            origin,
        } => {
            // A sub-agent's call (or a coordinator's step): its card opens under its
            // parent's. An MCP App's call has no request before it: its card opens here.
            if card(state, &call_id).is_none()
                && !attach_nested(state, &call_id, &run_id, &tool, origin)
                && origin == Origin::App
            {
                let mut card = ToolCard::new(call_id.clone(), run_id, CardKind::Tool, origin);
                card.tool = tool;
                open_app_card(state, card);
            }
            let now = state.clock_ms;
            if let Some(card) = card(state, &call_id) {
                card.effect = Some(effect);
                card.status = CardStatus::Running;
                // The running timer counts from here, not from the request.
                card.opened_ms = now;
            }
        }
        GateEvent::ApprovalRequested(request) => {
            if let Some(card) = card(state, &request.call_id) {
                card.status = CardStatus::WaitingApproval;
            }
            approval::push(state, request);
        }
        GateEvent::ApprovalResolved { call_id, id, .. } => {
            approval::remove(state, id);
            let now = state.clock_ms;
            if let Some(card) = card(state, &call_id)
                && card.status == CardStatus::WaitingApproval
            {
                card.status = CardStatus::Running;
                // Time spent waiting for the person is not the call's.
                card.opened_ms = now;
            }
        }
        GateEvent::ToolCallFinished {
            call_id,
            run_id,
            tool,
            outcome,
            ruling,
            summary,
            duration_ms,
        } => {
            // A sub-agent's call that never started (an unknown tool).
            if card(state, &call_id).is_none() {
                attach_nested(state, &call_id, &run_id, &tool, Origin::Agent);
            }
            if let Some(card) = card(state, &call_id) {
                card.status = CardStatus::of(outcome);
                card.duration_ms = Some(duration_ms);
                card.decided = ruling.map(|r| r.describe());
                card.progress = None;
                // Nested cards and an app's get no ToolResult of their own: the gate's
                // summary is it.
                if (card.origin == Origin::App
                    || super::state::nested::parent_of(&card.call_id).is_some())
                    && card.result.is_none()
                {
                    card.result = Some(summary);
                }
            }
            // A call may have added a session grant or changed memory files.
            let mut cmds = vec![GateCmd::RefreshGrants.into()];
            if tool == "memory" {
                cmds.push(FileCmd::ListMemory.into());
            }
            return cmds;
        }
    }
    Vec::new()
}

/// Opens a card for a nested call under its parent card; false when the id is not
/// nested or its parent has no card. A sub-agent's call (origin `agent`) is labelled
/// with the agent; a coordinator's step (`CALL/run/step-N`) is the agent call itself.
fn attach_nested(
    state: &mut State,
    call_id: &CallId,
    run_id: &str,
    tool: &str,
    origin: Origin,
) -> bool {
    let Some((parent_id, agent)) = super::state::nested::parent_of(call_id) else {
        return false;
    };
    let agent = agent.to_owned();
    let opened = state.clock_ms;
    let Some(parent) = card(state, &parent_id) else {
        return false;
    };
    let mut card = ToolCard::new(call_id.clone(), run_id.to_owned(), CardKind::Tool, origin);
    tool.clone_into(&mut card.tool);
    card.agent = (origin == Origin::Agent).then_some(agent);
    card.opened_ms = opened;
    parent.children.push(card);
    true
}

/// The card of a call (the newest, should a provider reuse an id).
pub fn card<'s>(state: &'s mut State, call_id: &CallId) -> Option<&'s mut ToolCard> {
    let entries = &mut state.chat.entries;
    // Found first, so only its entry counts as changed.
    let index = entries
        .iter()
        .rposition(|e| e.card.as_ref().is_some_and(|c| c.find(call_id).is_some()))?;
    entries.get_mut(index)?.card.as_mut()?.find_mut(call_id)
}

/// An app's call: a page that polls calls one tool again and again, so a call of
/// the same tool right after the last one's card ended takes that card over.
fn open_app_card(state: &mut State, mut card: ToolCard) {
    let last = state.chat.entries.last_mut().and_then(|e| e.card.as_mut());
    match last {
        Some(last)
            if last.origin == Origin::App && last.tool == card.tool && !last.status.is_open() =>
        {
            card.repeats = last.repeats + 1;
            card.opened_ms = state.clock_ms;
            *last = card;
        }
        _ => open_card(state, card),
    }
}

fn open_card(state: &mut State, mut card: ToolCard) {
    card.opened_ms = state.clock_ms;
    let mut entry = ChatEntry::new(ChatKind::Tool, String::new());
    entry.card = Some(card);
    state.chat.show(entry);
}

fn compact(args: &Value) -> String {
    serde_json::to_string(args).unwrap_or_default()
}

/// The full answer of one request replaces what streamed in (it is authoritative).
fn finish_text(state: &mut State, run_id: &str, text: String) {
    let entries = &mut state.chat.entries;
    if let Some(entry) = entries
        .iter()
        .rposition(|e| e.streaming.as_deref() == Some(run_id))
        .and_then(|i| entries.get_mut(i))
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
    // Calls the model asked for that never reached the gate.
    let requested = |e: &ChatEntry| {
        e.card
            .as_ref()
            .is_some_and(|c| c.run_id == run_id && c.status == CardStatus::Requested)
    };
    let entries = &mut state.chat.entries;
    for i in 0..entries.len() {
        let streamed = entries[i].streaming.as_deref() == Some(run_id);
        let abort = requested(&entries[i]);
        if !streamed && !abort {
            continue;
        }
        let Some(entry) = entries.get_mut(i) else {
            continue;
        };
        if streamed {
            entry.streaming = None;
        }
        if let Some(card) = entry.card.as_mut().filter(|_| abort) {
            card.status = CardStatus::Aborted;
        }
    }
    if state.turn.run.as_deref() == Some(run_id) {
        state.turn.run = None;
    }
    state.turn.step_pause = None;
    let note = match reason {
        // A blocked message: the error before it says which hook and why.
        TurnEnd::Completed | TurnEnd::Blocked => None,
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
