//! What a tool call does to the world: the classification every policy decision starts from.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The effect of one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolEffect {
    /// Looks, never changes anything.
    Read,
    /// Runs something (a program, a computation) whose effects are not known.
    Compute,
    /// Creates or changes something.
    Write,
    /// Removes something.
    Delete,
    /// The tool declared nothing we can trust.
    Unknown,
}

impl ToolEffect {
    pub const ALL: [Self; 5] = [
        Self::Read,
        Self::Compute,
        Self::Write,
        Self::Delete,
        Self::Unknown,
    ];

    /// The lowercase name used in config, rules and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Compute => "compute",
            Self::Write => "write",
            Self::Delete => "delete",
            Self::Unknown => "unknown",
        }
    }
}

impl fmt::Display for ToolEffect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not one of `read`, `compute`, `write`, `delete`, `unknown`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown effect {0:?}: expected read, compute, write, delete or unknown")]
pub struct ParseEffectError(pub String);

impl FromStr for ToolEffect {
    type Err = ParseEffectError;

    /// Case-insensitive.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|e| e.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ParseEffectError(s.to_owned()))
    }
}
