//! The help overlay: every key of the key table, by layer, then the composer's slash
//! commands; scrolls by lines and by pages, and closes.

use std::collections::BTreeMap;

use crate::keymap::{Action, Keymap, Layer};

use super::msg::Handled;
use super::slash::{COMMANDS, SlashCommand};
use super::state::{Overlay, State};

/// One row of the help, before styling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpRow {
    Blank,
    Heading(&'static str),
    /// Every key of one action, and what it does.
    Keys {
        keys: String,
        help: String,
    },
    Command(SlashCommand),
    Note(&'static str),
}

/// The help's rows: one heading per layer, one row per action with all its keys (in
/// `Action` order, the keys in table order), then the slash commands.
pub fn rows(keymap: &Keymap) -> Vec<HelpRow> {
    let mut out = Vec::new();
    for layer in Layer::ALL {
        let mut actions: BTreeMap<Action, (Vec<String>, String)> = BTreeMap::new();
        for b in keymap.bindings().iter().filter(|b| b.layer == layer) {
            let row = actions
                .entry(b.action)
                .or_insert_with(|| (Vec::new(), b.help.clone()));
            row.0.push(b.key.to_string());
        }
        if actions.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(HelpRow::Blank);
        }
        out.push(HelpRow::Heading(layer.title()));
        out.extend(actions.into_values().map(|(keys, help)| HelpRow::Keys {
            keys: keys.join(" "),
            help,
        }));
    }
    out.push(HelpRow::Blank);
    out.push(HelpRow::Heading("Composer commands"));
    out.extend(COMMANDS.into_iter().map(HelpRow::Command));
    out.push(HelpRow::Note("//text sends a message that begins with /"));
    out
}

/// Rows the overlay shows at once: its popup is the screen less 4 rows, less its
/// border.
pub fn page(state: &State) -> usize {
    usize::from(state.size.1.saturating_sub(6)).max(1)
}

pub fn key(state: &mut State, action: Option<Action>) -> Handled {
    let page = page(state);
    let max = rows(&state.keymap).len().saturating_sub(page);
    let Some(Overlay::Help { scroll }) = state.overlays.top_mut() else {
        return Handled::nothing();
    };
    match action {
        Some(
            a @ (Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom),
        ) => {
            let at = super::scroll::moved(usize::from(*scroll), max + 1, a, page);
            *scroll = u16::try_from(at).unwrap_or(u16::MAX);
        }
        Some(Action::Close | Action::Help) => {
            state.overlays.pop();
        }
        Some(other) => return Handled::Unhandled(other),
        None => {}
    }
    Handled::nothing()
}
