//! "Always" approvals: the exact rule to append, and appending it to a config file.

use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, Item};

use super::decision::CallFacts;
use super::decision::SubjectStyle;
use super::rule::escape_glob;

/// Appending a rule to a config file failed.
#[derive(Debug, thiserror::Error)]
pub enum AlwaysError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot parse {path} as TOML: {source}")]
    Parse {
        path: PathBuf,
        source: toml_edit::TomlError,
    },
    #[error("{path}: {key} is not {expected}")]
    Shape {
        path: PathBuf,
        key: &'static str,
        expected: &'static str,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The exact rule "always" writes for a call, e.g. `fs(write:docs/a.md)`,
/// `shell(git status)`, `everything__echo`.
pub fn always_rule_for(call: &CallFacts) -> String {
    let subject = call
        .subject
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(escape_glob);
    match (call.selector.as_deref(), subject) {
        (Some(sel), Some(sub)) => format!("{}({sel}:{sub})", call.tool),
        (Some(sel), None) => format!("{}({sel}:*)", call.tool),
        // A colon in the subject would read as a selector: make the selector explicit.
        (None, Some(sub)) if sub.contains(':') => format!("{}(*:{sub})", call.tool),
        (None, Some(sub)) => format!("{}({sub})", call.tool),
        (None, None) => call.tool.clone(),
    }
}

/// The rule a headless run suggests to allow calls like this one without asking:
/// `fs(write:*)`, `everything__echo`, or for command lines the exact command.
pub fn suggested_allow_rule(call: &CallFacts) -> String {
    match (call.selector.as_deref(), call.subject_style) {
        (Some(sel), _) => format!("{}({}:*)", call.tool, sel.to_ascii_lowercase()),
        (None, SubjectStyle::Text) if call.subject.is_some() => always_rule_for(call),
        (None, _) => call.tool.clone(),
    }
}

/// Appends `rule` to the `[policy] allow` array of the TOML file at `path`, creating the
/// file, table or array when missing and keeping everything else as it was. A rule that
/// is already there is not added twice.
pub fn append_allow_rule(path: &Path, rule: &str) -> Result<(), AlwaysError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(AlwaysError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    let mut doc: DocumentMut = text.parse().map_err(|source| AlwaysError::Parse {
        path: path.to_owned(),
        source,
    })?;
    let shape = |key, expected| AlwaysError::Shape {
        path: path.to_owned(),
        key,
        expected,
    };
    let policy = doc
        .entry("policy")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .ok_or_else(|| shape("policy", "a table"))?;
    let allow = policy
        .entry("allow")
        .or_insert(Item::Value(Array::new().into()))
        .as_array_mut()
        .ok_or_else(|| shape("policy.allow", "an array"))?;
    if !allow.iter().any(|v| v.as_str() == Some(rule)) {
        allow.push(rule);
    }
    write_atomically(path, doc.to_string().as_bytes())
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), AlwaysError> {
    let write_error = |source| AlwaysError::Write {
        path: path.to_owned(),
        source,
    };
    // The user's config directory may not exist yet.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(write_error)?;
    }
    crate::paths::write_atomic(path, bytes).map_err(write_error)
}
