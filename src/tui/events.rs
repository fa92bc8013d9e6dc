//! What session and gate events do to the UI state.

use crate::agent::AgentEvent;

use super::approvals;
use super::state::{ChatEntry, ChatKind, State, TailScroll};

pub fn on_agent_event(state: &mut State, event: AgentEvent) {
    match event {
        AgentEvent::ApprovalRequested(request) => approvals::push(state, request),
        AgentEvent::ApprovalResolved { id, .. } => approvals::remove(state, id),
        // Calls are reported in the transcript when their result arrives.
        AgentEvent::ToolCallStarted { .. } | AgentEvent::ToolCallFinished { .. } => {}
    }
}

/// Lines of a tool result shown in the transcript before it is folded.
pub const RESULT_PREVIEW_LINES: usize = 40;

pub fn on_call_done(state: &mut State, tool: &str, text: &str, is_error: bool) {
    let total = text.lines().count();
    let mut shown: Vec<&str> = text.lines().take(RESULT_PREVIEW_LINES).collect();
    let more = total.saturating_sub(RESULT_PREVIEW_LINES);
    let fold = format!("… {more} more lines");
    if more > 0 {
        shown.push(&fold);
    }
    let status = if is_error { "error" } else { "ok" };
    state.chat.push(ChatEntry {
        kind: if is_error {
            ChatKind::Error
        } else {
            ChatKind::Tool
        },
        text: format!("{tool} → {status}\n{}", shown.join("\n")),
    });
    state.chat_scroll = TailScroll(0);
}
