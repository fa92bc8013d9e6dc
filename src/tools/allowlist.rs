//! A sub-agent's tool allowlist: globs over qualified tool names. The gate refuses a
//! call to a tool outside it (before any rule), and the agent is offered only the
//! tools it admits.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// The rule a refusal by an agent's allowlist names.
pub const ALLOWLIST: &str = "the agent's tool allowlist";

/// A pattern that is not a glob.
#[derive(Debug, thiserror::Error)]
pub enum AllowlistError {
    #[error("`{pattern}` is not a glob: {}", .source.kind())]
    NotAGlob {
        pattern: String,
        #[source]
        source: globset::Error,
    },
    #[error(transparent)]
    Build(#[from] globset::Error),
}

/// Tool names an agent may call.
#[derive(Debug, Clone)]
pub struct ToolAllowlist {
    patterns: Vec<String>,
    set: GlobSet,
}

impl ToolAllowlist {
    /// Compiles `patterns` (`fs`, `weather__*`); the first bad one is the error.
    pub fn new(patterns: &[String]) -> Result<Self, AllowlistError> {
        let mut builder = GlobSetBuilder::new();
        for p in patterns {
            builder.add(Glob::new(p).map_err(|source| AllowlistError::NotAGlob {
                pattern: p.clone(),
                source,
            })?);
        }
        let set = builder.build()?;
        Ok(Self {
            patterns: patterns.to_vec(),
            set,
        })
    }

    pub fn allows(&self, tool: &str) -> bool {
        self.set.is_match(tool)
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Why `agent` may not call `tool`, if it may not.
    pub fn refusal(&self, tool: &str, agent: Option<&str>) -> Option<String> {
        (!self.allows(tool)).then(|| {
            format!(
                "Denied: {tool} is not among the tools agent {} may call ({}).",
                agent.unwrap_or("this agent"),
                self.patterns.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_names() {
        let list = ToolAllowlist::new(&["fs".into(), "weather__*".into()]).unwrap();
        assert!(list.allows("fs"));
        assert!(list.allows("weather__get_forecast"));
        assert!(!list.allows("fs2"));
        assert!(!list.allows("shell"));
        assert!(ToolAllowlist::new(&["[".into()]).is_err());
    }
}
