//! Slash commands typed in the composer: `/call`, `/read`, `/prompt`, `/save`,
//! `/save-case`, `/model`, `/mode`, `/help`, `/tasks`, `/wire`, `/agents`. An unknown one is an error with the
//! closest command; anything not starting with `/` (or starting with `//`) is a
//! message for the model.

use crate::config::suggest;

use super::msg::{CallCmd, Cmd, FileCmd, SessionCmd};
use super::state::{ChatEntry, ChatKind, Overlay, ServerStatus, State};

/// A slash command: its name, how it is written, and what it does (the help
/// overlay lists them; "did you mean" picks from the names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlashCommand {
    pub name: &'static str,
    pub usage: &'static str,
    pub about: &'static str,
}

const fn cmd(name: &'static str, usage: &'static str, about: &'static str) -> SlashCommand {
    SlashCommand { name, usage, about }
}

/// The commands the composer knows, in the order the help lists them.
pub const COMMANDS: [SlashCommand; 12] = [
    cmd(
        "/call",
        "/call TOOL k=v …",
        "call a tool yourself (through the gate)",
    ),
    cmd("/read", "/read SERVER URI", "read a resource"),
    cmd("/prompt", "/prompt SERVER NAME k=v …", "get a prompt"),
    cmd(
        "/save",
        "/save FILE [ITEM]",
        "write an item of the last result to a file",
    ),
    cmd(
        "/save!",
        "/save! FILE [ITEM]",
        "the same, over an existing file",
    ),
    cmd(
        "/save-case",
        "/save-case [FILE]",
        "keep the last call as a test case",
    ),
    cmd(
        "/model",
        "/model [PROVIDER] [MODEL]",
        "say or switch provider and model",
    ),
    cmd("/mode", "/mode [NAME]", "say or switch the permission mode"),
    cmd(
        "/agents",
        "/agents a,b [--mode M] TASK",
        "run agents together",
    ),
    cmd("/tasks", "/tasks", "the MCP tasks view"),
    cmd("/wire", "/wire", "the wire view"),
    cmd("/help", "/help", "keys and commands (this overlay)"),
];

/// Enter in the composer: a slash command, or a message for the model. A message that
/// begins with `/` is written `//…` (one slash is dropped).
pub fn submit(state: &mut State) -> Vec<Cmd> {
    if state.composer.is_blank() {
        return Vec::new();
    }
    let mut text = state.composer.take();
    // A command that only opens a view leaves nothing in the transcript.
    let opens_view = matches!(text.trim(), "/help" | "/tasks" | "/wire");
    if !opens_view {
        state
            .chat
            .show(ChatEntry::new(ChatKind::User, text.clone()));
    }
    let trimmed = text.trim_start();
    if let Some(literal) = trimmed.strip_prefix("//") {
        text = format!("/{literal}");
    } else if trimmed.starts_with('/') {
        let line = trimmed.trim_end().to_owned();
        return match command(state, &line) {
            Ok(cmds) => cmds,
            Err(e) => {
                state.chat.push(ChatEntry::new(ChatKind::Error, e));
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
    if state.turn.run.is_some() {
        state.chat.push(ChatEntry::new(
            ChatKind::Note,
            "A turn is running; this message waits until it ends. Esc interrupts it.",
        ));
    }
    vec![SessionCmd::Op(crate::agent::Op::UserTurn { text }).into()]
}

/// One slash command; `Err` is the message shown in the transcript.
fn command(state: &mut State, text: &str) -> Result<Vec<Cmd>, String> {
    let (verb, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let rest = rest.trim();
    let cmd = match verb {
        "/model" => return model_command(state, rest),
        "/mode" => return super::modes::command(state, rest),
        "/help" => {
            state.overlays.push(Overlay::Help { scroll: 0 });
            return Ok(Vec::new());
        }
        "/tasks" => {
            super::tasks::open(state);
            return Ok(Vec::new());
        }
        "/wire" => return Ok(super::wire::open(state)),
        "/save-case" => {
            let path = Some(rest.trim()).filter(|p| !p.is_empty());
            return Ok(save_case(state, path));
        }
        "/call" => call_command(state, rest)?,
        "/agents" => super::slash_agents::command(state, rest)?,
        "/read" => match rest.split_once(char::is_whitespace) {
            Some((server, uri)) => CallCmd::ReadResource {
                call_id: state.next_manual_call(),
                server: server.to_string(),
                uri: uri.trim().to_string(),
            }
            .into(),
            None => return Err("usage: /read SERVER URI".to_string()),
        },
        "/save" | "/save!" => save_command(state, rest, verb == "/save!")?,
        "/prompt" => match rest.split_once(char::is_whitespace) {
            Some((server, call)) => {
                let c = crate::tools::parse_call_line(call).map_err(|e| e.to_string())?;
                CallCmd::GetPrompt {
                    call_id: state.next_manual_call(),
                    server: server.to_string(),
                    name: c.tool,
                    args: c.args,
                }
                .into()
            }
            None => return Err("usage: /prompt SERVER NAME key=value …".to_string()),
        },
        _ => {
            let names = COMMANDS.map(|c| c.name);
            let hint = suggest::hint(verb, &names, "commands").unwrap_or_default();
            return Err(format!(
                "unknown command {verb}: {hint} (start a message with // to send one that \
                 begins with /)"
            ));
        }
    };
    Ok(vec![cmd])
}

/// `/call TOOL k=v …`: a tool the catalog does not list is refused with the closest
/// name, unless a server is still connecting (its tools may not be listed yet).
fn call_command(state: &mut State, rest: &str) -> Result<Cmd, String> {
    let call = crate::tools::parse_call_line(rest).map_err(|e| format!("/call: {e}"))?;
    let names: Vec<&str> = state
        .catalog
        .items
        .tools
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    let connecting = state
        .servers
        .rows
        .iter()
        .any(|s| matches!(s.status, ServerStatus::Idle | ServerStatus::Connecting));
    if !names.contains(&call.tool.as_str()) && !connecting {
        let hint = suggest::hint(&call.tool, &names, "tools").unwrap_or_default();
        return Err(format!(
            "/call: there is no tool named {}; {hint}",
            call.tool
        ));
    }
    Ok(CallCmd::CallTool {
        call_id: state.next_manual_call(),
        tool: call.tool,
        args: call.args,
    }
    .into())
}

pub fn switch_provider(
    state: &mut State,
    provider: Option<String>,
    model: Option<String>,
) -> Vec<Cmd> {
    if state.turn.run.is_some() {
        state.chat.push(ChatEntry::new(
            ChatKind::Error,
            "A turn is running; switch the model when it has ended (Esc interrupts it).",
        ));
        return Vec::new();
    }
    vec![SessionCmd::SwitchProvider { provider, model }.into()]
}

/// `/model [PROVIDER] [MODEL]`: with one word, a configured provider switches the
/// provider, anything else the model of the current one (the offline scripted provider
/// has no models, so there a word that names no provider is an error).
fn model_command(state: &mut State, rest: &str) -> Result<Vec<Cmd>, String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let providers: Vec<&str> = state.providers.iter().map(String::as_str).collect();
    let unknown = |name: &str| {
        let hint = suggest::hint(name, &providers, "providers").unwrap_or_default();
        format!("/model: no provider named {name}; {hint}")
    };
    let current = state.status.provider.clone();
    match words.as_slice() {
        [] => {
            let using = if state.status.model.is_empty() {
                current
            } else {
                format!("{current}/{}", state.status.model)
            };
            state.chat.push(ChatEntry::new(
                ChatKind::Note,
                format!(
                    "Using {using}. /model PROVIDER [MODEL] or /model MODEL switches; providers: {}.",
                    state.providers.join(", ")
                ),
            ));
            Ok(Vec::new())
        }
        [one] if providers.contains(one) => {
            Ok(switch_provider(state, Some((*one).to_string()), None))
        }
        [one] if current == "scripted" || current == super::state::NO_PROVIDER => Err(unknown(one)),
        [model] => Ok(switch_provider(
            state,
            Some(current),
            Some((*model).to_string()),
        )),
        [provider, ..] if !providers.contains(provider) => Err(unknown(provider)),
        [provider, model, ..] => Ok(switch_provider(
            state,
            Some((*provider).to_string()),
            Some((*model).to_string()),
        )),
    }
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
    Ok(FileCmd::SaveContents {
        blocks: last.blocks.clone(),
        item,
        path: path.to_string(),
        overwrite,
    }
    .into())
}

/// `/save-case [FILE]` and the `save_case` key: the last call, read or prompt the
/// person made, appended as a test case to FILE (default `./switchboard.calls.toml`;
/// `switchboard test` runs it). Without one, the transcript says what to do first.
pub fn save_case(state: &mut State, path: Option<&str>) -> Vec<Cmd> {
    let Some(case) = state.last_case.clone() else {
        state.chat.show(ChatEntry::new(
            ChatKind::Error,
            "nothing to save as a case: call a tool, /read or /prompt first",
        ));
        return Vec::new();
    };
    vec![
        FileCmd::SaveCase {
            case,
            path: path.unwrap_or(crate::cases::DEFAULT_FILE).to_string(),
        }
        .into(),
    ]
}
