//! Logging in to a server that asks for OAuth, from the TUI: `l` on a `needs login`
//! server (or the palette's "Log in to NAME") starts the login in the background; the
//! overlay shows the authorization URL (copyable with Ctrl+Y, OSC 52), the loopback
//! listener's port, what opened the page, and a field for pasting the final redirect
//! URL or the bare code (over SSH the browser is elsewhere). Esc cancels the login.

pub use super::state::{LoginMsg, LoginPhase, LoginView};
use crate::keymap::{Action, Key, KeyCode};

use super::msg::{Cmd, Handled, LoginCmd, ServerCmd, UiCmd};
use super::state::{NoticeLevel, Overlay, ServerStatus, State};

/// Servers the person can log in to now: HTTP servers that asked for a login.
pub fn loginable(state: &State) -> Vec<String> {
    state
        .servers
        .rows
        .iter()
        .filter(|s| s.status == ServerStatus::NeedsLogin)
        .map(|s| s.name.clone())
        .collect()
}

/// Opens the overlay and starts the login to `server`.
pub fn start(state: &mut State, server: &str) -> Vec<Cmd> {
    state.overlays.push(Overlay::Login(LoginView {
        server: server.to_owned(),
        phase: LoginPhase::Starting,
        pasted: String::new(),
    }));
    vec![LoginCmd::Start(server.to_owned()).into()]
}

/// `l` in the Servers pane: log in to the selected server when it asks for it, or
/// to the one server that does when the selection is elsewhere.
pub fn login_selected(state: &mut State) -> Vec<Cmd> {
    let selected = state
        .servers
        .rows
        .get(state.servers.sel)
        .filter(|row| row.status == ServerStatus::NeedsLogin)
        .map(|row| row.name.clone());
    let waiting = loginable(state);
    let name = match (selected, waiting.as_slice()) {
        (Some(name), _) => name,
        (None, [only]) => only.clone(),
        (None, []) => {
            state.notice(NoticeLevel::Info, "no server asks for a login");
            return Vec::new();
        }
        (None, _) => {
            let text = format!("select the server to log in to: {}", waiting.join(", "));
            state.notice(NoticeLevel::Info, text);
            return Vec::new();
        }
    };
    start(state, &name)
}

/// What the login task said.
pub fn on_msg(state: &mut State, msg: LoginMsg) -> Vec<Cmd> {
    let view = match state.overlays.top_mut() {
        Some(Overlay::Login(view)) => Some(view),
        _ => None,
    };
    match msg {
        LoginMsg::Waiting {
            server,
            url,
            port,
            opened,
        } => {
            if let Some(view) = view.filter(|v| v.server == server) {
                view.phase = LoginPhase::Waiting { url, port, opened };
            }
        }
        LoginMsg::Finished { server, result } => match result {
            Ok(_) => {
                if view.is_some_and(|v| v.server == server) {
                    state.overlays.pop();
                }
                // Issuer, scopes and expiry are in the server's details (Enter).
                state.notice(NoticeLevel::Info, format!("logged in to {server}"));
                return vec![ServerCmd::Reconnect(server).into()];
            }
            Err(reason) => match view.filter(|v| v.server == server) {
                Some(view) => view.phase = LoginPhase::Failed(reason),
                None => state.notice(NoticeLevel::Error, format!("{server}: {reason}")),
            },
        },
    }
    Vec::new()
}

/// Keys in the overlay: type or paste into the field, Enter sends it, Ctrl+Y copies
/// the URL, Esc cancels the login (or closes a failed one).
pub fn key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    let Some(Overlay::Login(view)) = state.overlays.top_mut() else {
        return Handled::nothing();
    };
    match action {
        Some(Action::Close) => {
            let running = !matches!(view.phase, LoginPhase::Failed(_));
            let server = view.server.clone();
            state.overlays.pop();
            if running {
                state.notice(NoticeLevel::Warn, format!("login to {server} cancelled"));
                return vec![LoginCmd::Cancel.into()].into();
            }
        }
        Some(Action::Activate) => {
            let text = view.pasted.trim().to_owned();
            if !text.is_empty() && matches!(view.phase, LoginPhase::Waiting { .. }) {
                view.pasted.clear();
                view.phase = LoginPhase::Exchanging;
                return vec![LoginCmd::Paste(text).into()].into();
            }
        }
        Some(Action::CopyUrl) => {
            if let LoginPhase::Waiting { url, .. } = &view.phase {
                let url = url.clone();
                state.notice(NoticeLevel::Info, "authorization URL copied (OSC 52)");
                return vec![UiCmd::CopyText(url).into()].into();
            }
        }
        Some(other) => return Handled::Unhandled(other),
        None => {
            if let Some(c) = key.typed_char() {
                view.pasted.push(c);
            } else if key.code == KeyCode::Backspace {
                view.pasted.pop();
            }
        }
    }
    Handled::nothing()
}

/// Bracketed paste into the field (one line: a URL or a code).
pub fn paste(view: &mut LoginView, text: &str) {
    view.pasted
        .push_str(crate::sanitize::sanitize_line(text).trim());
}
