//! Trust: a folder's config runs nothing until the person trusts it.
//!
//! A project file — `./switchboard.toml`, or a `--mcp-config` file inside the folder —
//! can start commands, run hooks, send the person's keys to a provider and loosen the
//! gate. Until the person trusts it, only its cosmetic keys apply
//! ([`crate::config::merge::COSMETIC_KEYS`]); the user's own config always applies.
//!
//! - [`store`]: decisions, pinned to each file's SHA-256, in the state directory.
//! - [`review`]: what a file would do, one line each, for the person to read.
//! - [`Loaded`]: the layers of one start, each project file's state, and the
//!   configuration that results once it is known which of them apply.
//!
//! The TUI asks (trust, once, ignore) before anything starts; headless commands never
//! ask: they leave an untrusted file out and say so on stderr, naming
//! `switchboard trust`.

pub mod review;
pub mod store;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use review::{Effect, Item};
pub use store::{Decision, Record, State, TrustStore};

use crate::config::import::{self, InputResolver};
use crate::config::merge::Reach;
use crate::config::{Config, ConfigError, Layers};
use crate::paths::Dirs;

/// Where the trust decisions are kept: `$XDG_STATE_HOME/switchboard/trust.json`.
pub fn store_path(dirs: &Dirs) -> PathBuf {
    dirs.state_home
        .join(crate::paths::APP_DIR)
        .join("trust.json")
}

/// Which kind of project file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `./switchboard.toml`.
    Config,
    /// A `--mcp-config` file inside the folder.
    McpConfig,
}

/// One project file and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFile {
    pub kind: FileKind,
    pub path: PathBuf,
    /// As the person would name it (`./switchboard.toml`).
    pub shown: String,
    pub bytes: Vec<u8>,
    pub state: State,
    /// What it would do.
    pub items: Vec<Item>,
    /// Whether it applies this run: trusted, or trusted once.
    pub applies: bool,
}

/// The layers of one start and the project files among them.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub layers: Layers,
    pub folder: PathBuf,
    pub files: Vec<ProjectFile>,
    pub store: TrustStore,
}

/// How the person answered the trust question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Apply, and remember until the file changes.
    Trust,
    /// Apply for this run only.
    Once,
    /// Leave it out (cosmetic keys only), and do not ask again until it changes.
    Ignore,
}

impl Loaded {
    /// Reads the config layers and the `--mcp-config` files (`mcp_configs`, relative
    /// to the working directory), and where each project file stands.
    pub fn read(
        dirs: &Dirs,
        explicit: Option<&Path>,
        mcp_configs: &[PathBuf],
    ) -> Result<Self, ConfigError> {
        let layers = crate::settings::read_layers(dirs, explicit)?;
        let store = TrustStore::open(store_path(dirs));
        let mut files = Vec::new();
        if let Some(project) = &layers.project {
            let state = store.state(&project.path, project.text.as_bytes());
            files.push(ProjectFile {
                kind: FileKind::Config,
                path: project.path.clone(),
                shown: format!("./{}", crate::paths::PROJECT_CONFIG_FILE),
                bytes: project.text.clone().into_bytes(),
                state,
                items: review::review(&project.config, &project.set),
                applies: state.is_trusted(),
            });
        }
        for path in mcp_configs {
            let full = dirs.cwd.join(path);
            if !inside_folder(dirs, &full) {
                continue;
            }
            // Unreadable files are reported when they are imported.
            let Ok(bytes) = std::fs::read(&full) else {
                continue;
            };
            let state = store.state(&full, &bytes);
            files.push(ProjectFile {
                kind: FileKind::McpConfig,
                items: import_review(&full, &bytes),
                path: full,
                shown: path.display().to_string(),
                bytes,
                state,
                applies: state.is_trusted(),
            });
        }
        Ok(Self {
            layers,
            folder: dirs.cwd.clone(),
            files,
            store,
        })
    }

    /// The project files the person should be asked about (never decided, or edited
    /// since).
    pub fn to_ask(&self) -> Vec<&ProjectFile> {
        self.files
            .iter()
            .filter(|f| f.state.needs_asking())
            .collect()
    }

    /// Applies `answer` to every file that needs asking; `Trust` and `Ignore` are
    /// written to the store.
    pub fn answer(&mut self, answer: Answer) -> std::io::Result<()> {
        let folder = self.folder.clone();
        for file in self.files.iter_mut().filter(|f| f.state.needs_asking()) {
            file.applies = answer != Answer::Ignore;
            let decision = match answer {
                Answer::Trust => Decision::Trusted,
                Answer::Ignore => Decision::Ignored,
                Answer::Once => continue,
            };
            self.store
                .decide(&file.path, &folder, &file.bytes, decision)?;
            file.state = State::Decided(decision);
        }
        Ok(())
    }

    /// The configuration of this run: the user's (or `--config`'s), with the
    /// project's on top as far as it applies. `--mcp-config` files are added by the
    /// caller, leaving out [`Loaded::left_out`].
    pub fn config(&self) -> Result<Config, ConfigError> {
        let applies = self
            .files
            .iter()
            .any(|f| f.kind == FileKind::Config && f.applies);
        self.layers.config(if applies {
            Reach::Full
        } else {
            Reach::Cosmetic
        })
    }

    /// The project files that do not apply this run.
    pub fn left_out(&self) -> Vec<&ProjectFile> {
        self.files.iter().filter(|f| !f.applies).collect()
    }

    /// Whether `path` (as given to `--mcp-config`) is a file left out this run.
    pub fn leaves_out(&self, dirs: &Dirs, path: &Path) -> bool {
        let full = dirs.cwd.join(path);
        self.left_out().iter().any(|f| f.path == full)
    }

    /// Whether `path` (the full path) is one of the project's files.
    pub fn is_project_file(&self, path: &Path) -> bool {
        self.files.iter().any(|f| f.path == path)
    }

    /// The bytes of project file `path` as they were read (and fingerprinted), so
    /// what applies is exactly what was trusted, whatever the file holds by now.
    pub fn project_bytes(&self, path: &Path) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.bytes.as_slice())
    }

    /// Servers and providers that exist only in files left out: a command that names
    /// one fails saying the file is not trusted, rather than "no such server".
    pub fn withheld(&self) -> Withheld {
        let mut withheld = Withheld::default();
        for file in self.left_out() {
            match file.kind {
                FileKind::Config => {
                    if let Some(project) = &self.layers.project {
                        withheld.servers.extend(
                            project
                                .config
                                .servers
                                .keys()
                                .map(|n| (n.clone(), file.shown.clone())),
                        );
                        withheld.providers.extend(
                            project
                                .config
                                .providers
                                .keys()
                                .map(|n| (n.clone(), file.shown.clone())),
                        );
                    }
                }
                FileKind::McpConfig => {
                    if let Some(servers) = import_servers(&file.path, &file.bytes) {
                        withheld
                            .servers
                            .extend(servers.into_keys().map(|n| (n, file.shown.clone())));
                    }
                }
            }
        }
        withheld
    }

    /// The one stderr line of a headless command when project files are left out.
    pub fn headless_notice(&self) -> Option<String> {
        let left: Vec<&str> = self.left_out().iter().map(|f| f.shown.as_str()).collect();
        (!left.is_empty()).then(|| {
            format!(
                "note: {} not trusted: its servers, hooks, providers and policy are left out (review and trust with `switchboard trust`)",
                left.join(", ")
            )
        })
    }
}

/// Names of what only files left out define, each with the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Withheld {
    pub servers: BTreeSet<(String, String)>,
    pub providers: BTreeSet<(String, String)>,
}

impl Withheld {
    /// The file a left-out server `name` is in.
    pub fn server(&self, name: &str) -> Option<&str> {
        self.servers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.as_str())
    }

    /// The file a left-out provider `name` is in.
    pub fn provider(&self, name: &str) -> Option<&str> {
        self.providers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.as_str())
    }
}

/// The error a command gets for naming what a file left out defines.
pub fn withheld_error(what: &str, name: &str, file: &str) -> String {
    format!(
        "{what} {} is configured only in {file}, which is not trusted: review it with `switchboard trust`",
        crate::sanitize::sanitize_line(name)
    )
}

/// Whether `path` is a project file of the working directory: inside it, and not in
/// the user's own config directory.
fn inside_folder(dirs: &Dirs, path: &Path) -> bool {
    let file = store::canonical(path);
    file.starts_with(store::canonical(&dirs.cwd))
        && !file.starts_with(store::canonical(&dirs.config_home))
}

/// A file's servers with `${env:…}` and `${input:…}` left as written, so the review
/// shows what they name and never a secret's value.
fn import_servers(
    path: &Path,
    bytes: &[u8],
) -> Option<std::collections::BTreeMap<String, crate::config::ServerConfig>> {
    struct AsWritten;
    impl InputResolver for AsWritten {
        fn resolve(
            &self,
            id: &str,
            _: Option<&str>,
            _: bool,
        ) -> Result<String, import::InputError> {
            Ok(format!("${{input:{id}}}"))
        }
    }
    let text = String::from_utf8_lossy(bytes);
    let env = |name: &str| Some(format!("${{{name}}}"));
    import::import_str(path, &text, &env, &AsWritten)
        .ok()
        .map(|i| i.servers)
}

fn import_review(path: &Path, bytes: &[u8]) -> Vec<Item> {
    match import_servers(path, bytes) {
        Some(servers) => review::servers(&servers, true),
        None => vec![Item {
            effect: Effect::Sets,
            text: "(cannot be read as an MCP config file)".into(),
        }],
    }
}
