//! Codex `config.toml`: `[mcp_servers.NAME]` tables.

use std::collections::BTreeMap;

use toml::Value;

use super::expand::Expander;
use super::{ImportError, Imported};
use crate::config::ServerConfig;

const KNOWN: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "bearer_token_env_var",
    "http_headers",
    "env_http_headers",
    "startup_timeout_sec",
    "tool_timeout_sec",
    "enabled",
    "enabled_tools",
    "disabled_tools",
];

pub fn servers(text: &str, expander: &Expander<'_>, out: &mut Imported) -> Result<(), ImportError> {
    let root: toml::Table =
        toml::from_str(text).map_err(|e| ImportError::Parse(e.message().to_owned()))?;
    let Some(table) = root.get("mcp_servers").and_then(Value::as_table) else {
        return Err(ImportError::Shape("no [mcp_servers] table".into()));
    };
    for (name, entry) in table {
        let Some(entry) = entry.as_table() else {
            return Err(ImportError::Shape(format!(
                "mcp_servers.{name} is not a table"
            )));
        };
        let server = server(name, entry, expander, &mut out.warnings)?;
        out.servers.insert(name.clone(), server);
    }
    Ok(())
}

fn server(
    name: &str,
    entry: &toml::Table,
    expander: &Expander<'_>,
    warnings: &mut Vec<String>,
) -> Result<ServerConfig, ImportError> {
    let at = |field: &str| format!("mcp_servers.{name}.{field}");
    let wrong = |field: &str, what: &str| ImportError::Value {
        key: at(field),
        message: format!("expected {what}"),
    };
    let expand = |field: &str, text: &str| {
        expander.expand(text).map_err(|source| ImportError::Expand {
            key: at(field),
            source,
        })
    };
    let string = |field: &str| -> Result<Option<String>, ImportError> {
        match entry.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => expand(field, s).map(Some),
            Some(_) => Err(wrong(field, "a string")),
        }
    };
    let strings = |field: &str| -> Result<Option<Vec<String>>, ImportError> {
        match entry.get(field) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| wrong(field, "an array of strings"))
                        .and_then(|s| expand(field, s))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(wrong(field, "an array of strings")),
        }
    };
    let map = |field: &str| -> Result<BTreeMap<String, String>, ImportError> {
        let mut out = BTreeMap::new();
        if let Some(table) = entry.get(field) {
            let table = table.as_table().ok_or_else(|| wrong(field, "a table"))?;
            for (k, v) in table {
                let v = v.as_str().ok_or_else(|| wrong(field, "string values"))?;
                let value = if field == "env" || field == "http_headers" {
                    expander.expand_secret(v)
                } else {
                    expander.expand(v)
                };
                let value = value.map_err(|source| ImportError::Expand {
                    key: at(field),
                    source,
                })?;
                out.insert(k.clone(), value);
            }
        }
        Ok(out)
    };
    let seconds = |field: &str| -> Result<Option<f64>, ImportError> {
        match entry.get(field) {
            None => Ok(None),
            Some(Value::Integer(i)) => Ok(Some(i32::try_from(*i).map_or(f64::MAX, f64::from))),
            Some(Value::Float(f)) => Ok(Some(*f)),
            Some(_) => Err(wrong(field, "a number of seconds")),
        }
    };
    for unknown in entry.keys().filter(|k| !KNOWN.contains(&k.as_str())) {
        warnings.push(format!(
            "mcp_servers.{name}: unsupported key `{unknown}` ignored"
        ));
    }
    let mut headers = map("http_headers")?;
    for (header, var) in map("env_http_headers")? {
        if expander.keep_env {
            // A reference switchboard expands when the server starts.
            headers.insert(header, format!("${{{var}}}"));
            continue;
        }
        match (expander.env)(&var) {
            Some(value) => {
                headers.insert(header, value);
            }
            None => warnings.push(format!(
                "mcp_servers.{name}.env_http_headers: {var} is not set; header {header} left out"
            )),
        }
    }
    Ok(ServerConfig {
        command: string("command")?,
        args: strings("args")?.unwrap_or_default(),
        env: map("env")?,
        cwd: string("cwd")?.map(Into::into),
        url: string("url")?,
        headers,
        bearer_token_env_var: string("bearer_token_env_var")?,
        enabled: entry.get("enabled").and_then(Value::as_bool),
        startup_timeout: seconds("startup_timeout_sec")?,
        tool_timeout: seconds("tool_timeout_sec")?,
        enabled_tools: strings("enabled_tools")?,
        disabled_tools: strings("disabled_tools")?.unwrap_or_default(),
        ..ServerConfig::default()
    })
}
