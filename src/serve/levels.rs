//! `logging/setLevel` from several clients at once. The servers upstream are asked
//! for the most verbose level any connected client asked for, never for less than
//! switchboard's own level (`info` at start, or what the TUI's Logs pane chose), so
//! one terse client cannot silence the others; when the clients that asked leave,
//! that level is restored. Each client still gets only the messages at or above its
//! own level (`notify.rs`).

use std::collections::BTreeMap;

use super::notify::{LEVELS, rank};
use crate::mcp::McpHub;

/// What the gateway asked the hub for, shared by every connection.
#[derive(Debug, Default)]
pub(super) struct LogLevels {
    state: tokio::sync::Mutex<Levels>,
}

/// Levels as ranks (0 debug … 7 emergency).
#[derive(Debug, Default)]
struct Levels {
    /// Each connection's level.
    wanted: BTreeMap<u64, usize>,
    /// The hub's own level, read before the gateway first changed it.
    own: usize,
    /// The level the gateway set upstream, while it differs from `own`.
    sent: Option<usize>,
}

impl Levels {
    /// Records that connection `id` wants `level` (`None`: it left) and returns the
    /// level to ask the servers for, if that changes. `own` reads the hub's level; it
    /// is only read while the gateway has not changed it.
    fn want(
        &mut self,
        id: u64,
        level: Option<usize>,
        own: impl FnOnce() -> usize,
    ) -> Option<usize> {
        match level {
            Some(level) => self.wanted.insert(id, level),
            None => self.wanted.remove(&id),
        };
        if self.sent.is_none() {
            self.own = own();
        }
        let target = self
            .wanted
            .values()
            .copied()
            .min()
            .map_or(self.own, |most| most.min(self.own));
        if target == self.sent.unwrap_or(self.own) {
            return None;
        }
        self.sent = (target != self.own).then_some(target);
        Some(target)
    }
}

impl LogLevels {
    /// Connection `id` asked for `level` (`None`: it left); the servers are asked
    /// for the resulting level before this returns.
    pub(super) async fn set(&self, hub: &McpHub, id: u64, level: Option<usize>) {
        // Held across the request: two clients' changes reach the servers in order.
        let mut levels = self.state.lock().await;
        let Some(target) = levels.want(id, level, || rank(&hub.log_level())) else {
            return;
        };
        let level = LEVELS.get(target).copied().unwrap_or("info");
        match hub.set_log_level(level).await {
            Ok(asked) => tracing::debug!(level, ?asked, "serve: log level passed upstream"),
            Err(e) => tracing::debug!("serve: log level not passed upstream: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEBUG: usize = 0;
    const INFO: usize = 1;
    const ERROR: usize = 4;

    #[test]
    fn the_most_verbose_wish_goes_upstream_and_leaving_restores_the_own_level() {
        let mut levels = Levels::default();
        // Quieter than switchboard's own level: nothing to ask.
        assert_eq!(levels.want(1, Some(ERROR), || INFO), None);
        assert_eq!(levels.want(2, Some(DEBUG), || INFO), Some(DEBUG));
        // The terse client asking again changes nothing; the hub is not read.
        assert_eq!(levels.want(1, Some(ERROR), || unreachable!()), None);
        // The verbose client leaves: back to the own level.
        assert_eq!(levels.want(2, None, || unreachable!()), Some(INFO));
        assert_eq!(levels.want(1, None, || INFO), None);
        // The own level is read afresh once the gateway has restored it.
        assert_eq!(levels.want(3, Some(INFO), || DEBUG), None);
    }
}
