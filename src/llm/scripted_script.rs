//! Script files for the scripted provider: JSONL, one model response per line.
//!
//! ```text
//! # comments and blank lines are skipped
//! {"text": "Let me look.", "tool_calls": [{"name": "fs", "arguments": {"operation": "list", "path": "."}}]}
//! {"text": "There are three files."}
//! {"error": "simulated outage"}
//! ```
//!
//! Each model request replays the next line: `text` is streamed, `tool_calls` are made
//! (ids `call_N` unless given), `error` fails the request with that message.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::LlmError;

/// One scripted model response.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedTurn {
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedCall>,
    /// Fail the request with this message instead.
    #[serde(default)]
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// Parses a script; errors name the line.
pub fn parse_script(text: &str, origin: &str) -> Result<Vec<ScriptedTurn>, LlmError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim();
            !l.is_empty() && !l.starts_with('#')
        })
        .map(|(n, l)| {
            serde_json::from_str(l).map_err(|e| {
                LlmError::config(
                    "scripted",
                    format!("{origin}:{}: bad script line: {e}", n + 1),
                )
            })
        })
        .collect()
}

/// Reads and parses a script file.
pub fn load_script(path: &Path) -> Result<Vec<ScriptedTurn>, LlmError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        LlmError::config(
            "scripted",
            format!("cannot read script {}: {e}", path.display()),
        )
    })?;
    parse_script(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines_and_names_bad_ones() {
        let turns = parse_script(
            "# demo\n{\"text\":\"hi\"}\n\n{\"tool_calls\":[{\"name\":\"fs\"}]}\n",
            "s.jsonl",
        )
        .unwrap();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[1].tool_calls[0].name, "fs");
        let err = parse_script("{\"text\":1}", "s.jsonl").unwrap_err();
        assert!(
            err.message.starts_with("s.jsonl:1: bad script line"),
            "{err}"
        );
    }
}
