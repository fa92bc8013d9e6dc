//! Messages into `update` and commands out of it.

use crate::keymap::Key;

use super::state::LogLine;

/// Everything that can change the UI state.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Key(Key),
    /// Bracketed paste.
    Paste(String),
    Mouse(Mouse),
    Resize(u16, u16),
    Log(LogLine),
    /// The runtime tried to switch the theme.
    ThemeApplied {
        name: String,
        error: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mouse {
    pub kind: MouseKind,
    pub column: u16,
    pub row: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseKind {
    Click,
    ScrollUp,
    ScrollDown,
}

/// Work for the runtime. `update` never does IO itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    Quit,
    /// Load a theme by name and use it; answers with `Msg::ThemeApplied`.
    LoadTheme(String),
    /// Turn mouse capture on or off.
    SetMouseCapture(bool),
    /// The user sent a message from the composer.
    Submit(String),
}
