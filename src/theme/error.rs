//! Why a theme could not be loaded, with the file position when there is one.

use std::path::PathBuf;
use std::sync::Arc;

/// A theme failed to load.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    /// A problem inside a theme file, e.g.
    /// `themes/ocean.toml:7:10: unknown colour `blurple` for `title.fg``.
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        /// The file path, or `themes/NAME.toml (built-in)`.
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// No built-in or user theme has this name.
    #[error("theme `{name}` not found (available: {})", .available.join(", "))]
    NotFound {
        name: String,
        available: Vec<String>,
    },
    /// `extends` leads back to a theme already in the chain.
    #[error("theme `{name}` extends itself through {}", .chain.join(" → "))]
    Cycle {
        name: String,
        /// The loop, starting and ending with `name`.
        chain: Vec<String>,
    },
    /// A user theme file exists but could not be read.
    #[error("cannot read theme file {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A position in a theme file (1-based line and column, columns in chars).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Location {
    pub(super) path: Arc<str>,
    pub(super) line: usize,
    pub(super) column: usize,
}

impl Location {
    /// The location of byte `offset` in `text`.
    pub(super) fn at(path: &Arc<str>, text: &str, offset: usize) -> Self {
        let before = text.get(..offset).unwrap_or(text);
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Self {
            path: Arc::clone(path),
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }

    pub(super) fn error(&self, message: impl Into<String>) -> ThemeError {
        ThemeError::Invalid {
            path: self.path.to_string(),
            line: self.line,
            column: self.column,
            message: message.into(),
        }
    }
}

/// A value together with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Located<T> {
    pub(super) value: T,
    pub(super) at: Location,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_counts_lines_and_chars() {
        let path: Arc<str> = "t.toml".into();
        let text = "a = 1\nñé = \"x\"\n";
        let at = Location::at(&path, text, text.find('"').unwrap());
        assert_eq!((at.line, at.column), (2, 6));
        assert_eq!(at.error("boom").to_string(), "t.toml:2:6: boom");
        let start = Location::at(&path, text, 0);
        assert_eq!((start.line, start.column), (1, 1));
    }
}
