//! Layers that take typed text: the composer, the catalog filter and the palette.

use crate::keymap::{Action, Key, KeyCode};

use super::msg::Cmd;
use super::palette::{PaletteCommand, matching_items};
use super::state::{ChatEntry, ChatKind, Overlay, Pane, State, TailScroll};
use super::update::{global_action, quit, toggle_logs};

/// A printable character typed without Ctrl/Alt.
fn typed_char(key: Key) -> Option<char> {
    match key.code {
        KeyCode::Char(c) if !key.mods.ctrl && !key.mods.alt => Some(c),
        _ => None,
    }
}

pub fn composer_key(state: &mut State, key: Key, action: Option<Action>) -> Vec<Cmd> {
    match action {
        Some(Action::Send) => submit(state),
        Some(Action::Newline) => {
            state.composer.insert_newline();
            Vec::new()
        }
        Some(Action::Close) if state.turn.is_some() || state.manual_running > 0 => {
            super::update::cancel_turn(state)
        }
        Some(Action::Close) => {
            state.focus = Pane::Chat;
            Vec::new()
        }
        Some(other) => global_action(state, other),
        None => {
            state.composer.input(key);
            Vec::new()
        }
    }
}

fn submit(state: &mut State) -> Vec<Cmd> {
    if state.composer.is_blank() {
        return Vec::new();
    }
    let text = state.composer.take();
    state
        .chat
        .push(ChatEntry::new(ChatKind::User, text.clone()));
    state.chat_scroll = TailScroll(0);
    if let Some(cmds) = mcp_command(state, text.trim()) {
        return cmds;
    }
    if let Some(line) = text.trim().strip_prefix("/call") {
        return match crate::tools::parse_call_line(line) {
            Ok(call) => vec![Cmd::CallTool {
                tool: call.tool,
                args: call.args,
            }],
            Err(e) => {
                state
                    .chat
                    .push(ChatEntry::new(ChatKind::Error, format!("/call: {e}")));
                Vec::new()
            }
        };
    }
    if state.status.provider == super::state::NO_PROVIDER {
        state.chat.push(ChatEntry::new(
            ChatKind::Note,
            "Not sent: no model provider is connected.",
        ));
        return Vec::new();
    }
    if state.turn.is_some() {
        state.chat.push(ChatEntry::new(
            ChatKind::Note,
            "A turn is running; this message waits until it ends. Esc interrupts it.",
        ));
    }
    vec![Cmd::Op(crate::agent::Op::UserTurn { text })]
}

fn switch_provider(state: &mut State, provider: Option<String>, model: Option<String>) -> Vec<Cmd> {
    if state.turn.is_some() {
        state.chat.push(ChatEntry::new(
            ChatKind::Error,
            "A turn is running; switch the model when it has ended (Esc interrupts it).",
        ));
        return Vec::new();
    }
    vec![Cmd::SwitchProvider { provider, model }]
}

/// `/model [PROVIDER] [MODEL]`: with one word, a configured provider name switches the
/// provider, anything else the model of the current one.
fn model_command(state: &mut State, rest: &str) -> Vec<Cmd> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words.as_slice() {
        [] => {
            let current = if state.status.model.is_empty() {
                state.status.provider.clone()
            } else {
                format!("{}/{}", state.status.provider, state.status.model)
            };
            state.chat.push(ChatEntry::new(
                ChatKind::Note,
                format!(
                    "Using {current}. /model PROVIDER [MODEL] or /model MODEL switches; providers: {}.",
                    state.providers.join(", ")
                ),
            ));
            Vec::new()
        }
        [one] if state.providers.iter().any(|p| p == one) => {
            switch_provider(state, Some((*one).to_string()), None)
        }
        [model] => {
            let provider = (state.status.provider != super::state::NO_PROVIDER)
                .then(|| state.status.provider.clone());
            switch_provider(state, provider, Some((*model).to_string()))
        }
        [provider, model, ..] => switch_provider(
            state,
            Some((*provider).to_string()),
            Some((*model).to_string()),
        ),
    }
}

/// `/read SERVER URI` and `/prompt SERVER NAME k=v …`; `None` for anything else.
fn mcp_command(state: &mut State, text: &str) -> Option<Vec<Cmd>> {
    let (verb, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    if verb == "/model" {
        return Some(model_command(state, rest));
    }
    let result = match verb {
        "/read" => match rest.trim().split_once(char::is_whitespace) {
            Some((server, uri)) => Ok(Cmd::ReadResource {
                server: server.to_string(),
                uri: uri.trim().to_string(),
            }),
            None => Err("usage: /read SERVER URI".to_string()),
        },
        "/save" | "/save!" => save_command(state, rest, verb == "/save!"),
        "/prompt" => match rest.trim().split_once(char::is_whitespace) {
            Some((server, call)) => crate::tools::parse_call_line(call).map(|c| Cmd::GetPrompt {
                server: server.to_string(),
                name: c.tool,
                args: c.args,
            }),
            None => Err("usage: /prompt SERVER NAME key=value …".to_string()),
        },
        _ => return None,
    };
    Some(match result {
        Ok(cmd) => vec![cmd],
        Err(e) => {
            state.chat.push(ChatEntry::new(ChatKind::Error, e));
            Vec::new()
        }
    })
}

/// `/save FILE [ITEM]`: an item (default 1) of the last read or call to a file;
/// `/save!` replaces.
fn save_command(state: &State, rest: &str, overwrite: bool) -> Result<Cmd, String> {
    let usage =
        "usage: /save FILE [ITEM] after a /read or a call (/save! replaces an existing file)";
    let words: Vec<&str> = rest.split_whitespace().collect();
    let (path, item) = match words.as_slice() {
        [path] => (*path, 1),
        [path, item] => (*path, item.parse().map_err(|_| usage.to_string())?),
        _ => return Err(usage.into()),
    };
    let last = state
        .last_contents
        .as_ref()
        .ok_or_else(|| "nothing to save: /read SERVER URI or call a tool first".to_string())?;
    Ok(Cmd::SaveContents {
        blocks: last.blocks.clone(),
        item,
        path: path.to_string(),
        overwrite,
    })
}

pub fn paste(state: &mut State, text: &str) {
    match (&mut state.overlay, state.focus) {
        (Some(Overlay::Palette(p)), _) => {
            p.query.push_str(&crate::sanitize::sanitize_line(text));
            p.selected = 0;
        }
        (Some(_), _) => {}
        (None, Pane::Catalog) if state.filter.editing => {
            state
                .filter
                .query
                .push_str(&crate::sanitize::sanitize_line(text));
            state.catalog_sel = 0;
        }
        (None, _) => {
            state.focus = Pane::Composer;
            state.composer.paste(text);
        }
    }
}

pub fn filter_key(state: &mut State, key: Key, action: Option<Action>) -> Vec<Cmd> {
    match action {
        Some(Action::Close) => {
            state.filter.query.clear();
            state.filter.editing = false;
            state.catalog_sel = 0;
        }
        Some(Action::Activate) => state.filter.editing = false,
        Some(Action::Up) => state.catalog_sel = state.catalog_sel.saturating_sub(1),
        Some(Action::Down) => {
            let last = state.visible_catalog().len().saturating_sub(1);
            state.catalog_sel = (state.catalog_sel + 1).min(last);
        }
        Some(other) => return global_action(state, other),
        None => {
            if let Some(c) = typed_char(key) {
                state.filter.query.push(c);
                state.catalog_sel = 0;
            } else if key.code == KeyCode::Backspace {
                state.filter.query.pop();
                state.catalog_sel = 0;
            }
        }
    }
    Vec::new()
}

pub fn palette_key(state: &mut State, key: Key, action: Option<Action>) -> Vec<Cmd> {
    let Some(Overlay::Palette(palette)) = &state.overlay else {
        return Vec::new();
    };
    let mut palette = palette.clone();
    let count = matching_items(state, &palette).len();
    match action {
        Some(Action::Close) => {
            state.overlay = None;
            return Vec::new();
        }
        Some(Action::Activate) => {
            let chosen = matching_items(state, &palette)
                .into_iter()
                .nth(palette.selected);
            state.overlay = None;
            return chosen.map_or_else(Vec::new, |item| run_command(state, item.command));
        }
        Some(Action::Up) => palette.selected = palette.selected.saturating_sub(1),
        Some(Action::Down) => {
            palette.selected = (palette.selected + 1).min(count.saturating_sub(1));
        }
        Some(other) => return global_action(state, other),
        None => {
            if let Some(c) = typed_char(key) {
                palette.query.push(c);
                palette.selected = 0;
            } else if key.code == KeyCode::Backspace {
                palette.query.pop();
                palette.selected = 0;
            }
        }
    }
    state.overlay = Some(Overlay::Palette(palette));
    Vec::new()
}

fn run_command(state: &mut State, command: PaletteCommand) -> Vec<Cmd> {
    match command {
        PaletteCommand::SwitchTheme(name) => vec![Cmd::LoadTheme(name)],
        PaletteCommand::ToggleLogs => {
            toggle_logs(state);
            Vec::new()
        }
        PaletteCommand::ToggleMouse => {
            state.mouse = !state.mouse;
            vec![Cmd::SetMouseCapture(state.mouse)]
        }
        PaletteCommand::Help => {
            state.overlay = Some(Overlay::Help { scroll: 0 });
            Vec::new()
        }
        PaletteCommand::Skills => super::browse::open(state, super::browse::BrowseKind::Skills),
        PaletteCommand::Memory => super::browse::open(state, super::browse::BrowseKind::Memory),
        PaletteCommand::ClearChat => {
            state.chat.clear();
            state.chat_scroll = TailScroll(0);
            Vec::new()
        }
        PaletteCommand::RevokeGrant(id) => vec![Cmd::RevokeGrant(id)],
        PaletteCommand::SwitchProvider(name) => switch_provider(state, Some(name), None),
        PaletteCommand::Quit => quit(state),
    }
}

/// The call form: arrows move and choose, typed keys edit, Enter validates and sends.
pub fn form_key(state: &mut State, key: Key, action: Option<Action>) -> Vec<Cmd> {
    let Some(Overlay::Form(form)) = &mut state.overlay else {
        return Vec::new();
    };
    match action {
        Some(Action::Close) => state.overlay = None,
        // A field reached asks for its suggestions at once (they may depend on the
        // values chosen above it).
        Some(Action::Up) => {
            form.sel = form.sel.saturating_sub(1);
            return completion_request(form);
        }
        Some(Action::Down) => {
            form.sel = (form.sel + 1).min(form.fields.len().saturating_sub(1));
            return completion_request(form);
        }
        Some(Action::PrevTab) => form.cycle(-1),
        Some(Action::NextTab) => {
            if !form.accept_suggestion() {
                form.cycle(1);
            }
        }
        Some(Action::ToggleRaw) => form.toggle_raw(),
        Some(Action::ExternalEditor) => return form.external_edit(),
        Some(Action::Activate) => return send_form(state),
        Some(other) => return global_action(state, other),
        None => {
            form.error = None;
            let mut edited = false;
            if let Some(text) = form.text_mut() {
                if let Some(c) = typed_char(key) {
                    text.push(c);
                    edited = true;
                } else if key.code == KeyCode::Backspace {
                    edited = text.pop().is_some();
                }
            }
            if edited {
                return completion_request(form);
            }
        }
    }
    Vec::new()
}

/// Ask the server what could complete the field being typed (templates, prompts).
fn completion_request(form: &super::form::FormState) -> Vec<Cmd> {
    use super::form::FormTarget;
    let Some(field) = form.fields.get(form.sel).filter(|_| form.raw.is_none()) else {
        return Vec::new();
    };
    let (server, reference) = match &form.target {
        FormTarget::Template {
            server,
            uri_template,
        } => (
            server.clone(),
            super::msg::CompletionTarget::Template(uri_template.clone()),
        ),
        FormTarget::Prompt { server, name } => (
            server.clone(),
            super::msg::CompletionTarget::Prompt(name.clone()),
        ),
        FormTarget::Tool(_) => return Vec::new(),
    };
    let context = form
        .fields
        .iter()
        .filter(|f| f.name != field.name && !f.value.trim().is_empty())
        .map(|f| (f.name.clone(), f.value.clone()))
        .collect();
    vec![Cmd::Complete {
        server,
        reference,
        argument: field.name.clone(),
        value: field.value.clone(),
        context,
    }]
}

fn send_form(state: &mut State) -> Vec<Cmd> {
    let Some(Overlay::Form(form)) = &mut state.overlay else {
        return Vec::new();
    };
    if let super::form::FormTarget::Template { server, .. } = &form.target {
        let server = server.clone();
        return match form.uri() {
            Ok(uri) => {
                state.overlay = None;
                state.chat.push(ChatEntry::new(
                    ChatKind::User,
                    format!("/read {server} {uri}"),
                ));
                state.chat_scroll = TailScroll(0);
                vec![Cmd::ReadResource { server, uri }]
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
    state.overlay = None;
    let shown = serde_json::to_string(&serde_json::Value::Object(args.clone())).unwrap_or_default();
    let (line, cmd) = match target {
        super::form::FormTarget::Tool(tool) => (
            format!("/call {tool} {shown}"),
            Cmd::CallTool { tool, args },
        ),
        super::form::FormTarget::Prompt { server, name } => (
            format!("/prompt {server} {name} {shown}"),
            Cmd::GetPrompt { server, name, args },
        ),
        super::form::FormTarget::Template { .. } => return Vec::new(),
    };
    state.chat.push(ChatEntry::new(ChatKind::User, line));
    state.chat_scroll = TailScroll(0);
    vec![cmd]
}
