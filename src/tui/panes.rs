//! Navigation inside the panes: list selection and tail-anchored scrolling.

use crate::keymap::Action;

use super::layout::Areas;
use super::state::{Pane, State, TailScroll};
use super::transcript::layout_transcript;

/// Apply a navigation action to one pane.
pub fn pane_action(state: &mut State, pane: Pane, action: Action) {
    match pane {
        Pane::Servers => {
            if action == Action::Activate {
                if !state.servers.is_empty() {
                    state.overlay = Some(super::state::Overlay::Server { scroll: 0 });
                }
                return;
            }
            let len = state.servers.len();
            state.server_sel = moved(state.server_sel, len, action, page(state, pane));
        }
        Pane::Catalog => match action {
            Action::NextTab | Action::PrevTab => {
                let delta = if action == Action::NextTab { 1 } else { -1 };
                state.tab = state.tab.shifted(delta);
                state.catalog_sel = 0;
            }
            Action::Filter => state.filter.editing = true,
            Action::Activate => {
                if state.selected_entry().is_some() {
                    state.overlay = Some(super::state::Overlay::Detail {
                        scroll: 0,
                        raw: false,
                    });
                }
            }
            _ => {
                let len = state.visible_catalog().len();
                state.catalog_sel = moved(state.catalog_sel, len, action, page(state, pane));
            }
        },
        Pane::Chat => {
            let max = chat_max_scroll(state);
            let page = page(state, pane);
            state.chat_scroll = scrolled(state.chat_scroll, max, action, page);
        }
        Pane::Logs => {
            let max = logs_max_scroll(state);
            let page = page(state, pane);
            state.logs_scroll = scrolled(state.logs_scroll, max, action, page);
        }
        Pane::Composer => {}
    }
}

/// Keep scroll offsets inside their content after a resize.
pub fn clamp_scrolls(state: &mut State) {
    state.chat_scroll.0 = state.chat_scroll.0.min(chat_max_scroll(state));
    state.logs_scroll.0 = state.logs_scroll.0.min(logs_max_scroll(state));
}

/// Rows of content a pane shows (inside its border).
fn page(state: &State, pane: Pane) -> usize {
    usize::from(Areas::of(state).rect(pane).height.saturating_sub(2)).max(1)
}

pub fn chat_max_scroll(state: &State) -> usize {
    let rect = Areas::of(state).chat;
    let lines = layout_transcript(
        &state.chat,
        rect.width.saturating_sub(2),
        state.cards_expanded,
    )
    .len();
    lines.saturating_sub(usize::from(rect.height.saturating_sub(2)))
}

pub fn logs_max_scroll(state: &State) -> usize {
    let height = Areas::of(state)
        .logs
        .map_or(0, |r| r.height.saturating_sub(2));
    state
        .visible_logs()
        .len()
        .saturating_sub(usize::from(height))
}

fn moved(sel: usize, len: usize, action: Action, page: usize) -> usize {
    let last = len.saturating_sub(1);
    match action {
        Action::Up => sel.saturating_sub(1),
        Action::Down => (sel + 1).min(last),
        Action::PageUp => sel.saturating_sub(page),
        Action::PageDown => (sel + page).min(last),
        Action::Top => 0,
        Action::Bottom => last,
        _ => sel.min(last),
    }
}

/// Up goes back in time (away from the tail); Down comes back.
fn scrolled(scroll: TailScroll, max: usize, action: Action, page: usize) -> TailScroll {
    let value = match action {
        Action::Up => scroll.0 + 1,
        Action::Down => scroll.0.saturating_sub(1),
        Action::PageUp => scroll.0 + page,
        Action::PageDown => scroll.0.saturating_sub(page),
        Action::Top => max,
        Action::Bottom => 0,
        _ => scroll.0,
    };
    TailScroll(value.min(max))
}
