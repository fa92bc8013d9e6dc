//! `[tools.*]`: the built-in tools and their limits. Every table rejects unknown keys;
//! the defaults are the safe ones (shell and HTTP allow nothing until you list it).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// `[tools]`
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolsConfig {
    pub fs: FsToolConfig,
    pub shell: ShellToolConfig,
    pub http: HttpToolConfig,
    pub memory: MemoryToolConfig,
}

/// `[tools.fs]`: files under the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FsToolConfig {
    pub enabled: bool,
    /// The directory the tool is confined to; relative to the workspace. Default: the
    /// workspace itself.
    pub root: Option<PathBuf>,
    /// `false` refuses `write` and `delete` whatever the policy says.
    pub allow_write: bool,
    pub max_read_bytes: u64,
    pub max_write_bytes: u64,
    pub max_list_entries: u64,
}

impl Default for FsToolConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            root: None,
            allow_write: true,
            max_read_bytes: 256 * 1024,
            max_write_bytes: 1024 * 1024,
            max_list_entries: 1000,
        }
    }
}

/// `[tools.shell]`: allow-listed programs run as argv.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ShellToolConfig {
    pub enabled: bool,
    /// Bare program names that may run (`git`, `cargo`); empty: none.
    pub allow: Vec<String>,
    /// Names of environment variables passed through to the program.
    pub env: Vec<String>,
    /// Timeout when the call does not give one.
    pub timeout_secs: u64,
    /// The largest timeout a call may ask for.
    pub max_timeout_secs: u64,
    /// stdout and stderr together; the rest is cut with a marker.
    pub max_output_bytes: u64,
}

impl Default for ShellToolConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            allow: Vec::new(),
            env: Vec::new(),
            timeout_secs: 30,
            max_timeout_secs: 300,
            max_output_bytes: 64 * 1024,
        }
    }
}

/// `[tools.http]`: requests to allow-listed hosts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpToolConfig {
    pub enabled: bool,
    /// Exact host names (no scheme, port or path); empty: none.
    pub allow_hosts: Vec<String>,
    /// Also allow plain `http://` URLs.
    pub allow_http: bool,
    /// Methods calls may use (upper case).
    pub allow_methods: Vec<String>,
    /// Request header names calls may set (case-insensitive).
    pub allow_headers: Vec<String>,
    /// Follow redirects, each hop re-checked against the scheme and host rules.
    pub follow_redirects: bool,
    pub max_request_bytes: u64,
    pub max_response_bytes: u64,
    pub timeout_secs: u64,
}

impl Default for HttpToolConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            allow_hosts: Vec::new(),
            allow_http: false,
            allow_methods: vec!["GET".into()],
            allow_headers: ["accept", "accept-language", "content-type", "user-agent"]
                .map(String::from)
                .to_vec(),
            follow_redirects: false,
            max_request_bytes: 64 * 1024,
            max_response_bytes: 1024 * 1024,
            timeout_secs: 30,
        }
    }
}

/// `[tools.memory]`: the `/memories` directory.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryToolConfig {
    pub enabled: bool,
    /// Where `/memories` lives; default `$XDG_DATA_HOME/switchboard/memories/PROJECT`.
    pub dir: Option<PathBuf>,
}

impl Default for MemoryToolConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            dir: None,
        }
    }
}

/// HTTP methods `allow_methods` may name.
pub const HTTP_METHODS: &[&str] = &["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
