//! The gateway's clients: who is connected (for the Servers pane) and one
//! [`RemoteClient`] per client name (its mode and budget, shared by its connections).
//! Only a client that proved its name (`identity.rs`) gets that name's
//! `[serve.clients.NAME]`; a name a client merely declares is a label, with the
//! default policy.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use tokio::sync::watch;

use crate::config::ServeConfig;
use crate::policy::{Mode, RemoteClient};

/// One connected client, as the Servers pane lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectedClient {
    pub id: u64,
    /// The proven name, or the one from `clientInfo` (untrusted: sanitise to show).
    pub name: String,
    /// Whether the client proved `name` (a `[serve.clients.NAME]` token, or
    /// `serve --stdio --client NAME`); otherwise the name is only a label.
    pub verified: bool,
    /// `stdio` or `http`.
    pub transport: &'static str,
    pub since: SystemTime,
    /// Tool calls it made on this connection.
    pub calls: u64,
}

/// Every client of one gateway.
#[derive(Debug)]
pub struct Clients {
    modes: HashMap<String, (Option<Mode>, Option<u32>)>,
    /// By name and whether it was proven.
    remotes: Mutex<HashMap<(String, bool), Arc<RemoteClient>>>,
    connected: watch::Sender<Vec<ConnectedClient>>,
    next: AtomicU64,
}

impl Clients {
    pub fn new(config: &ServeConfig) -> Self {
        let modes = config
            .clients
            .iter()
            .map(|(name, c)| {
                let mode = c.mode.as_ref().and_then(|m| m.get_ref().parse().ok());
                (name.clone(), (mode, c.max_calls))
            })
            .collect();
        Self {
            modes,
            remotes: Mutex::default(),
            connected: watch::channel(Vec::new()).0,
            next: AtomicU64::new(0),
        }
    }

    /// The gate's view of the client called `name` (one per name): its
    /// `[serve.clients.NAME]` mode and budget when `verified`, the default policy
    /// (no mode of its own, no budget) when the name is only declared.
    pub fn remote(&self, name: &str, verified: bool) -> Arc<RemoteClient> {
        let mut remotes = self.remotes.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (name.to_owned(), verified);
        Arc::clone(remotes.entry(key).or_insert_with(|| {
            if !verified {
                return Arc::new(RemoteClient::unverified(name));
            }
            let (mode, max_calls) = self.modes.get(name).copied().unwrap_or_default();
            Arc::new(RemoteClient::new(name, mode, max_calls))
        }))
    }

    /// Whether `[serve.clients.NAME]` exists (a client may be started as NAME).
    pub fn configured(&self, name: &str) -> bool {
        self.modes.contains_key(name)
    }

    /// Records a connection; it is listed until the returned guard drops.
    pub fn connect(
        self: &Arc<Self>,
        name: &str,
        verified: bool,
        transport: &'static str,
    ) -> Connection {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        self.connected.send_modify(|list| {
            list.push(ConnectedClient {
                id,
                name: name.to_owned(),
                verified,
                transport,
                since: SystemTime::now(),
                calls: 0,
            });
        });
        Connection {
            clients: Arc::clone(self),
            id,
        }
    }

    /// The connected clients, as they change.
    pub fn subscribe(&self) -> watch::Receiver<Vec<ConnectedClient>> {
        self.connected.subscribe()
    }

    pub fn connected(&self) -> Vec<ConnectedClient> {
        self.connected.borrow().clone()
    }
}

/// A listed connection; dropping it unlists it.
#[derive(Debug)]
pub struct Connection {
    clients: Arc<Clients>,
    id: u64,
}

impl Connection {
    /// Counts one tool call.
    pub fn called(&self) {
        self.clients.connected.send_modify(|list| {
            if let Some(c) = list.iter_mut().find(|c| c.id == self.id) {
                c.calls += 1;
            }
        });
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.clients
            .connected
            .send_modify(|list| list.retain(|c| c.id != self.id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_listed_until_dropped_and_names_share_a_budget() {
        let mut config = ServeConfig::default();
        config.clients.insert(
            "desk".into(),
            crate::config::ServeClientConfig {
                mode: None,
                max_calls: Some(1),
                token_env: None,
            },
        );
        let clients = Arc::new(Clients::new(&config));
        let a = clients.connect("desk", true, "stdio");
        let b = clients.connect("other", false, "http");
        a.called();
        let listed = clients.connected();
        assert_eq!(listed.len(), 2);
        assert_eq!((listed[0].name.as_str(), listed[0].calls), ("desk", 1));
        assert!(listed[0].verified && !listed[1].verified);
        drop(a);
        assert_eq!(clients.connected().len(), 1);
        drop(b);
        assert!(clients.connected().is_empty());
        assert!(Arc::ptr_eq(
            &clients.remote("desk", true),
            &clients.remote("desk", true)
        ));
        assert!(clients.configured("desk") && !clients.configured("other"));
        assert!(clients.remote("desk", true).consume().is_ok());
        assert!(clients.remote("desk", true).consume().is_err());
    }

    #[test]
    fn a_declared_name_alone_gets_the_default_policy() {
        let mut config = ServeConfig::default();
        config.clients.insert(
            "ci".into(),
            crate::config::ServeClientConfig {
                mode: Some(toml::Spanned::new(0..0, "full-auto".into())),
                max_calls: Some(1),
                token_env: Some("SB_CI_TOKEN".into()),
            },
        );
        let clients = Clients::new(&config);
        let proven = clients.remote("ci", true);
        assert_eq!(proven.mode, Some(Mode::FullAuto));
        let declared = clients.remote("ci", false);
        assert!(!Arc::ptr_eq(&proven, &declared));
        assert_eq!(declared.mode, None);
        // No budget of its own either, and it does not spend the proven client's.
        for _ in 0..3 {
            assert!(declared.consume().is_ok());
        }
        assert!(proven.consume().is_ok());
    }
}
