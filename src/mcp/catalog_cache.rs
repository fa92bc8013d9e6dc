//! The catalog cache of on-demand servers (`start = "on_demand"`): after each
//! successful listing a server's catalog (tools, resources, templates, prompts — no
//! environment, no headers) is written to one file, and a server not started yet
//! shows (and offers the model) that catalog until it starts.
//!
//! A file is keyed by the server's name and a hash of what decides which program or
//! endpoint it is (`command`, `args`, `cwd`, `url`, `type`, `protocol`, the names of
//! its `env` variables and `headers` — never their values): a changed command does not
//! use a stale catalog.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::catalog::{
    CatalogPrompt, CatalogResource, CatalogSnapshot, CatalogTemplate, CatalogTool,
};
use crate::config::ServerConfig;

/// The file format; a file of another one is not read.
const FORMAT: u32 = 1;

/// Why a catalog could not be cached.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cannot write the catalog cache {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot encode the catalog of {server}: {source}")]
    Encode {
        server: String,
        source: serde_json::Error,
    },
}

/// One cached catalog, as written.
#[derive(Debug, Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    server: String,
    key: String,
    /// When the server listed it, in milliseconds since the Unix epoch.
    listed_at_ms: u64,
    tools: Vec<CatalogTool>,
    resources: Vec<CatalogResource>,
    templates: Vec<CatalogTemplate>,
    prompts: Vec<CatalogPrompt>,
}

/// The key of `name`'s catalog under `config`: 16 hex digits of a SHA-256 over the
/// name and what says which server it is.
pub fn cache_key(name: &str, config: &ServerConfig) -> String {
    let mut hash = Sha256::new();
    let mut field = |label: &str, value: &str| {
        hash.update(label.as_bytes());
        hash.update([0]);
        hash.update(value.len().to_le_bytes());
        hash.update(value.as_bytes());
    };
    field("name", name);
    field("command", config.command.as_deref().unwrap_or_default());
    for arg in &config.args {
        field("arg", arg);
    }
    let cwd = config.cwd.as_ref().map(|c| c.display().to_string());
    field("cwd", cwd.as_deref().unwrap_or_default());
    field("url", config.url.as_deref().unwrap_or_default());
    field("type", config.transport.as_deref().unwrap_or_default());
    field("protocol", config.protocol.unwrap_or_default().as_str());
    for key in config.env.keys() {
        field("env", key);
    }
    for key in config.headers.keys() {
        field("header", key);
    }
    hash.finalize()
        .iter()
        .take(8)
        .fold(String::with_capacity(16), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

/// Where catalogs are cached (`$XDG_STATE_HOME/switchboard/catalogs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogCache {
    dir: PathBuf,
}

impl CatalogCache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `name`'s catalog under `config`: the name made file-safe (the key
    /// tells names apart that become the same), then the key.
    pub fn path(&self, name: &str, config: &ServerConfig) -> PathBuf {
        let safe: String = name
            .chars()
            .take(64)
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.dir
            .join(format!("{safe}-{}.json", cache_key(name, config)))
    }

    /// The cached catalog of `name` under `config`, marked as cached with the time it
    /// was listed; none when there is none (or it cannot be read, or is of another
    /// server or config).
    pub fn load(&self, name: &str, config: &ServerConfig) -> Option<CatalogSnapshot> {
        let path = self.path(name, config);
        let text = std::fs::read(&path).ok()?;
        let file: CacheFile = match serde_json::from_slice(&text) {
            Ok(file) => file,
            Err(e) => {
                tracing::debug!(
                    server = name,
                    "catalog cache {} unreadable: {e}",
                    path.display()
                );
                return None;
            }
        };
        if file.format != FORMAT || file.server != name || file.key != cache_key(name, config) {
            return None;
        }
        let listed_at = SystemTime::UNIX_EPOCH + Duration::from_millis(file.listed_at_ms);
        Some(CatalogSnapshot {
            tools: file.tools,
            resources: file.resources,
            templates: file.templates,
            prompts: file.prompts,
            cached_at: Some(listed_at),
            ..CatalogSnapshot::default()
        })
    }

    /// Writes `catalog` as `name`'s, listed at `listed_at` (0600, replaced whole).
    pub fn store(
        &self,
        name: &str,
        config: &ServerConfig,
        catalog: &CatalogSnapshot,
        listed_at: SystemTime,
    ) -> Result<(), CacheError> {
        let file = CacheFile {
            format: FORMAT,
            server: name.to_owned(),
            key: cache_key(name, config),
            listed_at_ms: listed_at
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            tools: catalog.tools.clone(),
            resources: catalog.resources.clone(),
            templates: catalog.templates.clone(),
            prompts: catalog.prompts.clone(),
        };
        let text = serde_json::to_vec(&file).map_err(|source| CacheError::Encode {
            server: name.to_owned(),
            source,
        })?;
        let path = self.path(name, config);
        let write = |path: &Path| {
            std::fs::create_dir_all(&self.dir)?;
            crate::paths::write_atomic(path, &text)
        };
        write(&path).map_err(|source| CacheError::Write { path, source })
    }
}

/// `cached 2 h ago` for a catalog listed at `at`, seen at `now`.
pub fn cached_age(at: SystemTime, now: SystemTime) -> String {
    let secs = now.duration_since(at).unwrap_or_default().as_secs();
    let age = match secs {
        0..60 => format!("{secs} s"),
        60..3_600 => format!("{} min", secs / 60),
        3_600..86_400 => format!("{} h", secs / 3_600),
        _ => format!("{} d", secs / 86_400),
    };
    format!("cached {age} ago")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn stdio(command: &str) -> ServerConfig {
        ServerConfig {
            command: Some(command.into()),
            args: vec!["--x".into()],
            ..ServerConfig::default()
        }
    }

    #[test]
    fn the_key_follows_what_the_server_is_and_never_secret_values() {
        let base = stdio("npx");
        let key = cache_key("files", &base);
        assert_eq!(key.len(), 16);
        assert_eq!(key, cache_key("files", &base.clone()));
        assert_ne!(key, cache_key("other", &base));
        assert_ne!(key, cache_key("files", &stdio("uvx")));
        let mut args = base.clone();
        args.args.push("--y".into());
        assert_ne!(key, cache_key("files", &args));
        // A secret's value changes nothing (it is never hashed); a new variable does.
        let mut secret = base.clone();
        secret.env = BTreeMap::from([("TOKEN".into(), "one".into())]);
        let mut other_secret = secret.clone();
        other_secret.env.insert("TOKEN".into(), "two".into());
        assert_eq!(
            cache_key("files", &secret),
            cache_key("files", &other_secret)
        );
        assert_ne!(key, cache_key("files", &secret));
        // Tuning keys do not change which server it is.
        let mut tuned = base.clone();
        tuned.tool_timeout = Some(5.0);
        tuned.idle_timeout = Some(60.0);
        assert_eq!(key, cache_key("files", &tuned));
    }

    #[test]
    fn a_stored_catalog_loads_as_cached_and_only_for_its_config() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CatalogCache::new(dir.path().join("catalogs"));
        let mut config = stdio("server");
        config.env = BTreeMap::from([("SECRET".into(), "hunter2".into())]);
        config.headers = BTreeMap::from([("X-Key".into(), "s3cret".into())]);
        let tool = super::super::catalog::tool_from_wire(&serde_json::json!({
            "name": "echo", "annotations": {"readOnlyHint": true}
        }))
        .unwrap();
        let catalog = CatalogSnapshot {
            tools: vec![tool],
            generation: 3,
            revision: 9,
            ..CatalogSnapshot::default()
        };
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert!(cache.load("srv", &config).is_none());
        cache.store("srv", &config, &catalog, at).unwrap();
        let text = std::fs::read_to_string(cache.path("srv", &config)).unwrap();
        assert!(!text.contains("hunter2") && !text.contains("s3cret") && !text.contains("SECRET"));
        let loaded = cache.load("srv", &config).unwrap();
        assert_eq!(loaded.cached_at, Some(at));
        assert_eq!(loaded.tools, catalog.tools);
        assert_eq!(loaded.generation, 0);
        assert!(cache.load("srv", &stdio("changed")).is_none());
        assert!(cache.load("other", &config).is_none());
        // Another name that becomes the same file name is told apart by its key.
        assert_ne!(cache.path("a.b", &config), cache.path("a_b", &config));
    }

    #[test]
    fn ages_read_in_the_largest_unit() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let after = |s| t0 + Duration::from_secs(s);
        assert_eq!(cached_age(t0, after(5)), "cached 5 s ago");
        assert_eq!(cached_age(t0, after(150)), "cached 2 min ago");
        assert_eq!(cached_age(t0, after(7_300)), "cached 2 h ago");
        assert_eq!(cached_age(t0, after(200_000)), "cached 2 d ago");
        assert_eq!(cached_age(after(10), t0), "cached 0 s ago");
    }
}
