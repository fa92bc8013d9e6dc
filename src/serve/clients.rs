//! The gateway's clients: who is connected (for the Servers pane) and one
//! [`RemoteClient`] per client name (its mode and budget, shared by its connections).

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
    /// From `clientInfo` (untrusted: sanitise to show).
    pub name: String,
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
    remotes: Mutex<HashMap<String, Arc<RemoteClient>>>,
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

    /// The gate's view of the client called `name` (one per name).
    pub fn remote(&self, name: &str) -> Arc<RemoteClient> {
        let mut remotes = self.remotes.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(remotes.entry(name.to_owned()).or_insert_with(|| {
            let (mode, max_calls) = self.modes.get(name).copied().unwrap_or_default();
            Arc::new(RemoteClient::new(name, mode, max_calls))
        }))
    }

    /// Records a connection; it is listed until the returned guard drops.
    pub fn connect(self: &Arc<Self>, name: &str, transport: &'static str) -> Connection {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        self.connected.send_modify(|list| {
            list.push(ConnectedClient {
                id,
                name: name.to_owned(),
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
        let a = clients.connect("desk", "stdio");
        let b = clients.connect("other", "http");
        a.called();
        let listed = clients.connected();
        assert_eq!(listed.len(), 2);
        assert_eq!((listed[0].name.as_str(), listed[0].calls), ("desk", 1));
        drop(a);
        assert_eq!(clients.connected().len(), 1);
        drop(b);
        assert!(clients.connected().is_empty());
        assert!(Arc::ptr_eq(
            &clients.remote("desk"),
            &clients.remote("desk")
        ));
        assert!(clients.remote("desk").consume().is_ok());
        assert!(clients.remote("desk").consume().is_err());
    }
}
