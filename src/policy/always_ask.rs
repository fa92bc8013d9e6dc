//! `[policy] always_ask`: tool-name globs whose calls ask the person in every mode,
//! full-auto included. They only tighten: a call the rules, a session grant or the
//! mode would run asks instead; a denied call stays denied, and a read-only scope
//! refuses before any of it. Such a question is for the person: a
//! `permission_request` hook cannot answer it (its deny still refuses).

use globset::{GlobBuilder, GlobMatcher};

/// What is wrong with an `always_ask` pattern.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AlwaysAskError {
    #[error("is empty: write a tool-name glob such as `shell` or `github__*`")]
    Empty,
    #[error(
        "`{pattern}` has arguments, but always_ask takes tool-name globs only (for arguments write an `ask` rule)"
    )]
    HasArguments { pattern: String },
    #[error("not a glob: {}", .0.kind())]
    NotAGlob(#[source] globset::Error),
}

/// One `always_ask` pattern.
#[derive(Debug, Clone)]
pub struct AlwaysAsk {
    text: String,
    matcher: GlobMatcher,
}

impl AlwaysAsk {
    /// A glob over the qualified tool name (`shell`, `github__*`); `Err` says what is
    /// wrong with it.
    pub fn parse(text: &str) -> Result<Self, AlwaysAskError> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(AlwaysAskError::Empty);
        }
        if trimmed.contains('(') {
            return Err(AlwaysAskError::HasArguments {
                pattern: trimmed.to_owned(),
            });
        }
        GlobBuilder::new(trimmed)
            .backslash_escape(true)
            .build()
            .map(|glob| Self {
                text: trimmed.to_owned(),
                matcher: glob.compile_matcher(),
            })
            .map_err(AlwaysAskError::NotAGlob)
    }

    /// The pattern as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn matches(&self, tool: &str) -> bool {
        self.matcher.is_match(tool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_over_tool_names() {
        let p = AlwaysAsk::parse("github__*").unwrap_or_else(|e| panic!("{e}"));
        assert!(p.matches("github__create_issue"));
        assert!(!p.matches("gitlab__create_issue"));
        assert!(AlwaysAsk::parse("  ").is_err());
        assert!(AlwaysAsk::parse("fs(write:*)").is_err());
        assert!(AlwaysAsk::parse("weather__[x").is_err());
    }
}
