//! What the person decided about each project file, kept in the user's state
//! directory (`$XDG_STATE_HOME/switchboard/trust.json`, 0600).
//!
//! A decision is pinned to the file's canonical path and the SHA-256 of its bytes: any
//! edit makes the file undecided again, so the next start asks again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

/// What the person said of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// Its servers, hooks, providers and policy apply.
    Trusted,
    /// Only its cosmetic keys apply; not asked again until it changes.
    Ignored,
}

/// Where a file stands now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Decided, and unchanged since.
    Decided(Decision),
    /// Decided once, then edited: undecided again.
    Changed(Decision),
    /// Never decided.
    New,
}

impl State {
    pub fn is_trusted(self) -> bool {
        self == Self::Decided(Decision::Trusted)
    }

    /// Whether the person should be asked (the TUI asks; headless commands ignore).
    pub fn needs_asking(self) -> bool {
        !matches!(self, Self::Decided(_))
    }

    /// `trusted`, `ignored`, `changed since trusted`, `not trusted`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Decided(Decision::Trusted) => "trusted",
            Self::Decided(Decision::Ignored) => "ignored",
            Self::Changed(Decision::Trusted) => "changed since trusted: not trusted",
            Self::Changed(Decision::Ignored) => "changed since ignored: not trusted",
            Self::New => "not trusted",
        }
    }
}

/// One decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The file's canonical path.
    pub file: PathBuf,
    /// The folder it configures.
    pub folder: PathBuf,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
    pub decision: Decision,
    /// Seconds since the Unix epoch.
    pub at: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StoreFile {
    version: u32,
    files: Vec<Record>,
}

/// The decisions, read once; [`TrustStore::decide`] and [`TrustStore::revoke`] write
/// the file back at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
    records: Vec<Record>,
    /// Why the file could not be read (it is then taken as empty: nothing trusted).
    pub problem: Option<String>,
}

/// The hex SHA-256 of `bytes`.
pub fn fingerprint(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            use std::fmt::Write as _;
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The canonical form of `path`, or `path` itself when it cannot be resolved.
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

impl TrustStore {
    /// Reads `path`; a missing file is an empty store, an unreadable or corrupt one
    /// too, with [`TrustStore::problem`] saying why.
    pub fn open(path: PathBuf) -> Self {
        let (records, problem) = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<StoreFile>(&bytes) {
                Ok(file) => (file.files, None),
                Err(e) => (
                    Vec::new(),
                    Some(format!("{}: {e}; nothing is trusted", path.display())),
                ),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), None),
            Err(e) => (
                Vec::new(),
                Some(format!("{}: {e}; nothing is trusted", path.display())),
            ),
        };
        Self {
            path,
            records,
            problem,
        }
    }

    /// Where the store lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every decision, in the order made.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Where `file` (whose bytes are `bytes`) stands.
    pub fn state(&self, file: &Path, bytes: &[u8]) -> State {
        let file = canonical(file);
        let Some(record) = self.records.iter().find(|r| r.file == file) else {
            return State::New;
        };
        if record.sha256 == fingerprint(bytes) {
            State::Decided(record.decision)
        } else {
            State::Changed(record.decision)
        }
    }

    /// Records `decision` for `file` as it is now (`bytes`), replacing an earlier one,
    /// and writes the store.
    pub fn decide(
        &mut self,
        file: &Path,
        folder: &Path,
        bytes: &[u8],
        decision: Decision,
    ) -> std::io::Result<()> {
        let file = canonical(file);
        self.records.retain(|r| r.file != file);
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.records.push(Record {
            file,
            folder: canonical(folder),
            sha256: fingerprint(bytes),
            decision,
            at,
        });
        self.save()
    }

    /// Forgets every decision about files of `folder` (canonical); returns how many.
    pub fn revoke(&mut self, folder: &Path) -> std::io::Result<usize> {
        let folder = canonical(folder);
        let before = self.records.len();
        self.records.retain(|r| r.folder != folder);
        let gone = before - self.records.len();
        if gone > 0 {
            self.save()?;
        }
        Ok(gone)
    }

    fn save(&self) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = StoreFile {
            version: 1,
            files: self.records.clone(),
        };
        let text = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)?;
        crate::paths::write_atomic(&self.path, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_holds_until_the_file_changes_and_survives_a_reopen() {
        let tmp = tempfile::tempdir().unwrap();
        let store_path = tmp.path().join("state/trust.json");
        let file = tmp.path().join("switchboard.toml");
        std::fs::write(&file, "a").unwrap();
        let mut store = TrustStore::open(store_path.clone());
        assert_eq!(store.state(&file, b"a"), State::New);
        store
            .decide(&file, tmp.path(), b"a", Decision::Trusted)
            .unwrap();
        let store = TrustStore::open(store_path.clone());
        assert_eq!(store.problem, None);
        assert!(store.state(&file, b"a").is_trusted());
        assert_eq!(store.state(&file, b"b"), State::Changed(Decision::Trusted));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&store_path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let mut store = store;
        assert_eq!(store.revoke(tmp.path()).unwrap(), 1);
        assert_eq!(TrustStore::open(store_path).state(&file, b"a"), State::New);
    }

    #[test]
    fn a_corrupt_store_trusts_nothing_and_says_why() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("trust.json");
        std::fs::write(&path, "{not json").unwrap();
        let store = TrustStore::open(path);
        assert!(store.records().is_empty());
        assert!(store.problem.unwrap().contains("nothing is trusted"));
    }

    #[test]
    fn fingerprints_are_sha256_hex() {
        assert_eq!(
            fingerprint(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
