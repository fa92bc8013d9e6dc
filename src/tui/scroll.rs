//! Scrolling shared by the panes: list selection, tail-anchored scrolling (chat,
//! logs) and the text overlays.

use crate::keymap::Action;

use super::layout::Areas;
use super::state::{Pane, State, TailScroll};

/// Keep scroll offsets inside their content after a resize.
pub fn clamp_scrolls(state: &mut State) {
    state.chat.scroll.0 = state.chat.scroll.0.min(chat_max_scroll(state));
    state.logs.scroll.0 = state.logs.scroll.0.min(logs_max_scroll(state));
}

/// Rows of content a pane shows (inside its border).
pub fn page(state: &State, pane: Pane) -> usize {
    usize::from(Areas::of(state).rect(pane).height.saturating_sub(2)).max(1)
}

pub fn chat_max_scroll(state: &State) -> usize {
    let rect = Areas::of(state).chat;
    let lines = state.chat.layout.total(
        &state.chat.entries,
        rect.width.saturating_sub(2),
        state.chat.cards_expanded,
        state.clock_ms,
    );
    lines.saturating_sub(usize::from(rect.height.saturating_sub(2)))
}

pub fn logs_max_scroll(state: &State) -> usize {
    let height = Areas::of(state)
        .logs
        .map_or(0, |r| r.height.saturating_sub(2));
    state
        .logs
        .visible()
        .len()
        .saturating_sub(usize::from(height))
}

pub fn moved(sel: usize, len: usize, action: Action, page: usize) -> usize {
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
pub fn scrolled(scroll: TailScroll, max: usize, action: Action, page: usize) -> TailScroll {
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

/// Scroll keys shared by the text overlays; true when the action was one.
pub fn scroll_overlay(scroll: &mut u16, action: Option<Action>) -> bool {
    match action {
        Some(Action::Up) => *scroll = scroll.saturating_sub(1),
        Some(Action::Down) => *scroll = scroll.saturating_add(1),
        Some(Action::PageUp) => *scroll = scroll.saturating_sub(10),
        Some(Action::PageDown) => *scroll = scroll.saturating_add(10),
        _ => return false,
    }
    true
}

/// Scrolling the transcript.
pub fn chat_nav(state: &mut State, action: Action) {
    let max = chat_max_scroll(state);
    let page = page(state, Pane::Chat);
    state.chat.scroll = scrolled(state.chat.scroll, max, action, page);
}
