//! `tool_search`: the tool a model gets in place of many tools' declarations. It
//! ranks every tool of the registry (BM25 over name, title, description and argument
//! names, `index.rs`) and names the best ones; the agent declares those from its next
//! request on. The search is a read, and like every call it passes the gate; the tools
//! it finds are gated like any other when called.

mod index;

use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde_json::{Map, Value};

pub use index::{IdentTokenizer, ToolIndex};

use super::builtin_specs::tool_search_spec;
use super::{Registry, Tool, ToolContext, ToolError, ToolResult, ToolSpec};

/// The search tool's name.
pub const TOOL_SEARCH: &str = "tool_search";
/// Tools one search returns unless it asks for another number.
pub const DEFAULT_LIMIT: usize = 5;
/// The most tools one search returns.
pub const MAX_LIMIT: usize = 20;
/// The first line of a result that found tools; the lines after it that start with
/// `- NAME` name them (what [`found_in_result`] reads back).
const FOUND_HEADING: &str = "Tools found; each can be called from your next step on:";

/// `tool_search` over the tools of one registry.
pub struct ToolSearch {
    spec: ToolSpec,
    registry: Weak<Registry>,
    /// The index and the registry generation it was built at.
    index: Mutex<Option<(u64, Arc<ToolIndex>)>>,
}

impl std::fmt::Debug for ToolSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSearch").finish_non_exhaustive()
    }
}

impl ToolSearch {
    pub fn new(registry: &Arc<Registry>) -> Self {
        Self {
            spec: tool_search_spec(),
            registry: Arc::downgrade(registry),
            index: Mutex::default(),
        }
    }

    /// The index of the registry's tools now (built again only after a change).
    fn index(&self) -> Option<Arc<ToolIndex>> {
        let registry = self.registry.upgrade()?;
        let generation = registry.generation();
        let mut slot = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((built, index)) = slot.as_ref()
            && *built == generation
        {
            return Some(Arc::clone(index));
        }
        let specs = registry
            .model_specs()
            .into_iter()
            .filter(|s| s.name != TOOL_SEARCH)
            .collect();
        let index = Arc::new(ToolIndex::new(specs));
        *slot = Some((generation, Arc::clone(&index)));
        Some(index)
    }
}

/// Registers `tool_search` with `registry` unless it is there already.
pub async fn ensure_registered(registry: &Arc<Registry>) -> Result<(), ToolError> {
    if registry.contains(TOOL_SEARCH) {
        return Ok(());
    }
    match registry.register(Arc::new(ToolSearch::new(registry))).await {
        Ok(()) | Err(ToolError::Duplicate { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

#[async_trait::async_trait]
impl Tool for ToolSearch {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, args: Map<String, Value>, ctx: &ToolContext) -> ToolResult {
        let Some(query) = args.get("query").and_then(Value::as_str) else {
            return ToolResult::error("tool_search needs a `query` (words, or select:NAME,NAME)");
        };
        let limit = args
            .get("limit")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_LIMIT, |n| {
                usize::try_from(n).unwrap_or(MAX_LIMIT).clamp(1, MAX_LIMIT)
            });
        let Some(index) = self.index() else {
            return ToolResult::error("tool_search: the registry is gone");
        };
        let found = match query.trim().strip_prefix("select:") {
            Some(names) => index.select(&names.split(',').collect::<Vec<_>>()),
            None => index.search(query, limit),
        };
        // Only tools this caller may use: a read-only turn's reads, an agent's allowlist.
        let usable: Vec<&ToolSpec> = found
            .into_iter()
            .filter(|s| ctx.allowlist.as_ref().is_none_or(|l| l.allows(&s.name)))
            .filter(|s| ctx.scope == super::Scope::Full || can_read(s))
            .collect();
        result(query, &usable, index.len())
    }
}

fn can_read(spec: &ToolSpec) -> bool {
    spec.default_effect == super::ToolEffect::Read
        || spec
            .effect_mapping()
            .values()
            .any(|e| *e == super::ToolEffect::Read)
}

fn result(query: &str, found: &[&ToolSpec], searched: usize) -> ToolResult {
    if found.is_empty() {
        return ToolResult::text(format!(
            "No tool matched {query:?} among {searched} tools. Try other words (what the \
             tool does, or an argument's name)."
        ));
    }
    // Plain text only: the model reads it as it is, and the heading stays the first
    // line for `found_in_result`.
    let mut text = format!("{FOUND_HEADING}\n");
    for spec in found {
        let args = argument_names(spec);
        let description = first_sentence(&spec.description);
        let _ = write!(text, "- {}", spec.name);
        if !description.is_empty() {
            let _ = write!(text, ": {description}");
        }
        if !args.is_empty() {
            let _ = write!(text, " (arguments: {})", args.join(", "));
        }
        text.push('\n');
    }
    ToolResult::text(text)
}

fn argument_names(spec: &ToolSpec) -> Vec<String> {
    spec.input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// The description up to its first sentence end or line break, at most 200 characters.
fn first_sentence(description: &str) -> String {
    let line = description.lines().next().unwrap_or_default().trim();
    let end = line.find(". ").map_or(line.len(), |i| i + 1);
    let cut: String = line[..end].chars().take(200).collect();
    cut
}

/// The tools a `tool_search` result named, in its order: how a conversation (live or
/// resumed) knows what was found.
pub fn found_in_result(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    if lines.next() != Some(FOUND_HEADING) {
        return Vec::new();
    }
    lines
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split([':', ' ']).next())
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn results_name_the_tools_they_found() {
        let a = ToolSpec::builder("w__forecast")
            .description("Forecast for a city. Uses the network.")
            .input_schema(json!({"type": "object", "properties": {"city": {}}}))
            .build();
        let b = ToolSpec::builder("w__alerts").build();
        let r = result("weather", &[&a, &b], 9);
        let text = r.text_content();
        assert_eq!(
            text,
            format!(
                "{FOUND_HEADING}\n- w__forecast: Forecast for a city. (arguments: city)\n- w__alerts\n"
            )
        );
        assert_eq!(found_in_result(&text), ["w__forecast", "w__alerts"]);
        let none = result("zzz", &[], 9).text_content();
        assert!(none.contains("among 9 tools"), "{none}");
        assert!(found_in_result(&none).is_empty());
    }
}

/// A `tool_search` result naming `names` (space-separated), for other modules' tests.
#[cfg(test)]
pub mod tests_support {
    use super::ToolSpec;

    pub fn result_text(names: &str) -> String {
        let specs: Vec<ToolSpec> = names
            .split_whitespace()
            .map(|n| ToolSpec::builder(n).build())
            .collect();
        let refs: Vec<&ToolSpec> = specs.iter().collect();
        super::result("q", &refs, 9).text_content()
    }
}
