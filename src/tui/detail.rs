//! A catalog item's detail overlay: its description and schema (raw with `r`), and
//! `c` to use it (the argument form, or a composer line).

use crate::keymap::Action;

use super::msg::{Cmd, Handled};
use super::state::{Overlay, Pane, State};

pub fn key(state: &mut State, action: Option<Action>) -> Handled {
    if matches!(state.overlays.top(), Some(Overlay::Server { .. })) {
        return super::servers::details_key(&mut state.overlays, action);
    }
    let Some(Overlay::Detail { scroll, raw }) = state.overlays.top_mut() else {
        return Handled::nothing();
    };
    if super::scroll::scroll_overlay(scroll, action) {
        return Handled::nothing();
    }
    match action {
        Some(Action::Close) => {
            state.overlays.pop();
        }
        Some(Action::ToggleRaw) => {
            *raw = !*raw;
            *scroll = 0;
        }
        Some(Action::CallTool) => return use_selected(state).into(),
        Some(other) => return Handled::Unhandled(other),
        None => {}
    }
    Handled::nothing()
}

/// `c` on a catalog item (in the list or its detail view): the argument form for a
/// tool or a prompt, else a composer line that uses it. A prompt's or template's form
/// asks its server at once for the first field's completions.
pub fn use_selected(state: &mut State) -> Vec<Cmd> {
    if let Some(form) = state
        .catalog
        .selected_entry()
        .and_then(|e| call_form(state.catalog.tab, e))
    {
        let ask = super::form::completion_request(&form);
        state.overlays.push(Overlay::Form(form));
        return ask;
    } else if let Some(line) = state
        .catalog
        .selected_entry()
        .map(|e| command_line(state.catalog.tab, e))
    {
        state.overlays.clear();
        state.composer.set_text(&line);
        state.focus = Pane::Composer;
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
        T::Tools | T::Agents => FormTarget::Tool(entry.name.clone()),
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
        T::Tools | T::Agents => format!(
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
