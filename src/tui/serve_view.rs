//! `--serve ADDR`: the gateway runs inside the TUI. Its calls' gate events reach the
//! approval pane ("asked by NAME via serve"); the Servers pane lists the URL and the
//! connected clients.

use tokio::sync::{mpsc, watch};

use crate::gate::GateEvent;
use crate::serve::ConnectedClient;

/// What the Servers pane shows of the gateway.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServeView {
    /// `http://HOST:PORT/mcp`, while serving.
    pub url: Option<String>,
    /// One line per connected client: `NAME · TRANSPORT · N calls`, the name followed
    /// by `(unverified)` when the client only declared it (unsanitised).
    pub clients: Vec<String>,
}

/// The event loop's ends of a gateway running in the TUI.
pub struct ServeLink {
    pub url: String,
    /// The gate's events of every serve call.
    pub gate_events: mpsc::UnboundedReceiver<GateEvent>,
    /// The connected clients, as they change.
    pub clients: watch::Receiver<Vec<ConnectedClient>>,
}

/// The Servers pane line of a client.
pub fn client_line(client: &ConnectedClient) -> String {
    let calls = super::words::count(
        usize::try_from(client.calls).unwrap_or(usize::MAX),
        "call",
        "calls",
    );
    let unverified = if client.verified { "" } else { " (unverified)" };
    format!(
        "{}{unverified} · {} · {calls}",
        client.name, client.transport
    )
}
