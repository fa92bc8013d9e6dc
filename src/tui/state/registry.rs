//! The "Add server…" overlay: a search of the MCP Registry as the person types, one
//! entry's details, the values it asks for, and the entry to be written.

use std::path::PathBuf;

use crate::registry::{Plan, Question, ServerResponse};

/// Which registry to search and where an install writes (the person's own file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryPlace {
    /// `[mcp] registry`.
    pub url: String,
    /// Where the copy of the whole list is kept.
    pub cache_dir: PathBuf,
    /// `$XDG_CONFIG_HOME/switchboard/config.toml`: never a project's file.
    pub user_config: PathBuf,
}

/// The overlay.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegistryView {
    pub query: String,
    /// The number of the search last sent; answers to older ones (or to another
    /// query: one sent before the overlay was opened again) are dropped.
    pub seq: u64,
    /// A search is on its way.
    pub searching: bool,
    /// The results of the last search answered, best first.
    pub results: Vec<ServerResponse>,
    pub selected: usize,
    /// The last search failed (the message names the registry), or the registry
    /// could not be reached and the results come from the kept copy.
    pub error: Option<String>,
    /// The results come from the list kept this long ago (`3 h`).
    pub cached_age: Option<String>,
    pub phase: RegistryPhase,
}

/// Where the overlay is.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum RegistryPhase {
    /// The query and the results.
    #[default]
    List,
    /// The selected entry in full and what it would install.
    Details,
    /// The values the entry asks for.
    Form(InstallForm),
    /// The entry to be written, waiting for `y`.
    Confirm { key: String, plan: Box<Plan> },
}

/// The install's form: one field per question.
#[derive(Debug, Clone, PartialEq)]
pub struct InstallForm {
    pub questions: Vec<Question>,
    pub values: Vec<String>,
    pub field: usize,
    pub error: Option<String>,
}

/// What the registry work reports.
#[derive(Debug, Clone, PartialEq)]
pub enum RegistryMsg {
    /// The answer to search number `seq`, for `query`.
    Found {
        seq: u64,
        query: String,
        result: Result<Box<Results>, String>,
    },
    /// The entry was written, or why not.
    Installed(Result<Installed, String>),
}

/// A search's results.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    pub servers: Vec<ServerResponse>,
    /// From the kept copy: its age and why the registry did not answer.
    pub cached: Option<(String, String)>,
}

/// A server written to the person's config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub key: String,
    /// `stdio`, `http` or `sse`.
    pub kind: String,
    pub path: String,
    /// What was written, a line each (`command: …`, `env: …`, `secret: …`).
    pub shown: Vec<String>,
    /// Things to tell (a `${VAR}` not set now).
    pub notes: Vec<String>,
}
