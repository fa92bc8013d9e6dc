//! Coalescing `list_changed`: a server that announces a burst of changes is listed
//! once per list, not once per notification. The MCP spec says only that a server
//! should send it when the list changes (MCP 2025-11-25 "Tools", "List Changed
//! Notification", <https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification>);
//! when to list again is the client's choice. Here, per server (each has one task) and
//! per list:
//!
//! - changes heard within [`LIST_DEBOUNCE`] of the first are gathered, and each list
//!   is fetched once;
//! - lists run one at a time (the server's task awaits each);
//! - a change heard before a list of that kind began is in that list and asks for
//!   nothing more; one heard during a list asks for exactly one more;
//! - a gathering ended by shutdown or reconnect lists nothing (the catalog is dropped,
//!   or listed whole on the next connection).

use std::collections::HashMap;
use std::time::Duration;

use rmcp::{Peer, RoleClient};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::catalog::{CatalogSnapshot, ListKind};
use super::client::Command;
use super::listing::refresh_list;
use super::server::ServerHandle;

/// How long `list_changed` notifications are gathered before listing again. A server
/// that changes several things at once announces each (server-everything registers
/// its conditional tools one by one after `initialized`: five `tools/list_changed`
/// within a millisecond); 50 ms holds such a burst while a person does not notice the
/// wait.
pub(super) const LIST_DEBOUNCE: Duration = Duration::from_millis(50);

/// When each list last began on this connection.
#[derive(Debug, Default)]
pub(super) struct ListStarts(HashMap<ListKind, Instant>);

impl ListStarts {
    /// A list of `kind` begins now (called before its first request is sent).
    pub(super) fn begin(&mut self, kind: ListKind) {
        self.0.insert(kind, Instant::now());
    }

    /// A change to `kind` heard at `heard` is already in the last list of that kind:
    /// that list began after it. (A list that began at the same instant may have been
    /// answered before the change; it does not count.)
    pub(super) fn covers(&self, kind: ListKind, heard: Instant) -> bool {
        self.0.get(&kind).is_some_and(|began| *began > heard)
    }
}

/// Gathers the changes heard within [`LIST_DEBOUNCE`] after `first`. Returns the
/// lists to fetch now (each once, in the order their changes were heard, without those
/// `starts` says a list already holds) and the command that ended the gathering,
/// still to handle (`Some(None)`: the queue closed).
pub(super) async fn gather(
    first: (ListKind, Instant),
    commands: &mut mpsc::UnboundedReceiver<Command>,
    starts: &ListStarts,
) -> (Vec<ListKind>, Option<Option<Command>>) {
    let mut heard = vec![first];
    let until = Instant::now() + LIST_DEBOUNCE;
    let next = loop {
        tokio::select! {
            () = tokio::time::sleep_until(until) => break None,
            command = commands.recv() => match command {
                Some(Command::Refresh(kind, at)) => heard.push((kind, at)),
                other => break Some(other),
            },
        }
    };
    (due(&heard, next.as_ref(), starts), next)
}

/// `catalog` with the `due` lists fetched again, one at a time.
pub(super) async fn list_again(
    peer: &Peer<RoleClient>,
    handle: &ServerHandle,
    catalog: &CatalogSnapshot,
    due: Vec<ListKind>,
    starts: &mut ListStarts,
) -> CatalogSnapshot {
    let mut catalog = catalog.clone();
    for kind in due {
        starts.begin(kind);
        // A failure is kept in the catalog's errors.
        let _ = refresh_list(peer, handle, kind, &mut catalog).await;
    }
    catalog
}

/// The lists the changes in `heard` still ask for, each once, given the command that
/// ended the gathering (`next`).
fn due(
    heard: &[(ListKind, Instant)],
    next: Option<&Option<Command>>,
    starts: &ListStarts,
) -> Vec<ListKind> {
    // The connection ends: a shutdown drops its catalog, a reconnect lists it whole.
    if matches!(
        next,
        Some(None | Some(Command::Shutdown | Command::Reconnect))
    ) {
        return Vec::new();
    }
    let mut due = Vec::new();
    for &(kind, at) in heard {
        if !starts.covers(kind, at) && !due.contains(&kind) {
            due.push(kind);
        }
    }
    due
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instants() -> (Instant, Instant, Instant) {
        let t0 = Instant::now();
        (
            t0,
            t0 + Duration::from_millis(1),
            t0 + Duration::from_millis(2),
        )
    }

    #[test]
    fn each_list_is_due_once_in_the_order_heard() {
        let (t0, t1, t2) = instants();
        let heard = [
            (ListKind::Tools, t0),
            (ListKind::Prompts, t0),
            (ListKind::Tools, t1),
            (ListKind::Tools, t2),
        ];
        let due = due(&heard, None, &ListStarts::default());
        assert_eq!(due, [ListKind::Tools, ListKind::Prompts]);
    }

    #[test]
    fn a_change_heard_before_a_list_began_is_in_it() {
        let (t0, t1, t2) = instants();
        let mut starts = ListStarts::default();
        starts.0.insert(ListKind::Tools, t1);
        assert!(starts.covers(ListKind::Tools, t0));
        // During the list (or at the instant it began): one more.
        assert!(!starts.covers(ListKind::Tools, t1));
        assert!(!starts.covers(ListKind::Tools, t2));
        // Another list never listed on this connection.
        assert!(!starts.covers(ListKind::Prompts, t0));
        let heard = [(ListKind::Tools, t0), (ListKind::Prompts, t0)];
        assert_eq!(due(&heard, None, &starts), [ListKind::Prompts]);
        let heard = [(ListKind::Tools, t0), (ListKind::Tools, t2)];
        assert_eq!(due(&heard, None, &starts), [ListKind::Tools]);
    }

    #[test]
    fn nothing_is_listed_when_the_connection_ends() {
        let (t0, ..) = instants();
        let heard = [(ListKind::Tools, t0)];
        let starts = ListStarts::default();
        for ending in [None, Some(Command::Shutdown), Some(Command::Reconnect)] {
            assert!(due(&heard, Some(&ending), &starts).is_empty(), "{ending:?}");
        }
        // Disabled or idle, the server keeps showing its catalog: list it first.
        for staying in [Command::Disable, Command::Idle, Command::Start] {
            let next = Some(staying);
            assert_eq!(due(&heard, Some(&next), &starts), [ListKind::Tools]);
        }
    }
}
