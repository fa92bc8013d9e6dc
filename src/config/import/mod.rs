//! Importing MCP server lists from other clients' config files into `[servers.NAME]`:
//! Claude Desktop, Claude Code (`.mcp.json`), VS Code (`mcp.json`), Cursor (`mcp.json`)
//! and Codex (`config.toml`). Placeholders expand (see [`expand`]); keys we do not
//! support are reported as warnings naming them.

mod codex;
pub mod entry;
pub mod expand;
mod json;
pub mod secrets;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde_json::Value;

pub use entry::{Entry, import_entry};
pub use expand::{Answers, ExpandError, Expander, Headless, InputError, InputResolver, InputSpec};

use crate::config::{AnnotationTrust, SamplingPolicy, ServerConfig};

/// The formats we read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForeignFormat {
    ClaudeDesktop,
    ClaudeCode,
    VsCode,
    Cursor,
    Codex,
}

impl fmt::Display for ForeignFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ClaudeDesktop => "Claude Desktop",
            Self::ClaudeCode => "Claude Code",
            Self::VsCode => "VS Code",
            Self::Cursor => "Cursor",
            Self::Codex => "Codex",
        })
    }
}

/// Servers read from a foreign file.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub format: ForeignFormat,
    pub servers: BTreeMap<String, ServerConfig>,
    /// Unsupported keys and values that were left out.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("{path}: cannot read: {message}")]
    Read { path: String, message: String },
    #[error("not valid JSON or TOML: {0}")]
    Parse(String),
    #[error("not an MCP config file: {0}")]
    Shape(String),
    #[error("`{key}`: {message}")]
    Value { key: String, message: String },
    /// A placeholder in the value at `key` could not be expanded.
    #[error("`{key}`: {source}")]
    Expand {
        key: String,
        #[source]
        source: ExpandError,
    },
}

/// Which format `text` (from a file called `path`) is in.
pub fn detect(path: &Path, text: &str) -> Result<ForeignFormat, ImportError> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let lossy = path.to_string_lossy();
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
    {
        return Ok(ForeignFormat::Codex);
    }
    let root: Value = serde_json::from_str(text).map_err(|e| ImportError::Parse(e.to_string()))?;
    if root.get("servers").is_some_and(Value::is_object) {
        return Ok(ForeignFormat::VsCode);
    }
    if !root.get("mcpServers").is_some_and(Value::is_object) {
        return Err(ImportError::Shape(
            "expected `mcpServers` or `servers`".into(),
        ));
    }
    Ok(if name == "claude_desktop_config.json" {
        ForeignFormat::ClaudeDesktop
    } else if lossy.contains(".cursor") {
        ForeignFormat::Cursor
    } else {
        ForeignFormat::ClaudeCode
    })
}

/// Reads and converts `text` (from `path`, used to detect the format).
pub fn import_str(
    path: &Path,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
    resolver: &dyn InputResolver,
) -> Result<Imported, ImportError> {
    convert(path, text, env, resolver, false)
}

/// As [`import_str`] for writing the servers into a config file: environment
/// references in headers and `env` stay references (`"Bearer ${TOKEN}"` becomes
/// `bearer_token_env_var = "TOKEN"`), and literal secrets are reported (see
/// [`secrets`]).
pub fn import_str_for_file(
    path: &Path,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
    resolver: &dyn InputResolver,
) -> Result<Imported, ImportError> {
    let mut imported = convert(path, text, env, resolver, true)?;
    secrets::keep_out_of_file(&mut imported);
    Ok(imported)
}

fn convert(
    path: &Path,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
    resolver: &dyn InputResolver,
    keep_env: bool,
) -> Result<Imported, ImportError> {
    let format = detect(path, text)?;
    let mut out = Imported {
        format,
        servers: BTreeMap::new(),
        warnings: Vec::new(),
    };
    if format == ForeignFormat::Codex {
        let expander = Expander {
            env,
            inputs: &[],
            resolver,
            keep_env,
        };
        codex::servers(text, &expander, &mut out)?;
        return Ok(out);
    }
    let root: Value = serde_json::from_str(text).map_err(|e| ImportError::Parse(e.to_string()))?;
    let inputs = json::inputs(&root);
    let expander = Expander {
        env,
        inputs: &inputs,
        resolver,
        keep_env,
    };
    let key = if format == ForeignFormat::VsCode {
        "servers"
    } else {
        "mcpServers"
    };
    json::servers(&root, key, &expander, &mut out)?;
    Ok(out)
}

/// The `${input:id}` answers a file needs before it can be imported, with what its
/// `inputs` list says about each (description, password); an id it does not declare
/// still needs an answer.
pub fn inputs_needed(path: &Path, text: &str) -> Vec<InputSpec> {
    let declared = match detect(path, text) {
        Ok(ForeignFormat::Codex) | Err(_) => Vec::new(),
        Ok(_) => serde_json::from_str::<Value>(text)
            .map(|root| json::inputs(&root))
            .unwrap_or_default(),
    };
    expand::input_ids(text)
        .into_iter()
        .map(|id| {
            declared
                .iter()
                .find(|spec| spec.id == id)
                .cloned()
                .unwrap_or(InputSpec {
                    id,
                    ..InputSpec::default()
                })
        })
        .collect()
}

/// Reads a file with the process environment and no one to answer `${input:…}`, for
/// writing into a config file (see [`import_str_for_file`]).
pub fn import_file(path: &Path) -> Result<Imported, ImportError> {
    let text = std::fs::read_to_string(path).map_err(|e| ImportError::Read {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    import_str_for_file(path, &text, &|name| std::env::var(name).ok(), &Headless)
}

/// `[servers.NAME]` tables for `servers`, only the keys that are set.
pub fn to_toml(servers: &BTreeMap<String, ServerConfig>) -> String {
    let mut root = toml::Table::new();
    let mut all = toml::Table::new();
    for (name, s) in servers {
        all.insert(name.clone(), toml::Value::Table(server_table(s)));
    }
    root.insert("servers".into(), toml::Value::Table(all));
    toml::to_string(&root).unwrap_or_default()
}

fn server_table(s: &ServerConfig) -> toml::Table {
    use toml::Value as V;
    let mut t = toml::Table::new();
    let strings = |items: &[String]| V::Array(items.iter().cloned().map(V::String).collect());
    let map = |m: &BTreeMap<String, String>| {
        V::Table(
            m.iter()
                .map(|(k, v)| (k.clone(), V::String(v.clone())))
                .collect(),
        )
    };
    let mut put = |key: &str, value: Option<V>| {
        if let Some(value) = value {
            t.insert(key.to_owned(), value);
        }
    };
    put("type", s.transport.clone().map(V::String));
    put("command", s.command.clone().map(V::String));
    put("args", (!s.args.is_empty()).then(|| strings(&s.args)));
    put("env", (!s.env.is_empty()).then(|| map(&s.env)));
    put(
        "cwd",
        s.cwd.as_ref().map(|c| V::String(c.display().to_string())),
    );
    put("url", s.url.clone().map(V::String));
    put("headers", (!s.headers.is_empty()).then(|| map(&s.headers)));
    put(
        "bearer_token_env_var",
        s.bearer_token_env_var.clone().map(V::String),
    );
    put("enabled", s.enabled.map(V::Boolean));
    put("startup_timeout", s.startup_timeout.map(V::Float));
    put("tool_timeout", s.tool_timeout.map(V::Float));
    put("start", s.start.map(|p| V::String(p.as_str().to_owned())));
    put("idle_timeout", s.idle_timeout.map(V::Float));
    put("enabled_tools", s.enabled_tools.as_deref().map(strings));
    put(
        "disabled_tools",
        (!s.disabled_tools.is_empty()).then(|| strings(&s.disabled_tools)),
    );
    put(
        "protocol",
        s.protocol.map(|p| V::String(p.as_str().to_owned())),
    );
    put(
        "sampling",
        s.sampling.map(|p| {
            V::String(match p {
                SamplingPolicy::Ask => "ask".into(),
                SamplingPolicy::Deny => "deny".into(),
            })
        }),
    );
    put(
        "annotations",
        s.annotations.map(|a| {
            V::String(match a {
                AnnotationTrust::Trust => "trust".into(),
                AnnotationTrust::Ignore => "ignore".into(),
            })
        }),
    );
    t
}
