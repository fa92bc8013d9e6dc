//! Keys in the overlays that show one thing: help, a server's details, a catalog
//! item's detail (and the form or command line `c` prepares from it).

use crate::keymap::Action;

use super::msg::Cmd;
use super::state::{Overlay, Pane, State};
use super::update::global_action;

/// Scroll keys shared by the text overlays; true when the action was one.
fn scroll_overlay(scroll: &mut u16, action: Option<Action>) -> bool {
    match action {
        Some(Action::Up) => *scroll = scroll.saturating_sub(1),
        Some(Action::Down) => *scroll = scroll.saturating_add(1),
        Some(Action::PageUp) => *scroll = scroll.saturating_sub(10),
        Some(Action::PageDown) => *scroll = scroll.saturating_add(10),
        _ => return false,
    }
    true
}

pub fn help_key(state: &mut State, action: Option<Action>) -> Vec<Cmd> {
    let Some(Overlay::Help { scroll }) = &mut state.overlay else {
        return Vec::new();
    };
    if scroll_overlay(scroll, action) {
        return Vec::new();
    }
    match action {
        Some(Action::Close | Action::Help) => state.overlay = None,
        Some(other) => return global_action(state, other),
        None => {}
    }
    Vec::new()
}

fn server_key(state: &mut State, action: Option<Action>) -> Vec<Cmd> {
    let Some(Overlay::Server { scroll }) = &mut state.overlay else {
        return Vec::new();
    };
    if scroll_overlay(scroll, action) {
        return Vec::new();
    }
    match action {
        Some(Action::Close) => state.overlay = None,
        Some(Action::ToggleRaw | Action::CallTool) | None => {}
        Some(other) => return global_action(state, other),
    }
    Vec::new()
}

pub fn detail_key(state: &mut State, action: Option<Action>) -> Vec<Cmd> {
    if matches!(state.overlay, Some(Overlay::Server { .. })) {
        return server_key(state, action);
    }
    let Some(Overlay::Detail { scroll, raw }) = &mut state.overlay else {
        return Vec::new();
    };
    if scroll_overlay(scroll, action) {
        return Vec::new();
    }
    match action {
        Some(Action::Close) => state.overlay = None,
        Some(Action::ToggleRaw) => {
            *raw = !*raw;
            *scroll = 0;
        }
        Some(Action::CallTool) => {
            if let Some(form) = state.selected_entry().and_then(|e| call_form(state.tab, e)) {
                state.overlay = Some(Overlay::Form(form));
            } else if let Some(line) = state.selected_entry().map(|e| command_line(state.tab, e)) {
                state.overlay = None;
                state.composer = super::composer::Composer::with_text(&line);
                state.focus = Pane::Composer;
            }
        }
        Some(other) => return global_action(state, other),
        None => {}
    }
    Vec::new()
}

/// The argument form for a tool or a prompt (resources and templates use `/read`).
fn call_form(
    tab: super::state::CatalogTab,
    entry: &super::state::CatalogEntry,
) -> Option<super::form::FormState> {
    use super::form::{FormState, FormTarget};
    use super::state::CatalogTab as T;
    let schema = entry.schema.clone().unwrap_or(serde_json::Value::Null);
    let target = match tab {
        T::Tools => FormTarget::Tool(entry.name.clone()),
        T::Prompts => FormTarget::Prompt {
            server: entry.server.clone(),
            name: entry.name.clone(),
        },
        T::Templates => {
            let template = entry
                .facts
                .iter()
                .find(|(k, _)| k == "uri template")
                .map(|(_, v)| v.clone())?;
            return Some(FormState::for_template(&entry.server, &template));
        }
        T::Resources => return None,
    };
    Some(FormState::for_schema(target, &schema))
}

/// The composer line that uses a catalog item: call a tool, read a resource or a
/// template's URI, render a prompt.
fn command_line(tab: super::state::CatalogTab, entry: &super::state::CatalogEntry) -> String {
    use super::state::CatalogTab as T;
    let fact = |name: &str| {
        entry
            .facts
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let schema = entry.schema.clone().unwrap_or(serde_json::Value::Null);
    match tab {
        T::Tools => format!(
            "/call {}",
            crate::tools::call_skeleton(&entry.name, &schema)
        ),
        T::Resources => format!("/read {} {}", entry.server, fact("uri")),
        T::Templates => format!("/read {} {}", entry.server, fact("uri template")),
        T::Prompts => format!(
            "/prompt {} {}",
            entry.server,
            crate::tools::call_skeleton(&entry.name, &schema)
        ),
    }
}
