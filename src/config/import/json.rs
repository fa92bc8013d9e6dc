//! The JSON formats: Claude Desktop and Cursor (`mcpServers`), Claude Code `.mcp.json`
//! (`mcpServers`, with `type`), VS Code `mcp.json` (`servers`, `inputs`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::expand::{Expander, InputSpec};
use super::{ImportError, Imported};
use crate::config::ServerConfig;

const KNOWN: &[&str] = &["type", "command", "args", "env", "url", "headers", "cwd"];

/// The `inputs` array of a VS Code file.
pub fn inputs(root: &Value) -> Vec<InputSpec> {
    root.get("inputs")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|i| {
                    Some(InputSpec {
                        id: i.get("id")?.as_str()?.to_owned(),
                        description: i
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        password: i.get("password").and_then(Value::as_bool).unwrap_or(false),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Servers under `key` (`mcpServers` or `servers`).
pub fn servers(
    root: &Value,
    key: &str,
    expander: &Expander<'_>,
    out: &mut Imported,
) -> Result<(), ImportError> {
    let Some(table) = root.get(key).and_then(Value::as_object) else {
        return Err(ImportError::Shape(format!("no `{key}` object")));
    };
    for (name, entry) in table {
        let Some(entry) = entry.as_object() else {
            return Err(ImportError::Shape(format!(
                "`{key}.{name}` is not an object"
            )));
        };
        let server = server(key, name, entry, expander, &mut out.warnings)?;
        out.servers.insert(name.clone(), server);
    }
    Ok(())
}

fn server(
    key: &str,
    name: &str,
    entry: &Map<String, Value>,
    expander: &Expander<'_>,
    warnings: &mut Vec<String>,
) -> Result<ServerConfig, ImportError> {
    let at = |field: &str| format!("{key}.{name}.{field}");
    let expand = |field: &str, text: &str| {
        expander.expand(text).map_err(|source| ImportError::Expand {
            key: at(field),
            source,
        })
    };
    let string = |field: &str| -> Result<Option<String>, ImportError> {
        match entry.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => expand(field, s).map(Some),
            Some(_) => Err(ImportError::Value {
                key: at(field),
                message: "expected a string".into(),
            }),
        }
    };
    let map = |field: &str| -> Result<BTreeMap<String, String>, ImportError> {
        let mut out = BTreeMap::new();
        if let Some(object) = entry.get(field).and_then(Value::as_object) {
            for (k, v) in object {
                let text = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let value =
                    expander
                        .expand_secret(&text)
                        .map_err(|source| ImportError::Expand {
                            key: at(field),
                            source,
                        })?;
                out.insert(k.clone(), value);
            }
        }
        Ok(out)
    };
    for unknown in entry.keys().filter(|k| !KNOWN.contains(&k.as_str())) {
        warnings.push(format!(
            "{}: unsupported key `{unknown}` ignored",
            at("").trim_end_matches('.')
        ));
    }
    let args = match entry.get("args") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|a| match a {
                Value::String(s) => expand("args", s),
                other => Ok(other.to_string()),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => Vec::new(),
    };
    let transport = match string("type")?.as_deref() {
        None => None,
        Some("stdio") => Some("stdio".to_owned()),
        Some("http" | "streamable-http" | "streamableHttp") => Some("http".to_owned()),
        Some("sse") => Some("sse".to_owned()),
        Some(other) => {
            return Err(ImportError::Value {
                key: at("type"),
                message: format!("unknown transport {other:?}"),
            });
        }
    };
    Ok(ServerConfig {
        command: string("command")?,
        args,
        env: map("env")?,
        cwd: string("cwd")?.map(Into::into),
        url: string("url")?,
        headers: map("headers")?,
        transport,
        ..ServerConfig::default()
    })
}
