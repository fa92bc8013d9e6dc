//! XDG paths: config search order, state and data directories.
//!
//! [`Dirs`] is plain data. [`Dirs::from_env`] reads the process environment once; tests
//! build a `Dirs` with [`Dirs::new`] or [`Dirs::from_lookup`] and never touch the
//! environment.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// File name of the project config, looked up in the working directory.
pub const PROJECT_CONFIG_FILE: &str = "switchboard.toml";
/// Directory name used under the XDG config, state and data homes.
pub const APP_DIR: &str = "switchboard";

/// The directories switchboard reads from and writes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dirs {
    /// The working directory (where `./switchboard.toml` is looked up).
    pub cwd: PathBuf,
    /// `$XDG_CONFIG_HOME`, else `$HOME/.config`.
    pub config_home: PathBuf,
    /// `$XDG_STATE_HOME`, else `$HOME/.local/state`.
    pub state_home: PathBuf,
    /// `$XDG_DATA_HOME`, else `$HOME/.local/share`.
    pub data_home: PathBuf,
    /// `$XDG_CACHE_HOME`, else `$HOME/.cache` ([`Dirs::new`]: `STATE_HOME/cache`).
    pub cache_home: PathBuf,
}

/// Where a config candidate comes from, in search order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CandidateOrigin {
    /// `--config PATH` (or the path given to `config check`).
    Explicit,
    /// `./switchboard.toml` in the working directory.
    Project,
    /// `$XDG_CONFIG_HOME/switchboard/config.toml`.
    User,
}

impl CandidateOrigin {
    /// How the origin is shown to users: `--config`, `./switchboard.toml` or
    /// `$XDG_CONFIG_HOME/switchboard/config.toml`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Explicit => "--config",
            Self::Project => "./switchboard.toml",
            Self::User => "$XDG_CONFIG_HOME/switchboard/config.toml",
        }
    }
}

impl fmt::Display for CandidateOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One place a config file may be, with the reason it is searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigCandidate {
    pub path: PathBuf,
    pub origin: CandidateOrigin,
}

impl Dirs {
    /// A `Dirs` from explicit directories (tests, embedding).
    pub fn new(
        cwd: impl Into<PathBuf>,
        config_home: impl Into<PathBuf>,
        state_home: impl Into<PathBuf>,
        data_home: impl Into<PathBuf>,
    ) -> Self {
        let state_home = state_home.into();
        Self {
            cwd: cwd.into(),
            config_home: config_home.into(),
            cache_home: state_home.join("cache"),
            state_home,
            data_home: data_home.into(),
        }
    }

    /// The same directories with `cache_home` set.
    #[must_use]
    pub fn with_cache_home(mut self, cache_home: impl Into<PathBuf>) -> Self {
        self.cache_home = cache_home.into();
        self
    }

    /// Read `HOME`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME`, `XDG_DATA_HOME`,
    /// `XDG_CACHE_HOME` and the working directory from the process. Never panics: without a working directory `.` is
    /// used; without `HOME` the working directory stands in for it.
    pub fn from_env() -> Self {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Self::from_lookup(cwd, |name| std::env::var_os(name))
    }

    /// Like [`Dirs::from_env`], with the environment given as a lookup function.
    ///
    /// Empty or relative `XDG_*` values are ignored, as the XDG spec asks.
    pub fn from_lookup(cwd: PathBuf, lookup: impl Fn(&str) -> Option<OsString>) -> Self {
        let home = lookup("HOME")
            .filter(|h| !h.is_empty())
            .map_or_else(|| cwd.clone(), PathBuf::from);
        let xdg = |name: &str, fallback: &[&str]| {
            lookup(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| fallback.iter().fold(home.clone(), |p, c| p.join(c)))
        };
        let config_home = xdg("XDG_CONFIG_HOME", &[".config"]);
        let state_home = xdg("XDG_STATE_HOME", &[".local", "state"]);
        let data_home = xdg("XDG_DATA_HOME", &[".local", "share"]);
        let cache_home = xdg("XDG_CACHE_HOME", &[".cache"]);
        Self {
            cwd,
            config_home,
            state_home,
            data_home,
            cache_home,
        }
    }

    /// The config files to try, first match wins: `--config PATH`, `./switchboard.toml`,
    /// `$XDG_CONFIG_HOME/switchboard/config.toml`. A relative explicit path is taken
    /// relative to `cwd`.
    pub fn config_candidates(&self, explicit: Option<&Path>) -> Vec<ConfigCandidate> {
        let mut out = Vec::with_capacity(3);
        if let Some(path) = explicit {
            out.push(ConfigCandidate {
                path: self.cwd.join(path),
                origin: CandidateOrigin::Explicit,
            });
        }
        out.push(ConfigCandidate {
            path: self.cwd.join(PROJECT_CONFIG_FILE),
            origin: CandidateOrigin::Project,
        });
        out.push(ConfigCandidate {
            path: self.user_config_file(),
            origin: CandidateOrigin::User,
        });
        out
    }

    /// `$XDG_CONFIG_HOME/switchboard/config.toml`.
    pub fn user_config_file(&self) -> PathBuf {
        self.config_home.join(APP_DIR).join("config.toml")
    }

    /// `$XDG_CONFIG_HOME/switchboard/themes`.
    pub fn user_theme_dir(&self) -> PathBuf {
        self.config_home.join(APP_DIR).join("themes")
    }

    /// `$XDG_STATE_HOME/switchboard/switchboard.log`.
    pub fn default_log_file(&self) -> PathBuf {
        self.state_home.join(APP_DIR).join("switchboard.log")
    }

    /// `$XDG_STATE_HOME/switchboard/ui.json`: the TUI's remembered theme and mouse.
    pub fn ui_prefs_file(&self) -> PathBuf {
        self.state_home.join(APP_DIR).join("ui.json")
    }

    /// `$XDG_STATE_HOME/switchboard/audit.jsonl`.
    pub fn default_audit_log(&self) -> PathBuf {
        self.state_home.join(APP_DIR).join("audit.jsonl")
    }

    /// `$XDG_STATE_HOME/switchboard/wire`: where the TUI's Wire view exports.
    pub fn wire_export_dir(&self) -> PathBuf {
        self.state_home.join(APP_DIR).join("wire")
    }

    /// `$XDG_CACHE_HOME/switchboard/registry`: the MCP Registry's server lists.
    pub fn registry_cache_dir(&self) -> PathBuf {
        self.cache_home.join(APP_DIR).join("registry")
    }

    /// `$XDG_STATE_HOME/switchboard/catalogs`: the cached catalogs of servers that
    /// start on demand.
    pub fn catalog_cache_dir(&self) -> PathBuf {
        self.state_home.join(APP_DIR).join("catalogs")
    }

    /// `$XDG_DATA_HOME/switchboard/memories`.
    pub fn memory_dir(&self) -> PathBuf {
        self.data_home.join(APP_DIR).join("memories")
    }
}

/// Options that create a file readable by its owner only (0600); an existing file
/// keeps its permissions. For everything switchboard writes under the state directory
/// (sessions, the audit log) and configs it writes: they may hold what others must not
/// read.
pub fn private_file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Writes `text` to `path`, creating the file readable by its owner only (0600) when
/// it does not exist yet: configs, logs and state may hold what others must not read.
/// An existing file keeps its permissions.
pub fn write_private(path: &Path, text: impl AsRef<[u8]>) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut file = private_file_options()
        .create(true)
        .write(true)
        .truncate(true)
        .open(path)?;
    file.write_all(text.as_ref())?;
    file.flush()
}

/// Writes `text` to `path` through a sibling temporary file renamed over it, so a
/// reader (or a crash) never sees half a file. The replacement is created 0600 (see
/// [`write_private`]), so a config is never left more readable than switchboard
/// creates it.
pub fn write_atomic(path: &Path, text: impl AsRef<[u8]>) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".switchboard-tmp");
    let tmp = PathBuf::from(tmp);
    write_private(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn falls_back_to_home() {
        let d = Dirs::from_lookup("/w".into(), env(&[("HOME", "/h")]));
        assert_eq!(
            d,
            Dirs::new("/w", "/h/.config", "/h/.local/state", "/h/.local/share")
                .with_cache_home("/h/.cache")
        );
    }

    #[test]
    fn xdg_vars_win_and_relative_ones_are_ignored() {
        let vars = [
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "/c"),
            ("XDG_STATE_HOME", "relative"),
            ("XDG_DATA_HOME", ""),
        ];
        let d = Dirs::from_lookup("/w".into(), env(&vars));
        assert_eq!(
            d,
            Dirs::new("/w", "/c", "/h/.local/state", "/h/.local/share")
                .with_cache_home("/h/.cache")
        );
    }

    #[test]
    fn no_home_uses_cwd() {
        let d = Dirs::from_lookup("/w".into(), env(&[]));
        assert_eq!(d.config_home, PathBuf::from("/w/.config"));
    }

    #[test]
    fn derived_paths() {
        let d = Dirs::new("/w", "/c", "/s", "/d");
        assert_eq!(d.user_theme_dir(), PathBuf::from("/c/switchboard/themes"));
        assert_eq!(
            d.default_log_file(),
            PathBuf::from("/s/switchboard/switchboard.log")
        );
        assert_eq!(
            d.default_audit_log(),
            PathBuf::from("/s/switchboard/audit.jsonl")
        );
        assert_eq!(d.memory_dir(), PathBuf::from("/d/switchboard/memories"));
    }

    #[test]
    fn candidates_in_search_order() {
        let d = Dirs::new("/w", "/c", "/s", "/d");
        let got: Vec<_> = d
            .config_candidates(Some(Path::new("x.toml")))
            .into_iter()
            .map(|c| (c.path, c.origin))
            .collect();
        assert_eq!(
            got,
            vec![
                (PathBuf::from("/w/x.toml"), CandidateOrigin::Explicit),
                (
                    PathBuf::from("/w/switchboard.toml"),
                    CandidateOrigin::Project
                ),
                (
                    PathBuf::from("/c/switchboard/config.toml"),
                    CandidateOrigin::User
                ),
            ]
        );
        assert_eq!(d.config_candidates(None).len(), 2);
    }
}
