//! The default key table: (layer, key) → action, with the help text.

use super::action::{Action, Layer};
use super::key::{Key, KeyCode, Mods};

/// One row of the key table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub layer: Layer,
    pub key: Key,
    pub action: Action,
    pub help: &'static str,
}

fn k(code: KeyCode) -> Key {
    Key::plain(code)
}

/// The built-in bindings. The help overlay and status hints are generated from this.
pub fn default_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as C;
    use Layer as L;
    let rows: Vec<(Layer, Key, Action, &'static str)> = vec![
        (
            L::Global,
            Key::ctrl('c'),
            A::Interrupt,
            "quit (twice while typing)",
        ),
        (L::Global, k(C::Tab), A::FocusNext, "next pane"),
        (L::Global, k(C::BackTab), A::FocusPrev, "previous pane"),
        (L::Global, Key::ctrl('p'), A::Palette, "command palette"),
        (L::Global, k(C::F(1)), A::Help, "help"),
        (L::Global, Key::ctrl('l'), A::ToggleLogs, "show/hide logs"),
        (L::Global, k(C::F(3)), A::ShowSkills, "skills"),
        (
            L::Global,
            Key::ctrl('t'),
            A::ToggleStepMode,
            "step mode on/off",
        ),
        (L::Global, k(C::F(4)), A::ShowMemory, "memory"),
        (L::Normal, Key::char('q'), A::Quit, "quit"),
        (L::Normal, Key::char('?'), A::Help, "help"),
        (L::Normal, Key::char(':'), A::Palette, "command palette"),
        (L::Normal, k(C::Up), A::Up, "move up"),
        (L::Normal, Key::char('k'), A::Up, "move up"),
        (L::Normal, k(C::Down), A::Down, "move down"),
        (L::Normal, Key::char('j'), A::Down, "move down"),
        (L::Normal, k(C::PageUp), A::PageUp, "page up"),
        (L::Normal, k(C::PageDown), A::PageDown, "page down"),
        (L::Normal, k(C::Home), A::Top, "first"),
        (L::Normal, Key::char('g'), A::Top, "first"),
        (L::Normal, k(C::End), A::Bottom, "last"),
        (L::Normal, Key::char('G'), A::Bottom, "last"),
        (L::Normal, k(C::Right), A::NextTab, "next catalog tab"),
        (L::Normal, Key::char(']'), A::NextTab, "next catalog tab"),
        (L::Normal, k(C::Left), A::PrevTab, "previous catalog tab"),
        (
            L::Normal,
            Key::char('['),
            A::PrevTab,
            "previous catalog tab",
        ),
        (L::Normal, Key::char('/'), A::Filter, "filter the catalog"),
        (L::Normal, k(C::Enter), A::Activate, "open / select"),
        (
            L::Normal,
            Key::char('i'),
            A::FocusComposer,
            "write a message",
        ),
        (L::Composer, k(C::Enter), A::Send, "send"),
        (
            L::Composer,
            Key::new(C::Enter, Mods::ALT),
            A::Newline,
            "new line",
        ),
        (
            L::Composer,
            Key::new(C::Enter, Mods::SHIFT),
            A::Newline,
            "new line",
        ),
        (L::Composer, Key::ctrl('j'), A::Newline, "new line"),
        (
            L::Composer,
            k(C::Esc),
            A::Close,
            "interrupt the turn, else leave",
        ),
        (
            L::Normal,
            k(C::Esc),
            A::CancelTurn,
            "interrupt the running turn",
        ),
        (
            L::Normal,
            Key::char('r'),
            A::Reconnect,
            "reconnect the selected server",
        ),
        (
            L::Normal,
            Key::char('e'),
            A::ExpandCards,
            "tool cards: show all / first lines",
        ),
        (
            L::Normal,
            Key::char('v'),
            A::LogLevel,
            "logs: lowest level shown",
        ),
        (
            L::Normal,
            Key::char('d'),
            A::ToggleServer,
            "disable / enable the selected server",
        ),
        (L::Step, Key::char('n'), A::StepNext, "next step"),
        (
            L::Step,
            Key::char('c'),
            A::StepContinue,
            "continue without pausing",
        ),
        (L::Step, k(C::Esc), A::CancelTurn, "interrupt the turn"),
        (L::Filter, k(C::Enter), A::Activate, "keep filter"),
        (L::Filter, k(C::Esc), A::Close, "clear filter"),
        (L::Filter, k(C::Up), A::Up, "move up"),
        (L::Filter, k(C::Down), A::Down, "move down"),
        (L::Palette, k(C::Enter), A::Activate, "run command"),
        (L::Palette, k(C::Esc), A::Close, "close"),
        (L::Palette, k(C::Up), A::Up, "move up"),
        (L::Palette, k(C::Down), A::Down, "move down"),
        (L::Help, k(C::Esc), A::Close, "close"),
        (L::Help, Key::char('q'), A::Close, "close"),
        (L::Help, Key::char('?'), A::Close, "close"),
        (L::Help, k(C::Up), A::Up, "scroll up"),
        (L::Help, Key::char('k'), A::Up, "scroll up"),
        (L::Help, k(C::Down), A::Down, "scroll down"),
        (L::Help, Key::char('j'), A::Down, "scroll down"),
        (L::Help, k(C::PageUp), A::PageUp, "page up"),
        (L::Help, k(C::PageDown), A::PageDown, "page down"),
        (L::Detail, k(C::Esc), A::Close, "close"),
        (L::Detail, Key::char('q'), A::Close, "close"),
        (L::Detail, k(C::Up), A::Up, "scroll up"),
        (L::Detail, Key::char('k'), A::Up, "scroll up"),
        (L::Detail, k(C::Down), A::Down, "scroll down"),
        (L::Detail, Key::char('j'), A::Down, "scroll down"),
        (L::Detail, k(C::PageUp), A::PageUp, "page up"),
        (L::Detail, k(C::PageDown), A::PageDown, "page down"),
        (
            L::Detail,
            Key::char('r'),
            A::ToggleRaw,
            "raw JSON schema on/off",
        ),
        (
            L::Detail,
            Key::char('c'),
            A::CallTool,
            "call this tool (fills the composer)",
        ),
        (L::Browse, k(C::Esc), A::Close, "close"),
        (L::Browse, Key::char('q'), A::Close, "close"),
        (L::Browse, k(C::Up), A::Up, "previous"),
        (L::Browse, Key::char('k'), A::Up, "previous"),
        (L::Browse, k(C::Down), A::Down, "next"),
        (L::Browse, Key::char('j'), A::Down, "next"),
        (L::Browse, k(C::PageUp), A::PageUp, "scroll the text up"),
        (
            L::Browse,
            k(C::PageDown),
            A::PageDown,
            "scroll the text down",
        ),
        (L::Browse, k(C::Enter), A::Activate, "open"),
        (L::Form, k(C::Enter), A::Activate, "validate and send"),
        (L::Form, k(C::Esc), A::Close, "cancel"),
        (L::Form, k(C::Up), A::Up, "previous field"),
        (L::Form, k(C::Down), A::Down, "next field"),
        (
            L::Form,
            k(C::Left),
            A::PrevTab,
            "previous choice (enum, boolean)",
        ),
        (
            L::Form,
            k(C::Right),
            A::NextTab,
            "next choice (enum, boolean)",
        ),
        (L::Form, Key::ctrl('r'), A::ToggleRaw, "raw JSON on/off"),
        (
            L::Form,
            Key::ctrl('e'),
            A::ExternalEditor,
            "edit the value in $VISUAL / $EDITOR",
        ),
        (L::Approval, Key::char('y'), A::ApproveOnce, "approve once"),
        (
            L::Approval,
            Key::char('s'),
            A::ApproveSession,
            "approve for this session",
        ),
        (
            L::Approval,
            Key::char('a'),
            A::ApproveAlways,
            "always allow (shows the rule)",
        ),
        (L::Approval, Key::char('n'), A::Deny, "deny"),
        (
            L::Approval,
            Key::char('N'),
            A::DenyWithReason,
            "deny with a reason",
        ),
        (L::Approval, k(C::Esc), A::AbortTurn, "abort the turn"),
        (L::Approval, k(C::Up), A::Up, "scroll arguments"),
        (L::Approval, k(C::Down), A::Down, "scroll arguments"),
        (L::Approval, k(C::PageUp), A::PageUp, "page up"),
        (L::Approval, k(C::PageDown), A::PageDown, "page down"),
    ];
    rows.into_iter()
        .map(|(layer, key, action, help)| Binding {
            layer,
            key,
            action,
            help,
        })
        .collect()
}
