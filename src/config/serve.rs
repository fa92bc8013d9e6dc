//! `[serve]`: switchboard as an MCP server (`switchboard serve`, `--serve ADDR`).

use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::key_path::KeyPath;
use super::locate::SourceMap;
use super::model::Config;
use super::validate::{POLICY_MODES, check_one_of, env_name_problem};

/// The default cap on one incoming message (4 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// `[serve]`
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServeConfig {
    /// What clients see: server names, and `builtin` for the built-in tools. Absent:
    /// every configured server, no built-ins.
    pub expose: Option<Vec<String>>,
    /// The environment variable holding the bearer token clients must send; required
    /// for an HTTP bind that is not on loopback.
    pub token_env: Option<String>,
    /// More `Host` values accepted over HTTP (the bind address and loopback names
    /// always are).
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted over HTTP (`http://localhost:*`); a request with any
    /// other `Origin` is refused.
    pub allowed_origins: Vec<String>,
    /// The largest message a client may send, in bytes.
    pub max_message_bytes: usize,
    /// Per client (by the name it gives in `clientInfo`): its mode and budget.
    pub clients: BTreeMap<String, ServeClientConfig>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            expose: None,
            token_env: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            clients: BTreeMap::new(),
        }
    }
}

/// `[serve.clients.NAME]`
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServeClientConfig {
    /// Decides this client's calls in this mode instead of `[policy] mode`.
    pub mode: Option<Spanned<String>>,
    /// The most tool calls this client may make while switchboard runs.
    pub max_calls: Option<u32>,
    /// The environment variable holding this client's own bearer token: over HTTP the
    /// client proves its name with it.
    pub token_env: Option<String>,
}

type Report<'r> = dyn FnMut(Range<usize>, String, String, Option<String>) + 'r;

/// Values of `[serve]` that parse but cannot work.
pub(super) fn check(config: &Config, map: &SourceMap<'_>, report: &mut Report<'_>) {
    let serve = &config.serve;
    if let Some(name) = &serve.token_env
        && let Some(problem) = env_name_problem(name)
    {
        report(
            map.nearest_span(&["serve", "token_env"]),
            "serve.token_env".into(),
            problem,
            Some("name the variable that holds the token, e.g. `SWITCHBOARD_SERVE_TOKEN`".into()),
        );
    }
    if serve.max_message_bytes < 1024 {
        report(
            map.nearest_span(&["serve", "max_message_bytes"]),
            "serve.max_message_bytes".into(),
            format!(
                "{} bytes is too small for any MCP message",
                serve.max_message_bytes
            ),
            Some(format!("the default is {DEFAULT_MAX_MESSAGE_BYTES}")),
        );
    }
    for (i, origin) in serve.allowed_origins.iter().enumerate() {
        if origin != "null" && !origin.contains("://") {
            report(
                map.element_span(&["serve", "allowed_origins"], i),
                "serve.allowed_origins".into(),
                format!("`{origin}` is not an origin: give the scheme too"),
                Some("e.g. `http://localhost:*` or `https://app.example.com`".into()),
            );
        }
    }
    for (name, client) in &serve.clients {
        if let Some(mode) = &client.mode {
            let key = KeyPath::new(&["serve", "clients", name.as_str(), "mode"]).to_string();
            check_one_of(mode, key, POLICY_MODES, report);
        }
        if let Some(var) = &client.token_env
            && let Some(problem) = env_name_problem(var)
        {
            let path = ["serve", "clients", name.as_str(), "token_env"];
            report(
                map.nearest_span(&path),
                KeyPath::new(&path).to_string(),
                problem,
                Some("name the variable that holds this client's token, e.g. `SB_CI_TOKEN`".into()),
            );
        }
    }
}
