//! The Servers pane: moving, Enter for a server's details (which only scroll), `d`
//! to disable or enable it, `r` to reconnect.

use crate::keymap::Action;

use super::msg::{Cmd, Handled, ServerCmd};
use super::state::{Overlay, OverlayStack, ServerStatus, ServersPane};

/// Navigation in the server list; Enter opens the selected server's details.
pub fn nav(servers: &mut ServersPane, action: Action, page: usize) -> Option<Overlay> {
    if action == Action::Activate {
        return (!servers.rows.is_empty()).then_some(Overlay::Server { scroll: 0 });
    }
    servers.sel = super::scroll::moved(servers.sel, servers.rows.len(), action, page);
    None
}

/// `d` and `r` on the selected server (the built-ins have neither).
pub fn server_action(servers: &ServersPane, action: Action) -> Vec<Cmd> {
    let Some(row) = servers
        .selected()
        .filter(|s| s.status != ServerStatus::Builtin)
    else {
        return Vec::new();
    };
    match action {
        Action::ToggleServer if row.status == ServerStatus::Disabled => {
            vec![ServerCmd::Reconnect(row.name.clone()).into()]
        }
        Action::ToggleServer => vec![ServerCmd::Disable(row.name.clone()).into()],
        Action::Reconnect => vec![ServerCmd::Reconnect(row.name.clone()).into()],
        _ => Vec::new(),
    }
}

/// Keys in a server's details: scroll and close.
pub fn details_key(overlays: &mut OverlayStack, action: Option<Action>) -> Handled {
    let Some(Overlay::Server { scroll }) = overlays.top_mut() else {
        return Handled::nothing();
    };
    if super::scroll::scroll_overlay(scroll, action) {
        return Handled::nothing();
    }
    match action {
        Some(Action::Close) => {
            overlays.pop();
        }
        Some(Action::ToggleRaw | Action::CallTool) | None => {}
        Some(other) => return Handled::Unhandled(other),
    }
    Handled::nothing()
}
