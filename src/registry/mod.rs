//! The MCP Registry (its v0.1 read API): the client (`client`), the JSON it speaks
//! (`types`), a local copy of the whole list searched by name, title and description
//! (`cache`, `search`), and turning an entry into a `[servers.NAME]` entry (`plan`).
//! `cli/mcp/registry_cmd.rs` is its front end (`mcp search`, `mcp install`).

pub mod cache;
pub mod client;
pub mod plan;
pub mod search;
pub mod types;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

pub use cache::{Cache, Listing};
pub use client::Client;
pub use plan::{Answers, Choice, Flag, Plan, PlanError, Question, Secret};
pub use types::{ServerJson, ServerResponse, Status};

/// What went wrong talking to a registry; each message names the registry.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("{url:?} is not a registry URL: {why}")]
    BadUrl { url: String, why: String },
    #[error("the registry at {url} could not be reached: {why}")]
    Unreachable { url: String, why: String },
    #[error("the registry at {url} answered {status}: {message}")]
    Status {
        url: String,
        status: u16,
        message: String,
    },
    #[error("no server named `{name}` in the registry at {url}")]
    NotFound { url: String, name: String },
    #[error("the registry at {url} sent what is not its v0.1 JSON: {why}")]
    Decode { url: String, why: String },
    #[error("the registry at {url} kept sending pages ({pages}); stopped")]
    TooManyPages { url: String, pages: usize },
    #[error("the registry cache {}: {why}", path.display())]
    Cache { path: PathBuf, why: String },
}

/// What a search found, best first, and how old the list it read is when the
/// registry could not be reached.
#[derive(Debug)]
pub struct Found {
    pub servers: Vec<ServerResponse>,
    /// `Some((age, why))`: read from the kept copy, synced `age` ago.
    pub stale: Option<(Duration, RegistryError)>,
}

/// Searches the registry: its own name search, and the kept copy of the whole list
/// (brought up to date first) for titles and descriptions. Deleted entries are left
/// out. When the registry cannot be reached, the kept copy answers alone, saying its
/// age; without one, the error.
pub async fn find(
    client: &Client,
    cache_dir: &Path,
    query: &str,
    now: SystemTime,
) -> Result<Found, RegistryError> {
    let path = cache::path_for(cache_dir, client.url());
    let live = if query.trim().is_empty() {
        Ok(Vec::new())
    } else {
        client
            .page(&client::PageQuery {
                search: Some(query.trim()),
                ..client::PageQuery::default()
            })
            .await
            .map(|page| page.servers)
    };
    let (live, listing) = match live {
        Ok(live) => (live, cache::sync(client, &path, now).await?),
        Err(error) => match cache::load(&path).filter(|c| c.registry == client.url()) {
            Some(cache) => (Vec::new(), Listing::Stale { cache, error }),
            None => return Err(error),
        },
    };
    let kept = listing.cache().servers.values();
    let servers = search::search(live.iter().chain(kept), query)
        .into_iter()
        .cloned()
        .collect();
    let stale = match listing {
        Listing::Fresh(_) => None,
        Listing::Stale { cache, error } => Some((cache.age(now), error)),
    };
    Ok(Found { servers, stale })
}
