//! Where OAuth tokens live: one JSON file per server URL under
//! `$XDG_STATE_HOME/switchboard/oauth/`, the directory 0700 and every file 0600.
//!
//! A file store is the only store. The OS keyring does not fit: on Linux the
//! `keyring` crate's Secret Service backend needs a D-Bus session with an unlocked
//! collection (a desktop login), which SSH sessions, CI and containers lack (this
//! machine has no session bus), and its kernel-keyutils backend forgets everything
//! at logout. Tokens that vanish or a
//! login that fails over SSH would defeat "log in once".
//!
//! Each record holds the server URL and rmcp's `StoredCredentials`, which carry the
//! issuer that minted the token: rmcp uses a record only with that issuer and drops it
//! when the resource names another authorization server (migration), so the effective
//! key is (server URL, issuer).

use std::fmt::Write as _;
use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use rmcp::transport::auth::{AuthError, StoredCredentials};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::paths::{APP_DIR, Dirs};

/// `$XDG_STATE_HOME/switchboard/oauth`.
pub fn token_dir(dirs: &Dirs) -> PathBuf {
    dirs.state_home.join(APP_DIR).join("oauth")
}

/// The token file could not be read, written or removed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a token record: {source}")]
    NotARecord {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error(transparent)]
    Encode(#[from] serde_json::Error),
    /// A step of writing the record (`what` says which).
    #[error("cannot {what}: {source}")]
    Write {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot remove {path}: {source}")]
    Remove {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What is kept for one server.
#[derive(Clone, Serialize, Deserialize)]
struct Record {
    server_url: String,
    credentials: StoredCredentials,
}

/// rmcp's `CredentialStore` over one file.
#[derive(Debug, Clone)]
pub struct FileCredentialStore {
    server_url: String,
    path: PathBuf,
}

impl FileCredentialStore {
    /// The store of the server at `server_url`, in `dir`.
    pub fn new(dir: &Path, server_url: &str) -> Self {
        let digest = Sha256::digest(server_url.as_bytes());
        let name = digest.iter().take(12).fold(String::new(), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        });
        Self {
            server_url: server_url.to_owned(),
            path: dir.join(format!("{name}.json")),
        }
    }

    /// The store of `server_url` under the process's state directory.
    pub fn for_server(server_url: &str) -> Self {
        Self::new(&token_dir(&Dirs::from_env()), server_url)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored credentials, if any (synchronous, for status displays).
    pub fn read(&self) -> Result<Option<StoredCredentials>, StoreError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(StoreError::Read {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        let record: Record =
            serde_json::from_str(&text).map_err(|source| StoreError::NotARecord {
                path: self.path.clone(),
                source,
            })?;
        Ok((record.server_url == self.server_url).then_some(record.credentials))
    }

    /// Writes the record: a 0600 temporary file in a 0700 directory, renamed into
    /// place, so a reader never sees half a file and nobody else can read it.
    pub fn write(&self, credentials: StoredCredentials) -> Result<(), StoreError> {
        let fail = |what: &'static str, source: std::io::Error| StoreError::Write { what, source };
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| fail("create the token directory", e))?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| fail("protect the token directory", e))?;
        let record = Record {
            server_url: self.server_url.clone(),
            credentials,
        };
        let text = serde_json::to_vec_pretty(&record)?;
        let temp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temp)
            .map_err(|e| fail("create the token file", e))?;
        file.write_all(&text)
            .and_then(|()| file.sync_all())
            .map_err(|e| fail("write the token file", e))?;
        std::fs::rename(&temp, &self.path).map_err(|e| fail("replace the token file", e))
    }

    /// Forgets the tokens; true when there were some.
    pub fn remove(&self) -> Result<bool, StoreError> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(StoreError::Remove {
                path: self.path.clone(),
                source,
            }),
        }
    }
}

#[async_trait]
impl rmcp::transport::auth::CredentialStore for FileCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.read()
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.write(credentials)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.remove()
            .map(|_| ())
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials() -> StoredCredentials {
        StoredCredentials::new("client-1".into(), None, vec!["read".into()], Some(1))
            .with_issuer(Some("https://as.example".into()))
    }

    #[test]
    fn files_are_private_and_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let oauth = dir.path().join("state/oauth");
        let store = FileCredentialStore::new(&oauth, "https://mcp.example/mcp");
        assert!(store.read().unwrap().is_none());
        store.write(credentials()).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(store.path()), 0o600);
        assert_eq!(mode(&oauth), 0o700);
        let back = store.read().unwrap().unwrap();
        assert_eq!(back.client_id, "client-1");
        assert_eq!(back.issuer.as_deref(), Some("https://as.example"));
        assert!(store.remove().unwrap());
        assert!(!store.remove().unwrap());
    }

    #[test]
    fn each_server_url_has_its_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = FileCredentialStore::new(dir.path(), "https://a.example/mcp");
        let b = FileCredentialStore::new(dir.path(), "https://b.example/mcp");
        assert_ne!(a.path(), b.path());
        a.write(credentials()).unwrap();
        assert!(b.read().unwrap().is_none());
    }
}
