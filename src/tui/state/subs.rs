//! Subscribed resources and which changed since read.

use std::collections::BTreeSet;

/// (server, uri) pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subscriptions {
    /// Subscribed (as the server confirmed).
    pub on: BTreeSet<(String, String)>,
    /// Changed since last read.
    pub changed: BTreeSet<(String, String)>,
}

impl Subscriptions {
    pub fn is_on(&self, server: &str, uri: &str) -> bool {
        self.on.contains(&(server.to_owned(), uri.to_owned()))
    }

    pub fn is_changed(&self, server: &str, uri: &str) -> bool {
        self.changed.contains(&(server.to_owned(), uri.to_owned()))
    }
}
