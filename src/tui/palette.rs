//! The command palette: a filtered list of commands run with Enter.

use super::state::{State, is_subsequence};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaletteState {
    pub query: String,
    pub selected: usize,
}

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
    RevokeGrant(crate::policy::GrantId),
    SwitchProvider(String),
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
        ("Clear chat transcript", PaletteCommand::ClearChat),
        ("Quit", PaletteCommand::Quit),
    ] {
        items.push(PaletteItem {
            label: label.to_string(),
            command,
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
