//! The executor's side of "Add server…": searches of the MCP Registry run in the
//! background, each after a short pause that a newer search cuts short (so typing
//! sends one search, not one a key); an install writes the person's own config file
//! through `config_write::add_server`, the same write `mcp add` does.

use std::time::{Duration, SystemTime};

use crate::registry::{self, Client};

use super::super::msg::{Msg, RegistryCmd};
use super::super::state::{Installed, RegistryMsg, RegistryPlace, Results};
use super::Executor;

/// How long typing must pause before the search goes out.
pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// The search waiting or running; dropping it stops it.
pub struct SearchTask(tokio::task::AbortHandle);

impl Drop for SearchTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Executor {
    pub(super) fn execute_registry(&mut self, cmd: RegistryCmd) -> Option<Msg> {
        match cmd {
            RegistryCmd::Search { seq, query } => {
                self.search_registry(seq, query);
                None
            }
            RegistryCmd::Install { key, server, shown } => {
                let result = match &self.state.registry_place {
                    Some(place) => install(place, &key, &server, shown),
                    None => Err("no config file to write to".to_owned()),
                };
                Some(Msg::Registry(RegistryMsg::Installed(result)))
            }
        }
    }

    /// Starts search `seq` after [`DEBOUNCE`], stopping the one before.
    fn search_registry(&mut self, seq: u64, query: String) {
        self.registry_search = None;
        let inbox = self.inbox.clone();
        let Some(place) = self.state.registry_place.clone() else {
            let result = Err("no registry configured".to_owned());
            let _ = inbox.send(Msg::Registry(RegistryMsg::Found { seq, query, result }));
            return;
        };
        let task = tokio::spawn(async move {
            tokio::time::sleep(DEBOUNCE).await;
            let result = search(&place, &query).await;
            let _ = inbox.send(Msg::Registry(RegistryMsg::Found { seq, query, result }));
        });
        self.registry_search = Some(SearchTask(task.abort_handle()));
    }
}

/// The registry's answer to `query` (the live registry and the kept list).
async fn search(place: &RegistryPlace, query: &str) -> Result<Box<Results>, String> {
    let client = Client::new(&place.url).map_err(|e| e.to_string())?;
    let found = registry::find(&client, &place.cache_dir, query, SystemTime::now())
        .await
        .map_err(|e| e.to_string())?;
    let cached = found
        .stale
        .map(|(age, error)| (registry::cache::age_text(age), error.to_string()));
    Ok(Box::new(Results {
        servers: found.servers,
        cached,
    }))
}

/// Writes `[servers.KEY]` to the person's own file (never a project's).
fn install(
    place: &RegistryPlace,
    key: &str,
    server: &crate::config::ServerConfig,
    shown: Vec<String>,
) -> Result<Installed, String> {
    let added = crate::config_write::add_server(&place.user_config, key, server)
        .map_err(|e| e.to_string())?;
    Ok(Installed {
        key: key.to_owned(),
        kind: added.kind,
        path: added.written.path.display().to_string(),
        shown,
        notes: added.written.notes,
    })
}
