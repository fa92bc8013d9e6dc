//! `y` in the Chat pane: the newest entry in view (the one at the bottom of the pane)
//! goes to the terminal's clipboard with OSC 52, as the login URL does — a tool
//! card's result (its arguments while it has none), a message's text. The whole text
//! is copied, not the folded lines, up to [`MAX_COPY`] characters.

use super::layout::Areas;
use super::msg::{Cmd, UiCmd};
use super::state::frame_cache;
use super::state::{ChatEntry, NoticeLevel, State};

/// The most characters one copy sends: OSC 52 payloads are base64, and terminals cap
/// them (xterm at 100,000 bytes by default), so more would be dropped whole.
pub const MAX_COPY: usize = 70_000;

/// The index of the entry at the bottom of the Chat pane (the newest in view).
pub fn entry_in_view(state: &State) -> Option<usize> {
    let width = Areas::of(state).chat.width.saturating_sub(2);
    let chat = &state.chat;
    let counts = chat
        .layout
        .line_counts(&chat.entries, width, chat.cards_expanded, state.clock_ms);
    let bottom = frame_cache::total(&counts).saturating_sub(chat.scroll.0 + 1);
    frame_cache::entry_at(&counts, bottom)
}

pub fn copy(state: &mut State) -> Vec<Cmd> {
    let at = entry_in_view(state);
    let Some((what, text)) = at.and_then(|i| state.chat.entries.get(i)).map(text_of) else {
        state.notice(NoticeLevel::Warn, "nothing to copy");
        return Vec::new();
    };
    let chars = text.chars().count();
    let (text, said) = if chars > MAX_COPY {
        let cut: String = text.chars().take(MAX_COPY).collect();
        (
            cut,
            format!("copied the first {MAX_COPY} of {chars} chars of {what}"),
        )
    } else {
        (text, format!("copied {what}: {chars} chars"))
    };
    state.notice(NoticeLevel::Info, format!("{said} (OSC 52)"));
    vec![UiCmd::CopyText(text).into()]
}

/// What an entry gives to copy, and how the notice names it.
fn text_of(entry: &ChatEntry) -> (&'static str, String) {
    match &entry.card {
        Some(card) => match &card.result {
            Some(result) => ("the result", result.clone()),
            None => ("the arguments", card.args.clone()),
        },
        None => ("the message", entry.text.clone()),
    }
}
