//! Shared helpers for the TUI tests.
#![allow(dead_code, clippy::unwrap_used)]

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::theme::ThemeSet;
use switchboard::tui::state::State;
use switchboard::tui::ui::render;

/// The whole screen at `w`×`h` with the default theme, as text (for snapshots).
pub fn shot(state: &State, w: u16, h: u16) -> String {
    let theme = ThemeSet::new(None).load("default").unwrap();
    let mut state = state.clone();
    state.size = (w, h);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| render(&state, &theme, f)).unwrap();
    format!("{}", terminal.backend())
}
