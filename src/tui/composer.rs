//! The message composer: a multi-line textarea kept as part of the UI state, with
//! readline keys (Ctrl+U kills to the line start, Alt+B / Alt+F move by word) and the
//! messages sent before (↑ on an empty composer recalls them).

use crate::keymap::{Action, Key};

pub use super::state::Composer;

use super::msg::Handled;
use super::state::{Overlay, Pane, State};

/// Keys while typing a message: Enter sends (or runs a slash command), Esc
/// interrupts what runs or leaves; other keys edit the text.
pub fn key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    if super::completion::key(state, key) {
        return Handled::nothing();
    }
    match action {
        Some(Action::Send) => super::slash::submit(state).into(),
        Some(Action::Newline) => {
            state.composer.insert_newline();
            Handled::nothing()
        }
        Some(Action::Close)
            if state.turn.run.is_some() || !state.open_manual_calls().is_empty() =>
        {
            Handled::Unhandled(Action::CancelTurn)
        }
        Some(Action::Close) => {
            state.focus = Pane::Chat;
            Handled::nothing()
        }
        Some(other) => Handled::Unhandled(other),
        None => {
            if state.composer.input(key) {
                super::completion::typed(state);
            }
            Handled::nothing()
        }
    }
}

/// Pasted text goes where the keys go: the palette, the catalog filter, else the
/// composer.
pub fn paste(state: &mut State, text: &str) {
    match (state.overlays.top_mut(), state.focus) {
        (Some(Overlay::Palette(p)), _) => {
            p.query.push_str(&crate::sanitize::sanitize_line(text));
            p.selected = 0;
        }
        (Some(Overlay::Login(view)), _) => super::login::paste(view, text),
        (Some(_), _) => {}
        (None, Pane::Catalog) if state.catalog.filter.editing => {
            state
                .catalog
                .filter
                .query
                .push_str(&crate::sanitize::sanitize_line(text));
            state.catalog.sel = 0;
        }
        (None, _) => {
            state.focus = Pane::Composer;
            state.composer.paste(text);
        }
    }
}
