//! The library: the Skills and Memory panes, read-only lists with a text view, and
//! their keys.

pub use super::state::{BrowseKind, Library, SkillRow};
use crate::keymap::Action;

use super::msg::{Cmd, FileCmd, Handled};
use super::state::{Overlay, State};

pub fn open(state: &mut State, kind: BrowseKind) -> Vec<Cmd> {
    state.overlays.push(Overlay::Browse {
        kind,
        sel: 0,
        scroll: 0,
    });
    match kind {
        BrowseKind::Memory => vec![FileCmd::ListMemory.into()],
        BrowseKind::Skills => Vec::new(),
    }
}

fn len(state: &State, kind: BrowseKind) -> usize {
    match kind {
        BrowseKind::Skills => state.library.skills.len(),
        BrowseKind::Memory => state.library.memory_files.len(),
    }
}

pub fn key(state: &mut State, action: Option<Action>) -> Handled {
    let Some(&Overlay::Browse { kind, sel, scroll }) = state.overlays.top() else {
        return Handled::nothing();
    };
    let last = len(state, kind).saturating_sub(1);
    let (mut sel, mut scroll) = (sel, scroll);
    let mut cmds = Vec::new();
    match action {
        Some(Action::Close) => {
            state.overlays.pop();
            return Handled::nothing();
        }
        Some(Action::Up) => {
            sel = sel.saturating_sub(1);
            scroll = 0;
        }
        Some(Action::Down) => {
            sel = (sel + 1).min(last);
            scroll = 0;
        }
        Some(Action::PageUp) => scroll = scroll.saturating_sub(10),
        Some(Action::PageDown) => scroll = scroll.saturating_add(10),
        Some(Action::Activate) => {
            if kind == BrowseKind::Memory
                && let Some((path, _)) = state.library.memory_files.get(sel)
            {
                cmds.push(FileCmd::ReadMemory(path.clone()).into());
            }
        }
        Some(other) => return Handled::Unhandled(other),
        None => {}
    }
    if kind == BrowseKind::Memory && matches!(action, Some(Action::Up | Action::Down)) {
        state.library.memory_open = None;
    }
    state
        .overlays
        .replace_top(Overlay::Browse { kind, sel, scroll });
    cmds.into()
}
