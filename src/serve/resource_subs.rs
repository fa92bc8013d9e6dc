//! Resource subscriptions of the gateway's clients (`resources/subscribe` in a
//! 2025-11-25 session, a `subscriptions/listen` filter's `resourceSubscriptions` in
//! 2026-07-28): each (server, URI) is subscribed upstream once while any connection
//! wants it, and each `notifications/resources/updated` goes only to the connections
//! that asked for that URI.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

/// A server and a URI it serves.
pub type Key = (String, String);

#[derive(Debug, Default)]
pub struct ResourceSubs(Mutex<HashMap<Key, HashSet<u64>>>);

impl ResourceSubs {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, HashSet<u64>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `connection` wants `key`; true when it is the first (subscribe upstream).
    pub fn add(&self, key: &Key, connection: u64) -> bool {
        let mut subs = self.lock();
        let wanting = subs.entry(key.clone()).or_default();
        let first = wanting.is_empty();
        wanting.insert(connection);
        first
    }

    /// `connection` no longer wants `key`; true when nobody does now (unsubscribe
    /// upstream).
    pub fn remove(&self, key: &Key, connection: u64) -> bool {
        let mut subs = self.lock();
        let Some(wanting) = subs.get_mut(key) else {
            return false;
        };
        let had = wanting.remove(&connection);
        if had && wanting.is_empty() {
            subs.remove(key);
            return true;
        }
        false
    }

    /// `connection` is gone: what it held, less what others still want.
    pub fn leave(&self, connection: u64) -> Vec<Key> {
        let mut subs = self.lock();
        let mut unwanted = Vec::new();
        subs.retain(|key, wanting| {
            if wanting.remove(&connection) && wanting.is_empty() {
                unwanted.push(key.clone());
                return false;
            }
            true
        });
        unwanted
    }

    /// Whether `connection` asked to hear about `uri` on `server`.
    pub fn wants(&self, connection: u64, server: &str, uri: &str) -> bool {
        self.lock()
            .get(&(server.to_owned(), uri.to_owned()))
            .is_some_and(|w| w.contains(&connection))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(uri: &str) -> Key {
        ("t".to_owned(), uri.to_owned())
    }

    #[test]
    fn upstream_once_while_anyone_wants_it() {
        let subs = ResourceSubs::default();
        assert!(subs.add(&key("a"), 1));
        assert!(!subs.add(&key("a"), 2));
        assert!(!subs.add(&key("a"), 2));
        assert!(subs.wants(2, "t", "a") && !subs.wants(3, "t", "a"));
        assert!(!subs.remove(&key("a"), 1));
        assert!(!subs.remove(&key("a"), 9), "never wanted it");
        assert!(subs.remove(&key("a"), 2));
        assert!(!subs.wants(2, "t", "a"));
    }

    #[test]
    fn a_connection_that_leaves_gives_up_only_what_nobody_else_wants() {
        let subs = ResourceSubs::default();
        subs.add(&key("a"), 1);
        subs.add(&key("b"), 1);
        subs.add(&key("b"), 2);
        assert_eq!(subs.leave(1), vec![key("a")]);
        assert!(subs.wants(2, "t", "b"));
        assert!(subs.leave(1).is_empty());
    }
}
