//! Keeping the registry in step with the catalogs: every enabled tool of a ready server
//! is registered as an [`McpTool`]; when a catalog changes its tools are replaced, and
//! when a server is not ready its tools are removed — unless its catalog is the cached
//! one of a server that starts on demand: those tools stay registered (as cached
//! tools, whose call starts the server) while it is not running.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use super::hub::McpHub;
use super::snapshot::ServerStatus;
use super::tool::{McpTool, qualified_name, tool_enabled};
use crate::tools::Registry;

/// A catalog's version as registered: (generation, revision, cached).
type Version = (u64, u64, bool);

/// What was last registered per server: the catalog's version and the names.
#[derive(Debug, Default)]
pub struct RegistrySync {
    synced: HashMap<String, (Version, BTreeSet<String>)>,
}

/// Brings `registry` in line with the hub's current snapshot.
pub async fn sync_registry(registry: &Registry, hub: &McpHub, state: &mut RegistrySync) {
    let snapshot = hub.snapshot();
    for server in &snapshot.servers {
        let Ok(handle) = hub.server(&server.name) else {
            continue;
        };
        let cached = server.catalog.cached_at.is_some()
            && !matches!(
                server.status,
                ServerStatus::Ready | ServerStatus::Disabled | ServerStatus::NeedsLogin { .. }
            );
        let version = (server.catalog.generation, server.catalog.revision, cached);
        let ready = server.status == ServerStatus::Ready || cached;
        let previous = state.synced.get(&server.name);
        if ready && previous.is_some_and(|(v, _)| *v == version) {
            continue;
        }
        let mut names = BTreeSet::new();
        if ready {
            for tool in &server.catalog.tools {
                if !tool_enabled(&handle.config, &tool.name) {
                    continue;
                }
                let mcp = if cached {
                    McpTool::cached(handle, tool)
                } else {
                    McpTool::new(handle, tool, server.catalog.generation)
                };
                let name = qualified_name(&server.name, &tool.name);
                if let Err(e) = registry.replace(&name, Arc::new(mcp)).await {
                    tracing::warn!(server = server.name, "cannot register {name}: {e}");
                    continue;
                }
                names.insert(name);
            }
        }
        if let Some((_, old)) = previous {
            for gone in old.difference(&names) {
                registry.unregister(gone);
            }
        }
        if ready || previous.is_some() {
            state.synced.insert(server.name.clone(), (version, names));
        }
    }
}

/// Re-syncs on every snapshot change until the hub goes away.
pub fn spawn_sync(
    registry: Arc<Registry>,
    hub: McpHub,
    state: Arc<Mutex<RegistrySync>>,
) -> JoinHandle<()> {
    let mut rx = hub.subscribe();
    tokio::spawn(async move {
        // The first snapshot too: servers that start on demand publish nothing until
        // used, and their cached tools must be callable from the start.
        rx.mark_unchanged();
        loop {
            {
                let mut state = state.lock().await;
                sync_registry(&registry, &hub, &mut state).await;
            }
            if rx.changed().await.is_err() {
                break;
            }
        }
    })
}
