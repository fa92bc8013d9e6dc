//! Slash commands typed in the composer: `/call`, `/read`, `/prompt`, `/save`,
//! `/model`; anything else is a message for the model.

use super::msg::Cmd;
use super::state::{ChatEntry, ChatKind, State, TailScroll};

pub fn submit(state: &mut State) -> Vec<Cmd> {
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
                call_id: state.next_manual_call(),
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

pub fn switch_provider(
    state: &mut State,
    provider: Option<String>,
    model: Option<String>,
) -> Vec<Cmd> {
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
                call_id: state.next_manual_call(),
                server: server.to_string(),
                uri: uri.trim().to_string(),
            }),
            None => Err("usage: /read SERVER URI".to_string()),
        },
        "/save" | "/save!" => save_command(state, rest, verb == "/save!"),
        "/prompt" => match rest.trim().split_once(char::is_whitespace) {
            Some((server, call)) => match crate::tools::parse_call_line(call) {
                Ok(c) => Ok(Cmd::GetPrompt {
                    call_id: state.next_manual_call(),
                    server: server.to_string(),
                    name: c.tool,
                    args: c.args,
                }),
                Err(e) => Err(e),
            },
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
