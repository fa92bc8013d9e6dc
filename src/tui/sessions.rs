//! The resume picker: this workspace's saved sessions, newest first, with their first
//! message; Enter reopens one (`--resume` without an id, the palette's "Resume
//! session…").

pub use super::state::{SessionPicker, SessionRow};
use crate::keymap::Action;

use super::msg::{Cmd, Handled, SessionCmd};
use super::state::{Overlay, State};

/// Opens the picker and asks for the list.
pub fn open(state: &mut State) -> Vec<Cmd> {
    state
        .overlays
        .push(Overlay::Sessions(SessionPicker::default()));
    vec![SessionCmd::ListSessions.into()]
}

/// The list arrived (ignored if the picker was closed meanwhile).
pub fn listed(state: &mut State, rows: Vec<SessionRow>) {
    if let Some(Overlay::Sessions(picker)) = state.overlays.top_mut() {
        picker.rows = Some(rows);
        picker.sel = 0;
    }
}

/// Keys in the picker: move, Enter resumes, Esc closes.
pub fn key(state: &mut State, action: Option<Action>) -> Handled {
    let Some(Overlay::Sessions(picker)) = state.overlays.top_mut() else {
        return Handled::nothing();
    };
    let len = picker.rows.as_ref().map_or(0, Vec::len);
    match action {
        Some(Action::Close) => {
            state.overlays.pop();
        }
        Some(Action::Up) => picker.sel = picker.sel.saturating_sub(1),
        Some(Action::Down) => picker.sel = (picker.sel + 1).min(len.saturating_sub(1)),
        Some(Action::Activate) => {
            let chosen = picker
                .rows
                .as_ref()
                .and_then(|rows| rows.get(picker.sel))
                .map(|row| row.id.clone());
            if let Some(id) = chosen {
                if state.turn.run.is_some() {
                    state.notice(
                        super::state::NoticeLevel::Warn,
                        "a turn is running; resume when it has ended (Esc interrupts it)",
                    );
                    return Handled::nothing();
                }
                state.overlays.pop();
                return vec![SessionCmd::Resume(id).into()].into();
            }
        }
        Some(other) => return Handled::Unhandled(other),
        None => {}
    }
    Handled::nothing()
}
