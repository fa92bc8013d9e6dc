//! `/` in the Chat pane: a search of the transcript. Typing edits the query; Enter
//! keeps it and shows the newest entry that matches; `n` goes to the next older match,
//! `N` to the next newer one; Esc (while typing) clears it. A match is an entry whose
//! text — a message, or a tool card's name, arguments and result — holds the query,
//! case-insensitively. The view scrolls so the match's first line is at its top, and
//! the pane's title says which match of how many it is.

use crate::keymap::{Action, Key, KeyCode};

use super::layout::Areas;
use super::msg::{Cmd, Handled};
use super::state::frame_cache;
use super::state::{ChatEntry, NoticeLevel, State, TailScroll};

/// Keys while the query is typed.
pub fn key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    let search = &mut state.chat.search;
    match action {
        Some(Action::Close) => *search = super::state::ChatSearch::default(),
        Some(Action::Activate) => {
            search.editing = false;
            search.at = None;
            return step(state, true).into();
        }
        Some(other) => return Handled::Unhandled(other),
        None => {
            if let Some(c) = key.typed_char() {
                search.query.push(c);
            } else if key.code == KeyCode::Backspace {
                search.query.pop();
            } else if key.clears_line() {
                search.query.clear();
            }
        }
    }
    Handled::nothing()
}

/// The entries that match `query`, oldest first.
pub fn matches(entries: &[ChatEntry], query: &str) -> Vec<usize> {
    let query = query.to_lowercase();
    if query.is_empty() {
        return Vec::new();
    }
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| holds(e, &query))
        .map(|(i, _)| i)
        .collect()
}

fn holds(entry: &ChatEntry, query: &str) -> bool {
    let has = |text: &str| text.to_lowercase().contains(query);
    has(&entry.text)
        || entry
            .card
            .as_ref()
            .is_some_and(|c| has(&c.tool) || has(&c.args) || c.result.as_deref().is_some_and(has))
}

/// `older`: the next match above the current one (the newest first, when none is
/// current); else the next below. Scrolls it into view.
pub fn step(state: &mut State, older: bool) -> Vec<Cmd> {
    let found = matches(&state.chat.entries, &state.chat.search.query);
    if found.is_empty() {
        if !state.chat.search.query.is_empty() {
            state.notice(
                NoticeLevel::Warn,
                format!(
                    "no match for {}",
                    crate::sanitize::sanitize_line(&state.chat.search.query)
                ),
            );
        }
        return Vec::new();
    }
    let next = match (state.chat.search.at, older) {
        (None, _) => found.last().copied(),
        (Some(at), true) => found.iter().rev().find(|&&i| i < at).copied(),
        (Some(at), false) => found.iter().find(|&&i| i > at).copied(),
    };
    let Some(next) = next else {
        let end = if older { "oldest" } else { "newest" };
        state.notice(NoticeLevel::Info, format!("that was the {end} match"));
        return Vec::new();
    };
    state.chat.search.at = Some(next);
    scroll_to(state, next);
    Vec::new()
}

/// Scrolls so that entry `index` starts at the top of the pane (or as near as the
/// tail allows).
fn scroll_to(state: &mut State, index: usize) {
    let rect = Areas::of(state).chat;
    let (width, height) = (
        rect.width.saturating_sub(2),
        usize::from(rect.height.saturating_sub(2)),
    );
    let chat = &state.chat;
    let counts = chat
        .layout
        .line_counts(&chat.entries, width, chat.cards_expanded, state.clock_ms);
    let (total, start) = (
        frame_cache::total(&counts),
        frame_cache::entry_start(&counts, index),
    );
    let from_tail = total.saturating_sub(start + height);
    state.chat.scroll = TailScroll(from_tail.min(super::scroll::chat_max_scroll(state)));
}

/// The pane title's part for the search: `/query 2/5` (which match, counted from
/// the oldest), `/query▏` while typing.
pub fn title(state: &State) -> Option<String> {
    let search = &state.chat.search;
    if !search.editing && search.query.is_empty() {
        return None;
    }
    let query = crate::sanitize::sanitize_line(&search.query);
    if search.editing {
        return Some(format!("/{query}▏"));
    }
    let found = matches(&state.chat.entries, &search.query);
    let at = search
        .at
        .and_then(|at| found.iter().position(|&i| i == at))
        .map_or_else(|| "-".to_owned(), |p| (p + 1).to_string());
    Some(format!("/{query} {at}/{}", found.len()))
}
