//! Keys in the argument form: arrows move and choose, typed keys edit, Enter
//! validates and sends (a tool call, a prompt, or a read of the expanded URI).

use crate::keymap::{Action, Key, KeyCode};

use super::super::msg::{CallCmd, Cmd, Handled, ServerCmd};
use super::super::state::{ChatEntry, ChatKind, Overlay, State};
use super::{FormState, FormTarget};

/// The call form: arrows move and choose, typed keys edit, Enter validates and sends.
pub fn key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    let Some(Overlay::Form(form)) = state.overlays.top_mut() else {
        return Handled::nothing();
    };
    match action {
        // Back where the form was opened: the item's detail, or the list.
        Some(Action::Close) => {
            state.overlays.pop();
        }
        // A field reached asks for its suggestions at once (they may depend on the
        // values chosen above it).
        Some(Action::Up) => {
            form.sel = form.sel.saturating_sub(1);
            return completion_request(form).into();
        }
        Some(Action::Down) => {
            form.sel = (form.sel + 1).min(form.fields.len().saturating_sub(1));
            return completion_request(form).into();
        }
        Some(Action::PrevTab) => form.cycle(-1),
        Some(Action::NextTab) => {
            if !form.accept_suggestion() {
                form.cycle(1);
            }
        }
        Some(Action::ToggleRaw) => form.toggle_raw(),
        Some(Action::ExternalEditor) => return form.external_edit().into(),
        Some(Action::Activate) => return send_form(state).into(),
        Some(other) => return Handled::Unhandled(other),
        None => {
            form.error = None;
            let mut edited = false;
            if let Some(text) = form.text_mut() {
                if let Some(c) = key.typed_char() {
                    text.push(c);
                    edited = true;
                } else if key.code == KeyCode::Backspace {
                    edited = text.pop().is_some();
                } else if key.clears_line() {
                    edited = !text.is_empty();
                    text.clear();
                }
            }
            if edited {
                return completion_request(form).into();
            }
        }
    }
    Handled::nothing()
}

/// Ask the server what could complete the field being typed (templates, prompts).
pub fn completion_request(form: &FormState) -> Vec<Cmd> {
    use FormTarget;
    let Some(field) = form.fields.get(form.sel).filter(|_| form.raw.is_none()) else {
        return Vec::new();
    };
    let (server, reference) = match &form.target {
        FormTarget::Template {
            server,
            uri_template,
        } => (
            server.clone(),
            super::super::msg::CompletionTarget::Template(uri_template.clone()),
        ),
        FormTarget::Prompt { server, name } => (
            server.clone(),
            super::super::msg::CompletionTarget::Prompt(name.clone()),
        ),
        FormTarget::Tool(_) => return Vec::new(),
    };
    let context = form
        .fields
        .iter()
        .filter(|f| f.name != field.name && !f.value.trim().is_empty())
        .map(|f| (f.name.clone(), f.value.clone()))
        .collect();
    vec![
        ServerCmd::Complete {
            server,
            reference,
            argument: field.name.clone(),
            value: field.value.clone(),
            context,
        }
        .into(),
    ]
}

fn send_form(state: &mut State) -> Vec<Cmd> {
    let Some(Overlay::Form(form)) = state.overlays.top_mut() else {
        return Vec::new();
    };
    if let FormTarget::Template { server, .. } = &form.target {
        let server = server.clone();
        return match form.uri() {
            Ok(uri) => {
                state.overlays.clear();
                super::super::subs::read(state, server, uri)
            }
            Err(e) => {
                form.error = Some(e);
                Vec::new()
            }
        };
    }
    let args = match form.to_args() {
        Ok(args) => args,
        Err(e) => {
            form.error = Some(e);
            return Vec::new();
        }
    };
    let target = form.target.clone();
    state.overlays.clear();
    let shown = serde_json::to_string(&serde_json::Value::Object(args.clone())).unwrap_or_default();
    let call_id = state.next_manual_call();
    let (line, cmd) = match target {
        FormTarget::Tool(tool) => (
            format!("/call {tool} {shown}"),
            CallCmd::CallTool {
                call_id,
                tool,
                args,
            }
            .into(),
        ),
        FormTarget::Prompt { server, name } => (
            format!("/prompt {server} {name} {shown}"),
            CallCmd::GetPrompt {
                call_id,
                server,
                name,
                args,
            }
            .into(),
        ),
        FormTarget::Template { .. } => return Vec::new(),
    };
    state.chat.show(ChatEntry::new(ChatKind::User, line));
    vec![cmd]
}
