//! Which tools a model request declares: every tool, or, with tool search on, the
//! direct ones, `tool_search`, and the tools searches found in this conversation
//! (appended in the order found, so the start of the request stays the same and a
//! provider's prompt cache stays valid).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::config::{Config, ToolExposure, ToolSearchSetting};
use crate::llm::{DeclarationShape, DeclarationSize, Message, ToolDeclaration};
use crate::tools::search::{TOOL_SEARCH, found_in_result};

/// How a session declares tools (from `[mcp] tool_search`, each server's
/// `tool_exposure` and `direct_tools`, and the model's context window).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSearchOptions {
    pub setting: ToolSearchSetting,
    /// Percent of the window the declarations may take before `auto` searches.
    pub threshold: u8,
    /// The model's context window, in tokens.
    pub window: u64,
    pub shape: DeclarationShape,
    /// Servers whose tools are deferred (every configured server not `direct`).
    pub deferred_servers: BTreeSet<String>,
    /// Qualified names declared in every request even so.
    pub direct_tools: BTreeSet<String>,
}

impl Default for ToolSearchOptions {
    /// Off: every tool declared, as a session built by hand expects.
    fn default() -> Self {
        Self {
            setting: ToolSearchSetting::Off,
            threshold: crate::config::DEFAULT_TOOL_SEARCH_THRESHOLD,
            window: 128_000,
            shape: DeclarationShape::Openai,
            deferred_servers: BTreeSet::new(),
            direct_tools: BTreeSet::new(),
        }
    }
}

impl ToolSearchOptions {
    /// The options of a session of `config` talking to a provider of `kind` about
    /// `model`, whose configured window (if any) is `window`.
    pub fn from_config(config: &Config, kind: &str, model: &str, window: Option<u64>) -> Self {
        let mut deferred_servers = BTreeSet::new();
        let mut direct_tools = BTreeSet::new();
        for (name, server) in &config.servers {
            if server.tool_exposure != Some(ToolExposure::Direct) {
                deferred_servers.insert(name.clone());
            }
            for tool in &server.direct_tools {
                direct_tools.insert(crate::tools::qualified_name(name, tool));
            }
        }
        Self {
            setting: config.mcp.tool_search,
            threshold: config.mcp.tool_search_threshold,
            window: window.unwrap_or_else(|| crate::llm::context_window(kind, model)),
            shape: DeclarationShape::of_kind(kind),
            deferred_servers,
            direct_tools,
        }
    }

    /// Whether `name` is declared only once a search finds it (when search is on).
    pub fn deferred(&self, name: &str) -> bool {
        !self.direct_tools.contains(name)
            && crate::tools::split_qualified(name)
                .is_some_and(|(server, _)| self.deferred_servers.contains(server))
    }

    /// Whether tool search is on for declarations of `tokens` estimated tokens.
    pub fn searching(&self, tokens: usize) -> bool {
        match self.setting {
            ToolSearchSetting::Off => false,
            ToolSearchSetting::On => true,
            ToolSearchSetting::Auto => {
                let tokens = u64::try_from(tokens).unwrap_or(u64::MAX);
                tokens.saturating_mul(100) >= self.window * u64::from(self.threshold)
            }
        }
    }
}

/// What a session's tool declarations are weighed with: the provider kind (their
/// shape) and the model's context window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolBudget {
    pub kind: String,
    pub window: u64,
}

/// What one request declares, and what that costs against the window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferReport {
    /// Tools declared, and their estimated tokens.
    pub offered: usize,
    pub offered_tokens: usize,
    /// Every tool the model could use, and their estimated tokens.
    pub total: usize,
    pub total_tokens: usize,
    /// The model's context window, in tokens.
    pub window: u64,
    /// Tool search is on: the rest are found through `tool_search`.
    pub search: bool,
}

/// The declarations of one request from `all` the tools the model may use.
pub fn offer(
    options: &ToolSearchOptions,
    mut all: Vec<ToolDeclaration>,
    history: &[Message],
) -> (Vec<ToolDeclaration>, OfferReport) {
    let search = all
        .iter()
        .position(|d| d.name == TOOL_SEARCH)
        .map(|i| all.remove(i));
    let total_tokens = DeclarationSize::of_all(&all).tokens(options.shape);
    let mut report = OfferReport {
        total: all.len(),
        total_tokens,
        window: options.window,
        ..OfferReport::default()
    };
    let any_deferred = all.iter().any(|d| options.deferred(&d.name));
    let tools = match search {
        Some(search) if any_deferred && options.searching(total_tokens) => {
            report.search = true;
            let loaded = found_so_far(history);
            let (mut direct, deferred): (Vec<_>, Vec<_>) =
                all.into_iter().partition(|d| !options.deferred(&d.name));
            direct.push(search);
            for name in loaded {
                if let Some(d) = deferred.iter().find(|d| d.name == name) {
                    direct.push(d.clone());
                }
            }
            direct
        }
        _ => all,
    };
    report.offered = tools.len();
    report.offered_tokens = DeclarationSize::of_all(&tools).tokens(options.shape);
    (tools, report)
}

/// The size of a server's tool declarations under their qualified names (what the
/// model is sent; an app-only MCP Apps tool is never sent).
pub fn catalog_size(server: &str, tools: &[crate::mcp::CatalogTool]) -> DeclarationSize {
    tools
        .iter()
        .filter(|t| !t.app_only())
        .map(|t| {
            let name = crate::tools::qualified_name(server, &t.name);
            let description = if t.description.is_empty() {
                t.title.as_deref().unwrap_or_default()
            } else {
                &t.description
            };
            DeclarationSize::of(&name, description, &t.input_schema)
        })
        .sum()
}

/// The provider kind and window of `config`'s default provider (the built-in
/// scripted one when none is set): what headless reports weigh tools against.
pub fn default_budget(config: &Config) -> ToolBudget {
    let provider = config
        .default_provider
        .as_deref()
        .and_then(|name| config.providers.get(name));
    let kind = provider.map_or("scripted", |p| p.kind.as_str());
    let model = provider
        .and_then(|p| p.model.as_deref())
        .unwrap_or_default();
    ToolBudget {
        kind: kind.to_owned(),
        window: provider
            .and_then(|p| p.context_window)
            .unwrap_or_else(|| crate::llm::context_window(kind, model)),
    }
}

/// The tools `tool_search` found in `history`, each once, in the order found.
pub fn found_so_far(history: &[Message]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    history
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                name,
                content,
                is_error: false,
                ..
            } if name == TOOL_SEARCH => Some(found_in_result(content)),
            _ => None,
        })
        .flatten()
        .filter(|n| seen.insert(n.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn decl(name: &str) -> ToolDeclaration {
        ToolDeclaration {
            name: name.into(),
            description: "does a thing with some words".into(),
            parameters: json!({"type": "object"}),
        }
    }

    fn options(setting: ToolSearchSetting) -> ToolSearchOptions {
        ToolSearchOptions {
            setting,
            deferred_servers: ["big".to_owned()].into(),
            direct_tools: ["big__pinned".to_owned()].into(),
            ..ToolSearchOptions::default()
        }
    }

    fn names(tools: &[ToolDeclaration]) -> Vec<&str> {
        tools.iter().map(|t| t.name.as_str()).collect()
    }

    fn all() -> Vec<ToolDeclaration> {
        [
            "big__a",
            "big__b",
            "big__pinned",
            "fs",
            "small__x",
            TOOL_SEARCH,
        ]
        .into_iter()
        .map(decl)
        .collect()
    }

    fn found(names: &str) -> Message {
        let text = crate::tools::search::tests_support::result_text(names);
        Message::tool("c1", TOOL_SEARCH, text, false)
    }

    #[test]
    fn off_declares_everything_but_the_search_tool() {
        let (tools, report) = offer(&options(ToolSearchSetting::Off), all(), &[]);
        assert_eq!(
            names(&tools),
            ["big__a", "big__b", "big__pinned", "fs", "small__x"]
        );
        assert!(!report.search);
        assert_eq!(report.offered_tokens, report.total_tokens);
    }

    #[test]
    fn on_declares_direct_tools_the_search_and_what_was_found_in_order() {
        let options = options(ToolSearchSetting::On);
        let (tools, report) = offer(&options, all(), &[]);
        assert_eq!(
            names(&tools),
            ["big__pinned", "fs", "small__x", TOOL_SEARCH]
        );
        assert!(report.search && report.offered_tokens < report.total_tokens);
        assert_eq!((report.offered, report.total), (4, 5));
        // Found tools are appended, first found first, and each once.
        let history = [found("big__b"), found("big__a big__b")];
        let (tools, _) = offer(&options, all(), &history);
        assert_eq!(
            names(&tools),
            [
                "big__pinned",
                "fs",
                "small__x",
                TOOL_SEARCH,
                "big__b",
                "big__a"
            ]
        );
    }

    #[test]
    fn auto_searches_past_the_threshold_of_the_window() {
        let mut options = options(ToolSearchSetting::Auto);
        let total = DeclarationSize::of_all(&all()[..5]).tokens(options.shape) as u64;
        // Just under 5 % of the window: everything declared.
        options.window = total * 100 / 5 + 1;
        assert!(!offer(&options, all(), &[]).1.search);
        options.window = total * 100 / 5;
        assert!(offer(&options, all(), &[]).1.search);
        // Nothing to defer: no search whatever the size.
        options.deferred_servers.clear();
        assert!(!offer(&options, all(), &[]).1.search);
    }

    #[test]
    fn servers_are_deferred_unless_direct() {
        let config: Config = toml::from_str(
            "[servers.big]\ncommand = \"x\"\ndirect_tools = [\"keep\"]\n\
             [servers.pinned]\ncommand = \"y\"\ntool_exposure = \"direct\"\n\
             [providers.c]\nkind = \"anthropic\"\n",
        )
        .unwrap();
        let options = ToolSearchOptions::from_config(&config, "anthropic", "claude", None);
        assert!(options.deferred("big__other"));
        assert!(!options.deferred("big__keep"));
        assert!(!options.deferred("pinned__t"));
        assert!(!options.deferred("fs"));
        assert_eq!(options.window, 200_000);
        assert_eq!(options.setting, ToolSearchSetting::Auto);
    }
}
