//! Writing a `[servers.NAME]` change to a config file, for every front end (`mcp add`
//! and friends, `mcp install`, the TUI's "Add server…"): the text is edited in place
//! (`config::edit`, comments kept), the result must load (`settings::parse_str`) and
//! a server it names must not be one the hub would refuse before starting it
//! (`mcp::refusal`); only then is the file written, atomically. On any refusal the
//! file is left as it was.

use std::path::{Path, PathBuf};

use crate::config::{self, ServerConfig, edit, import};
use crate::sanitize::sanitize_line;

/// Why a file was not changed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}\n(the file must load before it is edited)")]
    Unloadable(String),
    #[error("{}: {}", path.display(), sanitize_line(&source.to_string()))]
    Edit {
        path: PathBuf,
        source: edit::EditError,
    },
    #[error("{message}\n{} was not changed", path.display())]
    Refused { path: PathBuf, message: String },
    #[error("{}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The keys (`servers.NAME.env.API_KEY`) whose values look like literal secrets.
    #[error("{}", literal_text(.0))]
    LiteralSecrets(Vec<String>),
}

fn literal_text(keys: &[String]) -> String {
    keys.iter()
        .map(|key| {
            format!(
                "{key}: a secret would be written into the config file; write it as ${{VAR}} (expanded from the environment when the server starts){}",
                if key.contains(".headers.") {
                    ", or use --bearer-env VAR for a bearer token"
                } else {
                    ""
                }
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub path: PathBuf,
    /// The file's text before (`None`: the file did not exist).
    pub before: Option<String>,
    /// The text written.
    pub after: String,
    /// Things to tell the person (a `${VAR}` not set now), each without a prefix.
    pub notes: Vec<String>,
}

/// A server added by [`add_server`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// `stdio`, `http` or `sse`.
    pub kind: String,
    pub written: Written,
}

/// Adds `server` as `[servers.NAME]` to the file at `path`, refusing literal secrets
/// and what the loader or the hub would refuse.
pub fn add_server(path: &Path, name: &str, server: &ServerConfig) -> Result<Added, WriteError> {
    let secrets = import::secrets::literal_secrets(name, server);
    if !secrets.is_empty() {
        return Err(WriteError::LiteralSecrets(secrets));
    }
    // An entry naming an unset `${VAR}` does not make an Endpoint yet: say its type.
    let kind = crate::mcp::Endpoint::from_config(server).map_or_else(
        |_| match (&server.transport, &server.command) {
            (Some(kind), _) => kind.clone(),
            (None, Some(_)) => "stdio".to_owned(),
            (None, None) => "http".to_owned(),
        },
        |e| e.kind().as_str().to_owned(),
    );
    let mut written = edit_file(path, Some(name), |text| {
        edit::add_server(text, name, server)
    })?;
    if let Some(var) = &server.bearer_token_env_var
        && std::env::var_os(var).is_none()
    {
        written.notes.push(format!(
            "{var} is not set now; the server starts once it is"
        ));
    }
    Ok(Added { kind, written })
}

/// Whether the file at `path` (when it loads) configures a server `name` already.
pub fn configured(path: &Path, name: &str) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| crate::settings::parse_str(&text, path).ok())
        .is_some_and(|config| config.servers.contains_key(name))
}

/// Reads the file at `path`, applies `change`, checks the result with the config
/// loader (and, for server `check`, the refusals `config check` reports), and writes
/// it atomically.
pub fn edit_file(
    path: &Path,
    check: Option<&str>,
    change: impl FnOnce(&str) -> Result<String, edit::EditError>,
) -> Result<Written, WriteError> {
    let before = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(WriteError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    let text = before.as_deref().unwrap_or_default();
    if let Err(e) = crate::settings::parse_str(text, path) {
        return Err(WriteError::Unloadable(e.to_string()));
    }
    let edited = change(text).map_err(|source| WriteError::Edit {
        path: path.to_owned(),
        source,
    })?;
    let mut notes = Vec::new();
    let checked = crate::settings::parse_str(&edited, path).map_err(|e| e.to_string());
    if let Err(message) = checked.and_then(|c| refusals(&c, check, path, &edited, &mut notes)) {
        return Err(WriteError::Refused {
            path: path.to_owned(),
            message,
        });
    }
    if let Some(dir) = path.parent()
        && let Err(source) = std::fs::create_dir_all(dir)
    {
        return Err(WriteError::Write {
            path: dir.to_owned(),
            source,
        });
    }
    crate::paths::write_atomic(path, &edited).map_err(|source| WriteError::Write {
        path: path.to_owned(),
        source,
    })?;
    Ok(Written {
        path: path.to_owned(),
        before,
        after: edited,
        notes,
    })
}

/// What would make a server be refused before it starts (a shell command, a URL that
/// is not http(s), a bad header), at its key; an unset variable is not: it may be
/// exported later, and becomes a note.
fn refusals(
    config: &config::Config,
    check: Option<&str>,
    path: &Path,
    text: &str,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let (Some(name), Ok(map)) = (check, config::SourceMap::parse(text)) else {
        return Ok(());
    };
    let env = |_: &str| Some(String::new());
    let Some(server) = config.servers.get(name) else {
        return Ok(());
    };
    if let Err(crate::mcp::EndpointError::Reference(key, why)) =
        crate::mcp::Endpoint::from_config(server)
    {
        // A variable may be exported later; the server starts once it is.
        notes.push(format!(
            "servers.{}.{key}: {}",
            sanitize_line(name),
            sanitize_line(&why)
        ));
        return Ok(());
    }
    if let Some((key, message)) = crate::mcp::refusal(server, &env) {
        let keys = ["servers", name, key];
        return Err(config::ConfigError::at(
            path,
            text,
            map.nearest_span(&keys),
            config::KeyPath::new(&keys).to_string(),
            sanitize_line(&message),
            Some("the server would be refused before start".into()),
        )
        .to_string());
    }
    Ok(())
}
