//! The Tasks view (F5, `/tasks`): every task a call of this session became (the MCP
//! tasks extension), with its status, server, tool, age and poll interval, as the hub
//! last saw it. Enter asks the server again (`tasks/get`, the result once done), `x`
//! cancels (`tasks/cancel`). The list is the UI's: it stays across reconnects, and
//! get/cancel go over whatever connection the server has then.

pub use super::state::TaskRow;
use serde_json::Value;

use crate::keymap::Action;
use crate::mcp::TaskView;
use crate::sanitize::sanitize_line;

use super::msg::{Handled, ServerCmd};
use super::state::{ChatEntry, ChatKind, Overlay, State};

/// The hub saw a task (new, or polled again).
pub fn seen(state: &mut State, tool: Option<&str>, view: &TaskView) {
    let server = sanitize_line(&view.server);
    let task_id = sanitize_line(&view.task_id);
    let at = state
        .tasks
        .iter()
        .position(|t| t.server == server && t.task_id == task_id);
    let i = at.unwrap_or_else(|| {
        state.tasks.push(TaskRow {
            server,
            task_id,
            tool: tool.map(sanitize_line).unwrap_or_default(),
            status: String::new(),
            message: None,
            ttl_ms: None,
            poll_ms: None,
            since_ms: state.clock_ms,
        });
        state.tasks.len() - 1
    });
    let row = &mut state.tasks[i];
    row.status = sanitize_line(&view.status);
    row.message = view.status_message.as_deref().map(sanitize_line);
    row.ttl_ms = view.ttl_ms.or(row.ttl_ms);
    row.poll_ms = view.poll_interval_ms.or(row.poll_ms);
}

/// What `tasks/get` (Enter) or `tasks/cancel` (`x`) answered, as a transcript line.
pub fn answered(state: &mut State, view: Option<&TaskView>, text: Result<String, String>) {
    if let Some(view) = view {
        seen(state, None, view);
    }
    let (kind, text) = match text {
        Ok(t) => (ChatKind::Note, t),
        Err(e) => (ChatKind::Error, e),
    };
    state.chat.show(ChatEntry::new(kind, text));
}

/// The text of a completed task's result (its text blocks), else its status line.
pub fn describe(view: &TaskView) -> String {
    let mut out = format!(
        "task {} on {}: {}",
        sanitize_line(&view.task_id),
        sanitize_line(&view.server),
        sanitize_line(&view.status)
    );
    if let Some(m) = &view.status_message {
        out.push_str(" — ");
        out.push_str(&sanitize_line(m));
    }
    let texts = texts(&view.wire);
    if !texts.is_empty() {
        out.push('\n');
        out.push_str(&crate::sanitize::sanitize(&texts.join("\n")));
    }
    out
}

/// Text blocks of a result's `content`, wherever the answer nests it.
fn texts(wire: &Value) -> Vec<String> {
    match wire {
        Value::Object(map) => {
            if let Some(Value::Array(blocks)) = map.get("content") {
                return blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
                    .collect();
            }
            map.values().flat_map(texts).collect()
        }
        _ => Vec::new(),
    }
}

pub fn open(state: &mut State) {
    state.overlays.push(Overlay::Tasks { sel: 0 });
}

pub fn key(state: &mut State, action: Option<Action>) -> Handled {
    let Some(Overlay::Tasks { sel }) = state.overlays.top_mut() else {
        return Handled::nothing();
    };
    let n = state.tasks.len();
    let chosen = state
        .tasks
        .get(*sel)
        .map(|t| (t.server.clone(), t.task_id.clone()));
    match action {
        Some(Action::Up) => *sel = sel.saturating_sub(1),
        Some(Action::Down) => *sel = (*sel + 1).min(n.saturating_sub(1)),
        Some(Action::Close | Action::ShowTasks) => {
            state.overlays.pop();
        }
        Some(Action::Activate) => {
            if let Some((server, task_id)) = chosen {
                return vec![ServerCmd::GetTask { server, task_id }.into()].into();
            }
        }
        Some(Action::CancelTask) => {
            if let Some((server, task_id)) = chosen {
                return vec![ServerCmd::CancelTask { server, task_id }.into()].into();
            }
        }
        Some(other) => return Handled::Unhandled(other),
        None => {}
    }
    Handled::nothing()
}

/// `12s`, `3m 04s`, `2h 05m`.
pub fn age(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s / 60 % 60),
    }
}
