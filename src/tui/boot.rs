//! The state the TUI starts with, built from the configuration.

use crate::config::{Config, ServerConfig};
use crate::keymap::Keymap;

use super::state::{ChatEntry, ChatKind, Pane, ServerRow, ServerStatus, State};

/// The note shown in an empty transcript.
pub const OFFLINE_NOTE: &str = "No model provider is connected in this build yet, so messages \
you send stay in this transcript. Browse servers and the catalog on the left; press ? for keys \
and Ctrl+P for commands.";

fn transport(server: &ServerConfig) -> String {
    if let Some(t) = &server.transport {
        return t.clone();
    }
    match &server.url {
        Some(url) if url.trim_end_matches('/').ends_with("/sse") => "sse".into(),
        Some(_) => "http".into(),
        None => "stdio".into(),
    }
}

pub fn initial_state(
    config: &Config,
    keymap: Keymap,
    theme_name: String,
    theme_names: Vec<String>,
) -> State {
    let mut state = State::new(keymap, theme_name, theme_names);
    state.show_logs = config.ui.show_logs;
    state.mouse = config.ui.mouse;
    state.focus = Pane::Composer;
    state.servers.push(ServerRow {
        name: "builtin".into(),
        transport: "built-in".into(),
        status: ServerStatus::Builtin,
        tools: 0,
        detail: None,
    });
    for (name, server) in &config.servers {
        state.servers.push(ServerRow {
            name: name.clone(),
            transport: transport(server),
            status: if server.enabled == Some(false) {
                ServerStatus::Disabled
            } else {
                ServerStatus::Idle
            },
            tools: 0,
            detail: None,
        });
    }
    if let Some(mode) = &config.policy.mode {
        state.status.policy_mode.clone_from(mode.get_ref());
    }
    state.confirm_delete_double = config
        .policy
        .confirm_delete
        .as_ref()
        .is_some_and(|c| c.get_ref() == "double");
    state.chat.push(ChatEntry {
        kind: ChatKind::Note,
        text: OFFLINE_NOTE.into(),
    });
    state
}
