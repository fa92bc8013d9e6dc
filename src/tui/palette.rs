//! The command palette: a filtered list of commands run with Enter.

pub use super::state::PaletteState;
use crate::keymap::{Action, Key, KeyCode};

use super::msg::{GateCmd, Handled, UiCmd};
use super::state::{Overlay, State, is_subsequence};

/// What a palette entry does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaletteCommand {
    SwitchTheme(String),
    ToggleLogs,
    ToggleMouse,
    Help,
    Skills,
    Memory,
    ClearChat,
    ResumeSession,
    RevokeGrant(crate::policy::GrantId),
    SwitchProvider(String),
    /// Log in to a server that asks for OAuth.
    Login(String),
    /// Start `/agents …` in the composer.
    RunAgents,
    /// Switch the permission mode.
    SetMode(crate::policy::Mode),
    /// Open the Wire view.
    Wire,
    /// Search the MCP Registry and add a server to the person's config.
    AddServer,
    /// Open the MCP App of a tool result in the browser.
    OpenApp,
    Quit,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaletteItem {
    pub label: String,
    pub command: PaletteCommand,
}

/// Every command, in display order.
pub fn all_items(state: &State) -> Vec<PaletteItem> {
    let mut items: Vec<PaletteItem> = state
        .theme_names
        .iter()
        .map(|name| PaletteItem {
            label: if *name == state.theme_name {
                format!("Theme: {name} (current)")
            } else {
                format!("Theme: {name}")
            },
            command: PaletteCommand::SwitchTheme(name.clone()),
        })
        .collect();
    let logs = if state.show_logs {
        "Hide logs"
    } else {
        "Show logs"
    };
    let mouse = if state.mouse {
        "Mouse: off (lets the terminal select text)"
    } else {
        "Mouse: on"
    };
    for name in &state.providers {
        items.push(PaletteItem {
            label: format!("Provider: {name}"),
            command: PaletteCommand::SwitchProvider(name.clone()),
        });
    }
    for name in super::login::loginable(state) {
        items.push(PaletteItem {
            label: format!("Log in to {name}"),
            command: PaletteCommand::Login(name),
        });
    }
    if state.registry_place.is_some() {
        items.push(PaletteItem {
            label: "Add server… (MCP Registry)".into(),
            command: PaletteCommand::AddServer,
        });
    }
    if super::apps::available(state) {
        items.push(PaletteItem {
            label: "Open app… (MCP App of a tool result, in the browser)".into(),
            command: PaletteCommand::OpenApp,
        });
    }
    if !state.catalog.items.agents.is_empty() {
        items.push(PaletteItem {
            label: "Run agents…".into(),
            command: PaletteCommand::RunAgents,
        });
    }
    for grant in &state.grants {
        items.push(PaletteItem {
            label: format!("Revoke session grant: {}", grant.text),
            command: PaletteCommand::RevokeGrant(grant.id),
        });
    }
    for (label, command) in [
        (logs, PaletteCommand::ToggleLogs),
        (mouse, PaletteCommand::ToggleMouse),
        ("Help: keys", PaletteCommand::Help),
        ("Skills", PaletteCommand::Skills),
        ("Memory files", PaletteCommand::Memory),
        ("Wire view", PaletteCommand::Wire),
        ("Resume session…", PaletteCommand::ResumeSession),
        ("Clear chat transcript", PaletteCommand::ClearChat),
        ("Quit", PaletteCommand::Quit),
    ] {
        items.push(PaletteItem {
            label: label.to_string(),
            command,
        });
    }
    // Last: typing `mode` finds them.
    let current = super::modes::current(state);
    for mode in crate::policy::Mode::ALL {
        let mark = if mode == current { " (current)" } else { "" };
        items.push(PaletteItem {
            label: format!("Mode: {mode}{mark}"),
            command: PaletteCommand::SetMode(mode),
        });
    }
    items
}

/// The commands matching the query (case-insensitive subsequence).
pub fn matching_items(state: &State, palette: &PaletteState) -> Vec<PaletteItem> {
    let query = palette.query.to_lowercase();
    all_items(state)
        .into_iter()
        .filter(|item| is_subsequence(&query, &item.label.to_lowercase()))
        .collect()
}

/// Keys in the palette: type to filter, arrows choose, Enter runs.
pub fn key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    let Some(Overlay::Palette(palette)) = state.overlays.top() else {
        return Handled::nothing();
    };
    let mut palette = palette.clone();
    let count = matching_items(state, &palette).len();
    match action {
        Some(Action::Close) => {
            state.overlays.pop();
            return Handled::nothing();
        }
        Some(Action::Activate) => {
            let chosen = matching_items(state, &palette)
                .into_iter()
                .nth(palette.selected);
            state.overlays.pop();
            return chosen.map_or_else(Handled::nothing, |item| run_command(state, item.command));
        }
        Some(Action::Up) => palette.selected = palette.selected.saturating_sub(1),
        Some(Action::Down) => {
            palette.selected = (palette.selected + 1).min(count.saturating_sub(1));
        }
        Some(other) => return Handled::Unhandled(other),
        None => {
            if let Some(c) = key.typed_char() {
                palette.query.push(c);
                palette.selected = 0;
            } else if key.code == KeyCode::Backspace {
                palette.query.pop();
                palette.selected = 0;
            } else if key.clears_line() {
                palette.query.clear();
                palette.selected = 0;
            }
        }
    }
    state.overlays.replace_top(Overlay::Palette(palette));
    Handled::nothing()
}

/// What a chosen entry does; entries that are global actions are left to them.
fn run_command(state: &mut State, command: PaletteCommand) -> Handled {
    let cmds = match command {
        PaletteCommand::SwitchTheme(name) => vec![UiCmd::LoadTheme(name).into()],
        PaletteCommand::ToggleLogs => return Handled::Unhandled(Action::ToggleLogs),
        PaletteCommand::ToggleMouse => {
            state.mouse = !state.mouse;
            vec![
                UiCmd::SetMouseCapture(state.mouse).into(),
                UiCmd::RememberUi.into(),
            ]
        }
        PaletteCommand::Help => return Handled::Unhandled(Action::Help),
        PaletteCommand::Skills => return Handled::Unhandled(Action::ShowSkills),
        PaletteCommand::Memory => return Handled::Unhandled(Action::ShowMemory),
        PaletteCommand::Wire => return Handled::Unhandled(Action::ShowWire),
        PaletteCommand::ResumeSession => super::sessions::open(state),
        PaletteCommand::AddServer => super::registry::open(state),
        PaletteCommand::OpenApp => super::apps::open(state),
        PaletteCommand::ClearChat => {
            state.chat.entries.clear();
            state.chat.follow();
            Vec::new()
        }
        PaletteCommand::RevokeGrant(id) => vec![GateCmd::RevokeGrant(id).into()],
        PaletteCommand::SwitchProvider(name) => {
            super::slash::switch_provider(state, Some(name), None)
        }
        PaletteCommand::Login(name) => super::login::start(state, &name),
        PaletteCommand::RunAgents => {
            super::slash_agents::start(state);
            Vec::new()
        }
        PaletteCommand::SetMode(mode) => super::modes::set(state, mode),
        PaletteCommand::Quit => return Handled::Unhandled(Action::Quit),
    };
    cmds.into()
}
