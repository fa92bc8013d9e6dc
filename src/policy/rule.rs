//! Permission rules: parsing and matching.
//!
//! Syntax: `NAME` or `NAME(PATTERN)` or `NAME(SELECTOR:PATTERN)`.
//! - `NAME` is a glob on the qualified tool name (`everything__echo`, `weather__*`, `fs`).
//! - `SELECTOR` is matched case-insensitively against the call's effect-selector value
//!   (`write`, `GET`, `delete`) *or* its effect name; `*` matches any.
//! - `PATTERN` is a glob on the call's subject (path, URL, command line). For paths `*`
//!   stops at `/` and `**` crosses it; for command lines `*` matches anything. A lone `*`
//!   matches any subject, including none.

use std::fmt;
use std::str::FromStr;

use globset::{GlobBuilder, GlobMatcher};

use super::decision::CallFacts;
use super::decision::SubjectStyle;

/// Why a rule string is not a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("empty rule")]
    Empty,
    #[error("rule {0:?} has `(` without a closing `)` at the end")]
    Unclosed(String),
    #[error("rule {0:?} has a `)` without `(`")]
    StrayParen(String),
    #[error("rule {0:?} has no tool name before `(`")]
    NoToolName(String),
    #[error("rule {0:?}: the tool name may not contain spaces")]
    SpaceInName(String),
    #[error("rule {0:?} has an empty pattern inside `()`")]
    EmptyPattern(String),
    #[error("rule {rule:?}: invalid glob {glob:?}: {message}")]
    Glob {
        rule: String,
        glob: String,
        message: String,
    },
}

/// A glob on a call's subject, compiled for both path and text styles.
#[derive(Debug, Clone)]
pub struct SubjectPattern {
    text: String,
    path_style: GlobMatcher,
    text_style: GlobMatcher,
}

impl SubjectPattern {
    pub fn new(pattern: &str) -> Result<Self, globset::Error> {
        Ok(Self {
            text: pattern.to_owned(),
            path_style: compile(pattern, true)?,
            text_style: compile(pattern, false)?,
        })
    }

    /// A pattern that matches exactly `subject` (glob metacharacters escaped).
    pub fn exact(subject: &str) -> Result<Self, globset::Error> {
        Self::new(&escape_glob(subject))
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the subject (none counts as empty) matches.
    pub fn matches(&self, subject: Option<&str>, style: SubjectStyle) -> bool {
        if self.text == "*" {
            return true;
        }
        let subject = subject.unwrap_or("");
        match style {
            SubjectStyle::Path => self.path_style.is_match(subject),
            SubjectStyle::Text => self.text_style.is_match(subject),
        }
    }
}

impl PartialEq for SubjectPattern {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for SubjectPattern {}

fn compile(pattern: &str, literal_separator: bool) -> Result<GlobMatcher, globset::Error> {
    Ok(GlobBuilder::new(pattern)
        .literal_separator(literal_separator)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()?
        .compile_matcher())
}

/// Escapes glob metacharacters so the text matches only itself.
pub fn escape_glob(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One parsed rule.
#[derive(Debug, Clone)]
pub struct Rule {
    text: String,
    tool: GlobMatcher,
    /// Lowercased; `None` matches any selector.
    selector: Option<String>,
    subject: Option<SubjectPattern>,
}

impl Rule {
    pub fn parse(text: &str) -> Result<Self, RuleError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RuleError::Empty);
        }
        let (name, inner) = match text.find('(') {
            Some(open) => {
                let inner = text[open + 1..]
                    .strip_suffix(')')
                    .ok_or_else(|| RuleError::Unclosed(text.to_owned()))?;
                (&text[..open], Some(inner))
            }
            None if text.contains(')') => return Err(RuleError::StrayParen(text.to_owned())),
            None => (text, None),
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(RuleError::NoToolName(text.to_owned()));
        }
        if name.contains(char::is_whitespace) {
            return Err(RuleError::SpaceInName(text.to_owned()));
        }
        let glob_error = |glob: &str, e: globset::Error| RuleError::Glob {
            rule: text.to_owned(),
            glob: glob.to_owned(),
            message: e.kind().to_string(),
        };
        let tool = compile(name, false).map_err(|e| glob_error(name, e))?;
        let (selector, subject) = match inner {
            None => (None, None),
            Some(inner) => {
                let (selector, pattern) = split_selector(inner);
                if pattern.trim().is_empty() {
                    return Err(RuleError::EmptyPattern(text.to_owned()));
                }
                let pattern = SubjectPattern::new(pattern).map_err(|e| glob_error(pattern, e))?;
                (selector, Some(pattern))
            }
        };
        Ok(Self {
            text: text.to_owned(),
            tool,
            selector,
            subject,
        })
    }

    /// The rule as written (trimmed).
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn matches(&self, call: &CallFacts) -> bool {
        self.tool.is_match(&call.tool)
            && self.selector.as_deref().is_none_or(|sel| {
                sel.eq_ignore_ascii_case(call.effect.as_str())
                    || call
                        .selector
                        .as_deref()
                        .is_some_and(|v| v.eq_ignore_ascii_case(sel))
            })
            && self
                .subject
                .as_ref()
                .is_none_or(|p| p.matches(call.subject.as_deref(), call.subject_style))
    }
}

/// Splits `SELECTOR:PATTERN`; the prefix is a selector only when it is a word (or `*`)
/// and the rest is not the `//` of a URL.
fn split_selector(inner: &str) -> (Option<String>, &str) {
    if let Some((prefix, rest)) = inner.split_once(':') {
        let word = !prefix.is_empty()
            && prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if (word || prefix == "*") && !rest.starts_with("//") {
            let selector = (prefix != "*").then(|| prefix.to_ascii_lowercase());
            return (selector, rest);
        }
    }
    (None, inner)
}

impl FromStr for Rule {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Rule {}
