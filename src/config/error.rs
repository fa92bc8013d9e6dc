//! [`ConfigError`]: what is wrong with a config file, and exactly where.
//!
//! Every located error renders as `PATH:LINE:COL: MESSAGE`, followed by
//! `\n  hint: HINT` when there is a hint. LINE and COL are 1-based; COL counts
//! characters, not bytes.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// What kind of problem a located error reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file is not valid TOML.
    Syntax,
    /// A key the table does not accept.
    UnknownKey,
    /// A required key is absent.
    MissingKey,
    /// A value of the wrong TOML type.
    WrongType,
    /// A value of the right type that is not accepted (enum value, range, rule…).
    InvalidValue,
}

/// A problem at a place in a config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub path: PathBuf,
    /// Byte range in the source text.
    pub span: Range<usize>,
    /// 1-based line of `span.start`.
    pub line: usize,
    /// 1-based column (in characters) of `span.start`.
    pub column: usize,
    pub kind: ErrorKind,
    /// Dotted key path of the offending key or value (`servers.weather.command`); empty
    /// for syntax errors.
    pub key: String,
    /// The message after `PATH:LINE:COL: `.
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.line,
            self.column,
            self.message
        )?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

/// Why a configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read (missing explicit file, permissions, not UTF-8…).
    #[error("{}: cannot read config: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file was read but its content is wrong at a known place.
    #[error("{0}")]
    Invalid(Box<Located>),
}

impl ConfigError {
    /// Report a problem with the value at `span` of `text` (the source of `path`).
    ///
    /// `key` is the dotted key path (`policy.allow[2]`); when not empty the message is
    /// shown as `` `key`: message ``. Used by validators outside this module (policy
    /// rules, key bindings) so that every config error looks the same.
    pub fn at(
        path: &Path,
        text: &str,
        span: Range<usize>,
        key: impl Into<String>,
        message: impl Into<String>,
        hint: Option<String>,
    ) -> Self {
        let key = key.into();
        let message = message.into();
        let message = if key.is_empty() {
            message
        } else {
            format!("`{key}`: {message}")
        };
        Self::located(
            path,
            text,
            span,
            ErrorKind::InvalidValue,
            key,
            message,
            hint,
        )
    }

    /// A located error with a fully rendered message.
    pub(crate) fn located(
        path: &Path,
        text: &str,
        span: Range<usize>,
        kind: ErrorKind,
        key: String,
        message: String,
        hint: Option<String>,
    ) -> Self {
        let (line, column) = line_column(text, span.start);
        Self::Invalid(Box::new(Located {
            path: path.to_path_buf(),
            span,
            line,
            column,
            kind,
            key,
            message,
            hint,
        }))
    }

    /// The located details, unless this is a read error.
    pub fn located_detail(&self) -> Option<&Located> {
        match self {
            Self::Invalid(located) => Some(located),
            Self::Read { .. } => None,
        }
    }

    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            Self::Read { path, .. } => path,
            Self::Invalid(located) => &located.path,
        }
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`. Offsets past the
/// end, or inside a character, are clamped.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_is_one_based_and_counts_chars() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 4), (1, 5));
        assert_eq!(line_column(text, 6), (2, 1));
        // "bé = " is 6 bytes but 5 characters.
        assert_eq!(line_column(text, 12), (2, 6));
        assert_eq!(line_column(text, 999), (3, 1));
        assert_eq!(line_column(text, 8), (2, 2));
    }

    #[test]
    fn at_renders_key_message_and_hint() {
        let text = "[policy]\nallow = [\"x\"]\n";
        let err = ConfigError::at(
            Path::new("c.toml"),
            text,
            18..21,
            "policy.allow[0]",
            "bad rule",
            Some("write `server.tool`".into()),
        );
        assert_eq!(
            err.to_string(),
            "c.toml:2:10: `policy.allow[0]`: bad rule\n  hint: write `server.tool`"
        );
    }

    #[test]
    fn read_error_names_the_file() {
        let err = ConfigError::Read {
            path: PathBuf::from("/x/c.toml"),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        };
        assert_eq!(err.to_string(), "/x/c.toml: cannot read config: gone");
    }
}
