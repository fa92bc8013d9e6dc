//! One server entry given as JSON (`switchboard mcp add-json NAME '{…}'`), in the
//! shape any of the five imported formats writes it: Claude Desktop and Cursor
//! (`command`/`args`/`env`, or `url`/`headers`), Claude Code and VS Code (the same with
//! `type`), Codex (`bearer_token_env_var`, `http_headers`, `startup_timeout_sec`, …,
//! its TOML table written as JSON). A whole file's object (`mcpServers`, `servers`,
//! `mcp_servers`) is accepted too; the entry named NAME, or its only one, is taken.

use std::path::Path;

use serde_json::{Map, Value};

use super::{ForeignFormat, ImportError, Imported, InputResolver, import_str_for_file};
use crate::config::ServerConfig;

/// Keys only Codex writes: an entry with one of them is read as Codex's.
const CODEX_ONLY: &[&str] = &[
    "bearer_token_env_var",
    "http_headers",
    "env_http_headers",
    "startup_timeout_sec",
    "tool_timeout_sec",
    "enabled",
    "enabled_tools",
    "disabled_tools",
];

/// A server read from one JSON entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub format: ForeignFormat,
    pub server: ServerConfig,
    /// Unsupported keys that were left out, literal secrets.
    pub warnings: Vec<String>,
}

/// Reads `json` as the entry of server `name`, for writing into a config file
/// (environment references stay references, as in [`import_str_for_file`]).
pub fn import_entry(
    name: &str,
    json: &str,
    env: &dyn Fn(&str) -> Option<String>,
    resolver: &dyn InputResolver,
) -> Result<Entry, ImportError> {
    let value: Value = serde_json::from_str(json).map_err(|e| ImportError::Parse(e.to_string()))?;
    let Value::Object(object) = value else {
        return Err(ImportError::Shape("expected a JSON object".into()));
    };
    let whole_file = ["mcpServers", "servers", "mcp_servers"]
        .iter()
        .any(|k| object.get(*k).is_some_and(Value::is_object));
    let (format, root) = if whole_file {
        (None, object)
    } else {
        let format = entry_format(&object);
        let key = if format == ForeignFormat::Codex {
            "mcp_servers"
        } else {
            "mcpServers"
        };
        let root = Map::from_iter([(
            key.to_owned(),
            Value::Object(Map::from_iter([(name.to_owned(), Value::Object(object))])),
        )]);
        (Some(format), root)
    };
    let imported = if root.contains_key("mcp_servers") {
        let toml = toml::to_string(&root).map_err(|e| ImportError::Parse(e.to_string()))?;
        import_str_for_file(Path::new("entry.toml"), &toml, env, resolver)?
    } else {
        let text = Value::Object(root).to_string();
        import_str_for_file(Path::new("entry.json"), &text, env, resolver)?
    };
    pick(name, format, imported)
}

/// Which format an entry is written in, from its keys.
fn entry_format(entry: &Map<String, Value>) -> ForeignFormat {
    if CODEX_ONLY.iter().any(|k| entry.contains_key(*k)) {
        ForeignFormat::Codex
    } else if entry.contains_key("type") {
        ForeignFormat::ClaudeCode
    } else if entry.contains_key("url") {
        ForeignFormat::Cursor
    } else {
        ForeignFormat::ClaudeDesktop
    }
}

fn pick(
    name: &str,
    format: Option<ForeignFormat>,
    mut imported: Imported,
) -> Result<Entry, ImportError> {
    let only = (imported.servers.len() == 1)
        .then(|| imported.servers.keys().next().cloned())
        .flatten();
    let key = if imported.servers.contains_key(name) {
        Some(name.to_owned())
    } else {
        only
    };
    let server = key
        .and_then(|k| imported.servers.remove(&k))
        .ok_or_else(|| {
            ImportError::Shape(format!(
                "no server named `{name}` in the object, and more than one other"
            ))
        })?;
    Ok(Entry {
        format: format.unwrap_or(imported.format),
        server,
        warnings: imported.warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::super::Headless;
    use super::*;

    fn entry(json: &str) -> Result<Entry, ImportError> {
        import_entry("s", json, &|_| None, &Headless)
    }

    #[test]
    fn each_format_becomes_a_server() {
        let desktop = entry(r#"{"command":"npx","args":["-y","pkg"],"env":{"DEBUG":"1"}}"#);
        let desktop = desktop.unwrap();
        assert_eq!(desktop.format, ForeignFormat::ClaudeDesktop);
        assert_eq!(desktop.server.command.as_deref(), Some("npx"));
        assert_eq!(desktop.server.args, ["-y", "pkg"]);

        let code = entry(
            r#"{"type":"http","url":"https://h/mcp","headers":{"Authorization":"Bearer ${TOK}"}}"#,
        )
        .unwrap();
        assert_eq!(code.format, ForeignFormat::ClaudeCode);
        assert_eq!(code.server.transport.as_deref(), Some("http"));
        assert_eq!(code.server.bearer_token_env_var.as_deref(), Some("TOK"));
        assert!(code.server.headers.is_empty());

        let cursor = entry(r#"{"url":"https://h/sse","headers":{"X-Team":"a"}}"#).unwrap();
        assert_eq!(cursor.format, ForeignFormat::Cursor);
        assert_eq!(cursor.server.headers["X-Team"], "a");

        let vscode =
            entry(r#"{"servers":{"s":{"type":"stdio","command":"node","args":["s.js"]}}}"#)
                .unwrap();
        assert_eq!(vscode.format, ForeignFormat::VsCode);
        assert_eq!(vscode.server.transport.as_deref(), Some("stdio"));

        let codex = entry(r#"{"url":"https://h/mcp","bearer_token_env_var":"T","tool_timeout_sec":30,"http_headers":{"X-A":"b"}}"#).unwrap();
        assert_eq!(codex.format, ForeignFormat::Codex);
        assert_eq!(codex.server.bearer_token_env_var.as_deref(), Some("T"));
        assert_eq!(codex.server.tool_timeout, Some(30.0));
        assert_eq!(codex.server.headers["X-A"], "b");
    }

    #[test]
    fn bad_entries_say_why() {
        assert!(matches!(entry("[1]"), Err(ImportError::Shape(_))));
        assert!(matches!(entry("{"), Err(ImportError::Parse(_))));
        assert!(matches!(
            entry(r#"{"type":"carrier-pigeon","command":"x"}"#),
            Err(ImportError::Value { .. })
        ));
        let two = r#"{"mcpServers":{"a":{"command":"a"},"b":{"command":"b"}}}"#;
        assert!(matches!(entry(two), Err(ImportError::Shape(_))));
    }
}
