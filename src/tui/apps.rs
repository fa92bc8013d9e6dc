//! `o` in the Chat pane (and "Open app…" in the palette): the MCP App of a tool
//! result opens in the browser. The card is the one at the bottom of the pane when it
//! belongs to a tool with a UI (`_meta.ui.resourceUri`), else the newest such card.
//! The executor reads the page and starts a local host (`executor/apps.rs`); its
//! address is shown in the transcript and handed to `$BROWSER`. What the app then
//! asks for comes back as `Msg::App`: its messages and model context are shown here,
//! never sent to the model; its log goes to the Logs pane.

use serde_json::{Map, Value, json};

use super::cards::{CardKind, CardStatus, ToolCard};
use super::msg::{AppCmd, AppOpen, Cmd, UiCmd};
use super::state::{ChatEntry, ChatKind, LogLevel, LogLine, NoticeLevel, State};
use crate::apps::AppNote;
use crate::sanitize::sanitize_line;

/// Opens the app of the card in view, or of the newest card with one.
pub fn open(state: &mut State) -> Vec<Cmd> {
    let Some(card) = target(state) else {
        state.notice(
            NoticeLevel::Warn,
            "no tool result with an MCP App in the transcript",
        );
        return Vec::new();
    };
    let Some((server, tool)) = crate::tools::split_qualified(&card.tool) else {
        return Vec::new();
    };
    let open = AppOpen {
        server: server.to_owned(),
        tool: tool.to_owned(),
        arguments: arguments(&card.args),
        result: result_wire(card),
    };
    state.notice(
        NoticeLevel::Info,
        format!("opening the app of {}…", sanitize_line(&card.tool)),
    );
    vec![AppCmd::Open(Box::new(open)).into()]
}

/// Whether `o` has a card to open (the status bar shows the key only then; it asks on
/// every frame, so with no app in the catalog it looks at no entry, and otherwise it
/// looks from the newest, where an app's card usually is).
pub fn available(state: &State) -> bool {
    !state.catalog.items.apps.is_empty()
        && state
            .chat
            .entries
            .iter()
            .rev()
            .filter_map(|e| e.card.as_ref())
            .any(|card| has_app(state, card))
}

/// The card in view when it has an app, else the newest card that has one.
fn target(state: &State) -> Option<&ToolCard> {
    let chat = &state.chat;
    let in_view = super::chat_copy::entry_in_view(state)
        .and_then(|i| chat.entries.get(i))
        .and_then(|e| e.card.as_ref())
        .filter(|card| has_app(state, card));
    in_view.or_else(|| {
        chat.entries
            .iter()
            .rev()
            .filter_map(|e| e.card.as_ref())
            .find(|card| has_app(state, card))
    })
}

/// A tool call (not a read) of a catalog tool that names a UI resource.
fn has_app(state: &State, card: &ToolCard) -> bool {
    card.kind == CardKind::Tool && state.catalog.items.apps.contains(&card.tool)
}

/// The card's arguments (compact JSON) as an object; anything else is none.
fn arguments(args: &str) -> Map<String, Value> {
    match serde_json::from_str(args) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// The card's result as MCP sends it (`CallToolResult`) for the app's
/// `ui/notifications/tool-result`, or why there is none.
fn result_wire(card: &ToolCard) -> Result<Value, String> {
    let Some(text) = &card.result else {
        return Err(match card.status {
            CardStatus::Requested | CardStatus::Running => "the call has not finished".into(),
            _ => "the call gave no result".into(),
        });
    };
    let mut result = json!({
        "content": [{"type": "text", "text": text}],
        "isError": card.status != CardStatus::Ok,
    });
    if let (Some(structured), Some(object)) = (&card.structured, result.as_object_mut()) {
        object.insert("structuredContent".into(), structured.clone());
    }
    Ok(result)
}

/// The host started (its address goes to the browser and the transcript), or not.
pub fn opened(state: &mut State, app: &str, result: Result<String, String>) -> Vec<Cmd> {
    let app = sanitize_line(app);
    match result {
        Ok(url) => {
            state.chat.show(ChatEntry::new(
                ChatKind::Note,
                format!(
                    "app {app} is served at {url} (opening it in the browser; it runs until \
                     switchboard exits)"
                ),
            ));
            vec![UiCmd::OpenUrl(url).into()]
        }
        Err(why) => {
            state.chat.show(ChatEntry::new(
                ChatKind::Error,
                format!("cannot open the app of {app}: {}", sanitize_line(&why)),
            ));
            Vec::new()
        }
    }
}

/// What an open app did: shown, never sent to the model.
pub fn note(state: &mut State, note: AppNote) {
    let entry = match note {
        AppNote::Message { app, text } => format!(
            "app {} says (not sent to the model): {}",
            sanitize_line(&app),
            sanitize_line(&text)
        ),
        AppNote::Context { app, text } => format!(
            "app {} offers model context (not sent): {}",
            sanitize_line(&app),
            sanitize_line(&text)
        ),
        AppNote::Link { app, url, opened } => format!(
            "app {} asked to open {}: {}",
            sanitize_line(&app),
            sanitize_line(&url),
            if opened { "opened" } else { "declined" }
        ),
        AppNote::Log { app, level, text } => {
            state.logs.push(LogLine {
                level: log_level(&level),
                target: format!("app {}", sanitize_line(&app)),
                message: sanitize_line(&text),
            });
            return;
        }
    };
    state.chat.show(ChatEntry::new(ChatKind::Note, entry));
}

/// MCP's syslog levels (RFC 5424) on the Logs pane's four.
fn log_level(level: &str) -> LogLevel {
    match level {
        "debug" => LogLevel::Debug,
        "info" | "notice" => LogLevel::Info,
        "warning" => LogLevel::Warn,
        _ => LogLevel::Error,
    }
}
