//! A serve client's own limits: a mode that replaces the policy's mode for its calls,
//! and a call budget for everything it calls (`[serve.clients.NAME]`).

use std::sync::atomic::{AtomicU32, Ordering};

use super::mode::Mode;

/// A client of `switchboard serve`, as the gate sees it. Shared by every connection
/// of clients with the same name, so the budget counts them all.
#[derive(Debug)]
pub struct RemoteClient {
    /// The name it proved (a `[serve.clients.NAME]`), or the one it gave in
    /// `clientInfo`.
    pub name: String,
    /// Whether it proved `name`; otherwise the name is only its label.
    pub verified: bool,
    /// `name`, or `NAME (unverified)`: how people are told who asks.
    shown: String,
    /// `[serve.clients.NAME] mode`: decides in place of `[policy] mode`.
    pub mode: Option<Mode>,
    max_calls: Option<u32>,
    used: AtomicU32,
}

/// The client's budget is spent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "serve client {client:?} has used its budget of {limit} call{s} ([serve.clients.{client}] max_calls)",
    s = if *limit == 1 { "" } else { "s" }
)]
pub struct ClientBudgetSpent {
    pub client: String,
    pub limit: u32,
}

impl RemoteClient {
    /// The client that proved it is `[serve.clients.NAME]`, with that mode and budget.
    pub fn new(name: impl Into<String>, mode: Option<Mode>, max_calls: Option<u32>) -> Self {
        let name = name.into();
        Self {
            shown: name.clone(),
            name,
            verified: true,
            mode,
            max_calls,
            used: AtomicU32::new(0),
        }
    }

    /// A client known only by the name it declared: the default policy.
    pub fn unverified(name: impl Into<String>) -> Self {
        let name = name.into();
        Self {
            shown: format!("{name} (unverified)"),
            verified: false,
            ..Self::new(name, None, None)
        }
    }

    /// The name for people: `NAME (unverified)` when it was only declared.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether the client may still call (does not count the call).
    pub fn check(&self) -> Result<(), ClientBudgetSpent> {
        match self.max_calls {
            Some(limit) if self.used.load(Ordering::SeqCst) >= limit => Err(self.spent(limit)),
            _ => Ok(()),
        }
    }

    /// Counts one call, or fails when the budget is spent.
    pub fn consume(&self) -> Result<(), ClientBudgetSpent> {
        let Some(limit) = self.max_calls else {
            return Ok(());
        };
        self.used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < limit).then_some(n + 1)
            })
            .map(drop)
            .map_err(|_| self.spent(limit))
    }

    /// Calls counted so far.
    pub fn used(&self) -> u32 {
        self.used.load(Ordering::SeqCst)
    }

    fn spent(&self, limit: u32) -> ClientBudgetSpent {
        ClientBudgetSpent {
            client: self.name.clone(),
            limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_counts_calls_until_spent() {
        let client = RemoteClient::new("desk", None, Some(2));
        assert!(client.check().is_ok());
        assert!(client.consume().is_ok());
        assert!(client.consume().is_ok());
        let spent = client.consume().unwrap_err();
        assert_eq!(client.check().unwrap_err(), spent);
        assert_eq!(client.used(), 2);
        assert!(
            spent.to_string().contains("[serve.clients.desk] max_calls"),
            "{spent}"
        );
        let free = RemoteClient::new("any", None, None);
        assert!(free.consume().is_ok());
        assert_eq!((free.shown(), free.verified), ("any", true));
        let label = RemoteClient::unverified("ci");
        assert_eq!(
            (label.shown(), label.name.as_str()),
            ("ci (unverified)", "ci")
        );
        assert!(!label.verified && label.mode.is_none() && label.consume().is_ok());
    }
}
