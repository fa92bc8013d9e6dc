//! Resource subscriptions from the Catalog's Resources tab: `s` subscribes to the
//! selected resource or stops (`resources/subscribe` in a 2025-11-25 session, a
//! `subscriptions/listen` stream in 2026-07-28); each change marks the row and says
//! so in the status bar; `r` reads it again (and clears the mark). Subscriptions last
//! across reconnects (the hub subscribes again); one the server refuses then is lost.

pub use super::state::Subscriptions;

use crate::sanitize::sanitize_line;

use super::msg::{CallCmd, Cmd, ServerCmd};
use super::state::{CatalogTab, ChatEntry, ChatKind, NoticeLevel, State};

/// The selected resource: (server, uri).
fn selected(state: &State) -> Option<(String, String)> {
    if state.catalog.tab != CatalogTab::Resources {
        return None;
    }
    let entry = state.catalog.selected_entry()?;
    let uri = entry.facts.iter().find(|(k, _)| k == "uri")?.1.clone();
    Some((entry.server.clone(), uri))
}

/// `s`: subscribe to the selected resource, or stop.
pub fn toggle(state: &mut State) -> Vec<Cmd> {
    let Some((server, uri)) = selected(state) else {
        state.notice(
            NoticeLevel::Info,
            "s subscribes to a resource (Resources tab)",
        );
        return Vec::new();
    };
    let on = !state.subscriptions.is_on(&server, &uri);
    vec![ServerCmd::Subscribe { server, uri, on }.into()]
}

/// `r` on a resource: read it again; its change mark goes.
pub fn reread(state: &mut State) -> Vec<Cmd> {
    let Some((server, uri)) = selected(state) else {
        return Vec::new();
    };
    state
        .subscriptions
        .changed
        .remove(&(server.clone(), uri.clone()));
    read(state, server, uri)
}

/// Reads `uri` of `server` as the person's own `/read` line: the line (sanitised) in
/// the transcript, brought into view, and the read with a fresh call id.
pub fn read(state: &mut State, server: String, uri: String) -> Vec<Cmd> {
    state.chat.show(ChatEntry::new(
        ChatKind::User,
        format!("/read {} {}", sanitize_line(&server), sanitize_line(&uri)),
    ));
    vec![
        CallCmd::ReadResource {
            call_id: state.next_manual_call(),
            server,
            uri,
        }
        .into(),
    ]
}

/// The server took (or refused) a subscribe / unsubscribe.
pub fn answered(
    state: &mut State,
    server: String,
    uri: String,
    on: bool,
    result: Result<(), String>,
) {
    let shown = format!("{} {}", sanitize_line(&server), sanitize_line(&uri));
    match result {
        Ok(()) if on => {
            state.notice(NoticeLevel::Info, format!("subscribed: {shown}"));
            state.subscriptions.on.insert((server, uri));
        }
        Ok(()) => {
            state.notice(NoticeLevel::Info, format!("unsubscribed: {shown}"));
            let key = (server, uri);
            state.subscriptions.changed.remove(&key);
            state.subscriptions.on.remove(&key);
        }
        Err(e) => state.notice(NoticeLevel::Error, sanitize_line(&e)),
    }
}

/// A subscribed resource changed.
pub fn updated(state: &mut State, server: String, uri: String) {
    state.notice(
        NoticeLevel::Info,
        format!(
            "{} changed: {} (r reads it again)",
            sanitize_line(&server),
            sanitize_line(&uri)
        ),
    );
    state.subscriptions.changed.insert((server, uri));
}

/// A subscription the server refused to make again after a reconnect: no longer on.
pub fn lost(state: &mut State, server: String, uri: String, reason: &str) {
    state.notice(
        NoticeLevel::Error,
        format!(
            "{} {}: no longer subscribed ({})",
            sanitize_line(&server),
            sanitize_line(&uri),
            sanitize_line(reason)
        ),
    );
    state.subscriptions.on.remove(&(server, uri));
}
