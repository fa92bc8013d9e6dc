//! `[agent]`: how turns run.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Default `max_steps`: model requests in one turn.
pub const DEFAULT_MAX_STEPS: u32 = 25;
/// Default `max_tool_result_chars`: longer results are cut for the model, with a marker.
pub const DEFAULT_MAX_TOOL_RESULT_CHARS: usize = 20_000;

/// `[agent]`
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentConfig {
    /// Replaces the built-in system prompt.
    pub system_prompt: Option<String>,
    /// Replaces the built-in system prompt with a file's text (relative to the working
    /// directory). `system_prompt` wins when both are set.
    pub system_prompt_file: Option<PathBuf>,
    /// Model requests in one turn before it ends with a notice (at least 1).
    pub max_steps: u32,
    /// Tool results longer than this are cut for the model, with a visible marker.
    pub max_tool_result_chars: usize,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            system_prompt: None,
            system_prompt_file: None,
            max_steps: DEFAULT_MAX_STEPS,
            max_tool_result_chars: DEFAULT_MAX_TOOL_RESULT_CHARS,
        }
    }
}

/// `system_prompt_file` could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {table}system_prompt_file {path}: {source}")]
pub struct SystemPromptError {
    /// The table that names the file and a space (`[agent] `), or nothing.
    pub table: &'static str,
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// A custom system prompt, `[agent]`'s or an agent's: `text` when set, else the text of
/// `file` (`cwd` resolves a relative one), else none. `table` names the table in the
/// error.
pub fn custom_system_prompt(
    text: Option<&str>,
    file: Option<&Path>,
    cwd: &Path,
    table: &'static str,
) -> Result<Option<String>, SystemPromptError> {
    if let Some(text) = text {
        return Ok(Some(text.to_owned()));
    }
    let Some(file) = file else {
        return Ok(None);
    };
    let path = cwd.join(file);
    std::fs::read_to_string(&path)
        .map(Some)
        .map_err(|source| SystemPromptError {
            table,
            path,
            source,
        })
}

impl AgentConfig {
    /// The configured system prompt text, if any (`cwd` resolves a relative file).
    pub fn custom_system_prompt(&self, cwd: &Path) -> Result<Option<String>, SystemPromptError> {
        custom_system_prompt(
            self.system_prompt.as_deref(),
            self.system_prompt_file.as_deref(),
            cwd,
            "[agent] ",
        )
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::{ErrorKind, parse_str};

    #[test]
    fn agent_table_parses_and_defaults() {
        let c = parse_str(
            "[agent]\nmax_steps = 5\nsystem_prompt = \"hi\"\n",
            Path::new("t.toml"),
        )
        .unwrap();
        assert_eq!(c.agent.max_steps, 5);
        assert_eq!(
            c.agent.max_tool_result_chars,
            super::DEFAULT_MAX_TOOL_RESULT_CHARS
        );
        assert_eq!(
            c.agent
                .custom_system_prompt(Path::new("/"))
                .unwrap()
                .as_deref(),
            Some("hi")
        );
        let e = parse_str("[agent]\nmax_step = 5\n", Path::new("t.toml")).unwrap_err();
        assert_eq!(e.located_detail().unwrap().kind, ErrorKind::UnknownKey);
    }

    #[test]
    fn prompt_file_is_read_relative_to_cwd() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.md"), "from file").unwrap();
        let c = super::AgentConfig {
            system_prompt_file: Some("p.md".into()),
            ..super::AgentConfig::default()
        };
        assert_eq!(
            c.custom_system_prompt(dir.path()).unwrap().as_deref(),
            Some("from file")
        );
        let missing = super::AgentConfig {
            system_prompt_file: Some("nope.md".into()),
            ..super::AgentConfig::default()
        };
        assert!(missing.custom_system_prompt(dir.path()).is_err());
    }
}
