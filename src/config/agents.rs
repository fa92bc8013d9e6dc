//! `[agents.NAME]`: agents the model can hand a task to (as the tool `agent__NAME`)
//! and the coordinator can run. Three kinds: a local agent (a provider, a prompt, a
//! tool allowlist, a scope), a `chain` of agents run as a pipeline, and an `a2a`
//! remote agent reached over the Agent2Agent protocol.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::key_path::KeyPath;
use super::locate::SourceMap;
use super::model::Config;

/// The prefix of an agent's tool name: `agent__NAME`.
pub const AGENT_TOOL_PREFIX: &str = "agent__";
/// Default `max_steps` of a sub-agent's turn.
pub const DEFAULT_AGENT_MAX_STEPS: u32 = 10;

/// What an agent is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentKind {
    /// A model with a prompt and tools, run here.
    #[default]
    Local,
    /// `agents = [...]` run as a pipeline: each output is the next one's task.
    Chain,
    /// A remote agent spoken to over A2A (`url`).
    A2a,
}

impl AgentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Local => "local",
            Self::Chain => "chain",
            Self::A2a => "a2a",
        }
    }
}

/// The access a local agent's tool calls have.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentScope {
    /// Only calls that read run, whatever the rules say (the default).
    #[default]
    ReadOnly,
    /// Calls are decided by the rules and the mode, as the main agent's are.
    Full,
}

/// `[agents.NAME]`
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentDef {
    pub kind: AgentKind,
    /// What the model is told the agent is for (the tool's description).
    pub description: Option<String>,
    /// Local: a `[providers.NAME]` (default: `default_provider`, else `scripted`).
    pub provider: Option<String>,
    /// Local: the model instead of the provider's.
    pub model: Option<String>,
    /// Local: the agent's system prompt.
    pub system_prompt: Option<String>,
    /// Local: a file holding it (relative to the workspace).
    pub system_prompt_file: Option<PathBuf>,
    /// Local: globs over tool names the agent may call (all when absent).
    pub tools: Option<Vec<String>>,
    /// Local: `read-only` (default) or `full`.
    pub scope: AgentScope,
    /// Local: model requests in one task (default 10).
    pub max_steps: Option<u32>,
    /// Chain: the agents, in order.
    pub agents: Vec<String>,
    /// A2A: the agent's base URL (its card is at `/.well-known/agent-card.json`).
    pub url: Option<String>,
    /// A2A: plain extra headers.
    pub headers: BTreeMap<String, String>,
    /// A2A: the environment variable holding a bearer token.
    pub bearer_token_env_var: Option<String>,
    /// A2A: the environment variable holding an API key.
    pub api_key_env_var: Option<String>,
    /// A2A: the header the API key goes in (default `X-API-Key`).
    pub api_key_header: Option<String>,
}

impl AgentDef {
    /// The agent's tool name.
    pub fn tool_name(name: &str) -> String {
        format!("{AGENT_TOOL_PREFIX}{name}")
    }

    pub fn max_steps(&self) -> u32 {
        self.max_steps.unwrap_or(DEFAULT_AGENT_MAX_STEPS).max(1)
    }

    /// The system prompt text, if any (`cwd` resolves a relative file).
    pub fn custom_system_prompt(
        &self,
        cwd: &Path,
    ) -> Result<Option<String>, super::SystemPromptError> {
        super::agent::custom_system_prompt(
            self.system_prompt.as_deref(),
            self.system_prompt_file.as_deref(),
            cwd,
            "",
        )
    }
}

/// A name a provider accepts inside a tool name.
fn name_problem(name: &str) -> Option<String> {
    let ok = !name.is_empty()
        && name.len() <= 48
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    (!ok).then(|| {
        format!("`{name}` is not an agent name: use letters, digits, `_` and `-` (at most 48)")
    })
}

/// Keys that only apply to some kinds.
const LOCAL_KEYS: &[&str] = &[
    "provider",
    "model",
    "system_prompt",
    "system_prompt_file",
    "tools",
    "scope",
    "max_steps",
];
const A2A_KEYS: &[&str] = &[
    "url",
    "headers",
    "bearer_token_env_var",
    "api_key_env_var",
    "api_key_header",
];

type Report<'r> = dyn FnMut(Range<usize>, String, String, Option<String>) + 'r;

/// `[agents.*]`: names, kinds and the keys each kind takes, providers and chain
/// members that exist, chains without cycles.
pub(super) fn check_agents(config: &Config, map: &SourceMap<'_>, report: &mut Report<'_>) {
    for (name, def) in &config.agents {
        let at = |key: &str| {
            let path = ["agents", name.as_str(), key];
            (map.nearest_span(&path), KeyPath::new(&path).to_string())
        };
        if let Some(message) = name_problem(name) {
            let (span, key) = (
                map.nearest_span(&["agents", name]),
                format!("agents.{name}"),
            );
            report(span, key, message, None);
        }
        let wrong: Vec<&str> = match def.kind {
            AgentKind::Local => A2A_KEYS.iter().chain(&["agents"]).copied().collect(),
            AgentKind::A2a => LOCAL_KEYS.iter().chain(&["agents"]).copied().collect(),
            AgentKind::Chain => LOCAL_KEYS.iter().chain(A2A_KEYS).copied().collect(),
        };
        for key in wrong {
            if map.key_span(&["agents", name, key]).is_some() {
                let (span, path) = at(key);
                let message = format!("`{key}` does not apply to kind = \"{}\"", def.kind.as_str());
                report(span, path, message, None);
            }
        }
        check_kind(config, name, def, &at, report);
    }
}

fn check_kind(
    config: &Config,
    name: &str,
    def: &AgentDef,
    at: &dyn Fn(&str) -> (Range<usize>, String),
    report: &mut Report<'_>,
) {
    match def.kind {
        AgentKind::Local => {
            if let Some(p) = &def.provider
                && p != super::BUILTIN_PROVIDER
                && !config.providers.contains_key(p)
            {
                let (span, key) = at("provider");
                report(span, key, format!("no provider named `{p}`"), None);
            }
            if def.max_steps == Some(0) {
                let (span, key) = at("max_steps");
                report(span, key, "must be at least 1".into(), None);
            }
            for (i, glob) in def.tools.iter().flatten().enumerate() {
                if globset::Glob::new(glob).is_err() {
                    let (span, key) = at("tools");
                    report(
                        span,
                        format!("{key}[{i}]"),
                        format!("`{glob}` is not a glob"),
                        None,
                    );
                }
            }
        }
        AgentKind::A2a => {
            if def
                .url
                .as_deref()
                .is_none_or(|u| reqwest::Url::parse(u).is_err())
            {
                let (span, key) = at("url");
                let hint =
                    Some("write the agent's base URL: url = \"https://agent.example\"".into());
                report(span, key, "an a2a agent needs a valid `url`".into(), hint);
            }
        }
        AgentKind::Chain => {
            let (span, key) = at("agents");
            if def.agents.is_empty() {
                report(span, key, "a chain needs at least one agent".into(), None);
            } else if let Some(missing) =
                def.agents.iter().find(|a| !config.agents.contains_key(*a))
            {
                report(span, key, format!("no agent named `{missing}`"), None);
            } else if reaches(config, name, name, &mut Vec::new()) {
                report(
                    span,
                    key,
                    format!("the chain `{name}` contains itself"),
                    None,
                );
            }
        }
    }
}

/// Whether `from`'s chain members reach `target`.
fn reaches(config: &Config, from: &str, target: &str, seen: &mut Vec<String>) -> bool {
    let Some(def) = config.agents.get(from) else {
        return false;
    };
    for member in &def.agents {
        if member == target {
            return true;
        }
        if seen.contains(member) {
            continue;
        }
        seen.push(member.clone());
        if reaches(config, member, target, seen) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::parse_str;

    fn error(text: &str) -> String {
        parse_str(text, Path::new("t.toml"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn agents_parse_with_read_only_default() {
        let c = parse_str(
            "[agents.scout]\ndescription = \"reads\"\ntools = [\"fs\"]\n\n[agents.pair]\nkind = \"chain\"\nagents = [\"scout\", \"scout\"]\n",
            Path::new("t.toml"),
        )
        .unwrap();
        assert_eq!(c.agents["scout"].scope, super::AgentScope::ReadOnly);
        assert_eq!(
            c.agents["scout"].max_steps(),
            super::DEFAULT_AGENT_MAX_STEPS
        );
        assert_eq!(c.agents["pair"].kind, super::AgentKind::Chain);
    }

    #[test]
    fn bad_agents_are_reported_at_their_key() {
        let e = error("[agents.a]\nkind = \"a2a\"\nprovider = \"x\"\nurl = \"http://h\"\n");
        assert!(e.starts_with("t.toml:3:"), "{e}");
        assert!(
            e.contains("agents.a.provider") && e.contains("does not apply"),
            "{e}"
        );
        let e = error("[agents.a]\nprovider = \"nope\"\n");
        assert!(e.contains("no provider named `nope`"), "{e}");
        let e = error("[agents.a]\nkind = \"chain\"\nagents = [\"a\"]\n");
        assert!(e.contains("contains itself"), "{e}");
        let e = error("[agents.a]\nkind = \"chain\"\nagents = [\"b\"]\n");
        assert!(e.contains("no agent named `b`"), "{e}");
        let e = error("[agents.a]\nkind = \"a2a\"\n");
        assert!(e.contains("needs a valid `url`"), "{e}");
        let e = error("[agents.\"a b\"]\n");
        assert!(e.contains("is not an agent name"), "{e}");
        let e = error("[agents.a]\nmax_steps = 0\n");
        assert!(e.contains("t.toml:2:") && e.contains("at least 1"), "{e}");
    }
}
