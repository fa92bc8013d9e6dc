//! A serve client's own limits: a mode that replaces the policy's mode for its calls,
//! and a call budget for everything it calls (`[serve.clients.NAME]`).

use std::sync::atomic::{AtomicU32, Ordering};

use super::mode::Mode;

/// A client of `switchboard serve`, as the gate sees it. Shared by every connection
/// of clients with the same name, so the budget counts them all.
#[derive(Debug)]
pub struct RemoteClient {
    /// The name the client gave in `clientInfo`.
    pub name: String,
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
    pub fn new(name: impl Into<String>, mode: Option<Mode>, max_calls: Option<u32>) -> Self {
        Self {
            name: name.into(),
            mode,
            max_calls,
            used: AtomicU32::new(0),
        }
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
    }
}
