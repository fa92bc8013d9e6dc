//! Find, read, parse and validate the config file.

use std::path::Path;

use super::decode;
use super::error::{ConfigError, ErrorKind};
use super::model::Config;
use super::validate::{PartCheck, no_part_checks, validate};
use crate::paths::{CandidateOrigin, ConfigCandidate, Dirs};

/// A parsed, validated configuration and where it came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedConfig {
    pub config: Config,
    /// The file that was used; `None` when no file exists (offline defaults).
    pub source: Option<ConfigCandidate>,
    /// The file's text, so later validators can report located errors
    /// ([`ConfigError::at`]); empty when there is no file.
    pub text: String,
}

/// Load the first config that exists in the search order of `dirs` (see
/// [`Dirs::config_candidates`]), that one file alone. An explicit path must exist; no
/// file at all yields [`Config::default`]. This knows nothing of layers or trust: the
/// front ends load through `crate::trust::Loaded`; this is for embedding and benches
/// that hand a config to a `Workbench` themselves.
pub fn load(dirs: &Dirs, explicit: Option<&Path>) -> Result<LoadedConfig, ConfigError> {
    let Some(candidate) = find_source(dirs, explicit) else {
        return Ok(LoadedConfig::default());
    };
    let text = std::fs::read_to_string(&candidate.path).map_err(|source| ConfigError::Read {
        path: candidate.path.clone(),
        source,
    })?;
    let config = parse_str(&text, &candidate.path)?;
    Ok(LoadedConfig {
        config,
        source: Some(candidate),
        text,
    })
}

/// The candidate [`load`] would read: the explicit path whether or not it exists, else
/// the first existing file.
pub fn find_source(dirs: &Dirs, explicit: Option<&Path>) -> Option<ConfigCandidate> {
    dirs.config_candidates(explicit)
        .into_iter()
        .find(|c| c.origin == CandidateOrigin::Explicit || c.path.is_file())
}

/// Parse and validate config `text` by config's own rules; `path` is only used in
/// error messages. The front ends parse through `crate::settings::parse_str`, which
/// also checks policy rules, hooks and key bindings.
pub fn parse_str(text: &str, path: &Path) -> Result<Config, ConfigError> {
    parse_checked(text, path, &no_part_checks)
}

/// As [`parse_str`], with `parts` checking what other modules own.
pub fn parse_checked(text: &str, path: &Path, parts: PartCheck<'_>) -> Result<Config, ConfigError> {
    let config = decode_str(text, path)?;
    validate(&config, path, text, parts)?;
    Ok(config)
}

/// Parse config `text` into the model, checking its shape (types, unknown keys) but
/// not what it refers to; `path` is only used in error messages.
pub fn decode_str(text: &str, path: &Path) -> Result<Config, ConfigError> {
    decode_toml(text, path)
}

/// Decodes any TOML file of switchboard's into `T`, with the config's errors: a syntax
/// error, an unknown key or a wrong type names the file, line, column and key.
pub fn decode_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<T, ConfigError> {
    let deserializer =
        toml::de::Deserializer::parse(text).map_err(|e| syntax_error(path, text, &e))?;
    serde_path_to_error::deserialize(deserializer).map_err(|e| decode::explain(path, text, &e))
}

fn syntax_error(path: &Path, text: &str, err: &toml::de::Error) -> ConfigError {
    let first_line = err.message().lines().next().unwrap_or_default();
    ConfigError::located(
        path,
        text,
        err.span().unwrap_or(0..0),
        ErrorKind::Syntax,
        String::new(),
        format!("invalid TOML: {first_line}"),
        None,
    )
}
