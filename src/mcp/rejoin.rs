//! Waiting out a reconnect. Work that outlives one connection — a task the server keeps
//! running (the MCP tasks extension) — waits for the server's next connection instead
//! of failing with the one it started on.

use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::server::{Live, ServerHandle};
use super::snapshot::ServerStatus;

/// How long an error on a connection that still looks ready may take to show up as
/// the connection ending; past it the error was about the request, not the connection.
const STILL_LIVE_GRACE: Duration = Duration::from_secs(2);

/// The server will not connect again unless someone asks it to.
fn gave_up(status: &ServerStatus) -> bool {
    matches!(
        status,
        ServerStatus::Disabled
            | ServerStatus::NeedsLogin { .. }
            | ServerStatus::Failed { retry_in: None, .. }
    )
}

impl ServerHandle {
    /// The connection after `generation`, once the server is ready on it. `None` when
    /// the server is not back by `deadline`, will not come back by itself (disabled,
    /// needs a login, out of automatic reconnects), `cancel` fires, or the connection
    /// of `generation` stays up for [`STILL_LIVE_GRACE`] (the failure was not its end).
    pub(super) async fn next_live(
        &self,
        generation: u64,
        deadline: Instant,
        cancel: &CancellationToken,
    ) -> Option<Live> {
        let mut snapshots = self.hub.subscribe();
        let grace = Instant::now() + STILL_LIVE_GRACE;
        loop {
            let current = self.live().ok();
            let until = match &current {
                Some(live) if live.generation > generation => return Some(live.clone()),
                Some(_) if Instant::now() >= grace => return None,
                Some(_) => grace.min(deadline),
                None => deadline,
            };
            let status = snapshots
                .borrow_and_update()
                .server(&self.name)
                .map(|s| s.status.clone());
            if status.as_ref().is_none_or(gave_up) {
                return None;
            }
            tokio::select! {
                changed = tokio::time::timeout_at(until, snapshots.changed()) => match changed {
                    Ok(Err(_)) => return None,
                    Err(_) if until >= deadline => return None,
                    // A new snapshot, or the grace ran out: look again.
                    Ok(Ok(())) | Err(_) => {}
                },
                () = cancel.cancelled() => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::McpError;

    #[test]
    fn only_states_without_a_scheduled_retry_give_up() {
        let failed = |retry_in| ServerStatus::Failed {
            error: McpError::UnknownServer("s".into()),
            retry_in,
        };
        assert!(gave_up(&ServerStatus::Disabled));
        assert!(gave_up(&failed(None)));
        assert!(gave_up(&ServerStatus::NeedsLogin { reason: "x".into() }));
        assert!(!gave_up(&failed(Some(Duration::from_secs(1)))));
        assert!(!gave_up(&ServerStatus::Connecting { attempt: 2 }));
        assert!(!gave_up(&ServerStatus::Disconnected {
            reason: "closed".into()
        }));
        assert!(!gave_up(&ServerStatus::Ready));
    }
}
