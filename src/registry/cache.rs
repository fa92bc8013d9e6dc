//! The local copy of a registry's whole list (the latest version of every server),
//! one file per registry under the cache directory. The first sync reads every page;
//! later ones ask only for what was updated since the last sync (`updated_since`) and
//! put it over what is kept. Search reads this copy, so it finds words in titles and
//! descriptions, which the registry's own `search` does not look at.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::RegistryError;
use super::client::{Client, PageQuery};
use super::types::ServerResponse;

/// Pages one sync may read before it gives up (100 servers a page).
pub const MAX_PAGES: usize = 1_000;

/// How far before the last sync `updated_since` reaches back, for clocks that differ.
const OVERLAP: Duration = Duration::from_secs(300);

/// One registry's list as kept on disk.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Cache {
    /// The registry's URL.
    pub registry: String,
    /// When the list was last read from the registry, in seconds since 1970.
    pub synced_at: u64,
    /// The latest version of each server, by name.
    pub servers: BTreeMap<String, ServerResponse>,
}

impl Cache {
    /// How long ago it was synced.
    pub fn age(&self, now: SystemTime) -> Duration {
        let now = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        Duration::from_secs(now.saturating_sub(self.synced_at))
    }
}

/// A list to search: fresh from the registry, or the kept copy when the registry
/// could not be read (with why).
#[derive(Debug)]
pub enum Listing {
    Fresh(Cache),
    Stale { cache: Cache, error: RegistryError },
}

impl Listing {
    pub fn cache(&self) -> &Cache {
        match self {
            Self::Fresh(cache) | Self::Stale { cache, .. } => cache,
        }
    }
}

/// The cache file for the registry at `url` in `dir`: its host, for people looking,
/// and a hash of the whole URL, so two registries never share a file.
pub fn path_for(dir: &Path, url: &str) -> PathBuf {
    let host: String = reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let hash = Sha256::digest(url.trim_end_matches('/').as_bytes());
    let short = hash.iter().take(6).fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    });
    dir.join(format!("{host}-{short}.json"))
}

/// The kept copy, if there is a readable one.
pub fn load(path: &Path) -> Option<Cache> {
    let text = std::fs::read(path).ok()?;
    match serde_json::from_slice(&text) {
        Ok(cache) => Some(cache),
        Err(e) => {
            tracing::warn!(
                "{}: unreadable registry cache, read again: {e}",
                path.display()
            );
            None
        }
    }
}

/// Writes the copy (atomically, creating the folder).
pub fn save(path: &Path, cache: &Cache) -> Result<(), RegistryError> {
    let failed = |e: std::io::Error| RegistryError::Cache {
        path: path.to_owned(),
        why: e.to_string(),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let text = serde_json::to_vec(cache).map_err(|e| RegistryError::Cache {
        path: path.to_owned(),
        why: e.to_string(),
    })?;
    crate::paths::write_atomic(path, text).map_err(failed)
}

/// Brings the copy at `path` up to date from `client` and saves it. When the
/// registry cannot be read, the kept copy comes back as [`Listing::Stale`]; without
/// one, the error.
pub async fn sync(client: &Client, path: &Path, now: SystemTime) -> Result<Listing, RegistryError> {
    let kept = load(path).filter(|c| c.registry == client.url());
    let since = kept.as_ref().map(|c| {
        let at = UNIX_EPOCH + Duration::from_secs(c.synced_at);
        crate::policy::rfc3339(at.checked_sub(OVERLAP).unwrap_or(UNIX_EPOCH))
    });
    let updated = match read_all(client, since.as_deref()).await {
        Ok(updated) => updated,
        Err(error) => {
            return match kept {
                Some(cache) => Ok(Listing::Stale { cache, error }),
                None => Err(error),
            };
        }
    };
    let mut cache = kept.unwrap_or_else(|| Cache {
        registry: client.url().to_owned(),
        ..Cache::default()
    });
    cache.synced_at = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    for entry in updated {
        cache.servers.insert(entry.server.name.clone(), entry);
    }
    if let Err(e) = save(path, &cache) {
        tracing::warn!("{e}");
    }
    Ok(Listing::Fresh(cache))
}

/// Every page of the list (updated since `since`, when given), following `nextCursor`.
pub async fn read_all(
    client: &Client,
    since: Option<&str>,
) -> Result<Vec<ServerResponse>, RegistryError> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let page = client
            .page(&PageQuery {
                cursor: cursor.as_deref(),
                search: None,
                updated_since: since,
            })
            .await?;
        let empty = page.servers.is_empty();
        out.extend(page.servers);
        match page.metadata.next_cursor.filter(|c| !c.is_empty()) {
            Some(next) if !empty && cursor.as_deref() != Some(next.as_str()) => {
                cursor = Some(next);
            }
            _ => return Ok(out),
        }
    }
    Err(RegistryError::TooManyPages {
        url: client.url().to_owned(),
        pages: MAX_PAGES,
    })
}

/// `3 h`, `12 min`, `2 d`: how old a copy is, roughly.
pub fn age_text(age: Duration) -> String {
    let secs = age.as_secs();
    match secs {
        0..60 => "under a minute".into(),
        60..3_600 => format!("{} min", secs / 60),
        3_600..86_400 => format!("{} h", secs / 3_600),
        _ => format!("{} d", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_per_registry() {
        let dir = Path::new("/c");
        let a = path_for(dir, "https://registry.modelcontextprotocol.io");
        assert!(
            a.to_string_lossy()
                .starts_with("/c/registry.modelcontextprotocol.io-"),
            "{a:?}"
        );
        assert_eq!(
            a,
            path_for(dir, "https://registry.modelcontextprotocol.io/")
        );
        assert_ne!(
            a,
            path_for(dir, "https://registry.modelcontextprotocol.io/other")
        );
    }

    #[test]
    fn ages_read_as_people_say_them() {
        assert_eq!(age_text(Duration::from_secs(5)), "under a minute");
        assert_eq!(age_text(Duration::from_secs(600)), "10 min");
        assert_eq!(age_text(Duration::from_secs(3 * 3_600 + 5)), "3 h");
        assert_eq!(age_text(Duration::from_secs(2 * 86_400)), "2 d");
    }

    #[test]
    fn a_saved_copy_loads_again() {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("sub/r.json");
        let mut cache = Cache {
            registry: "http://x".into(),
            synced_at: 7,
            ..Cache::default()
        };
        cache
            .servers
            .insert("a/b".into(), ServerResponse::default());
        save(&path, &cache).unwrap();
        assert_eq!(load(&path), Some(cache));
        std::fs::write(&path, "garbage").unwrap();
        assert_eq!(load(&path), None);
    }
}
