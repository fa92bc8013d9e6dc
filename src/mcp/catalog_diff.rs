//! What changed in a server's catalog from one listing to another: tools, prompts,
//! resources and resource templates added or removed, and tools whose input or output
//! schema changed. The TUI says it in one transcript line when a server reconnects
//! with a different catalog: `weather: +1 tool, −1 prompt, get_weather input changed`.

use std::collections::{BTreeMap, BTreeSet};

use super::catalog::{CatalogSnapshot, ListKind};
use crate::sanitize::sanitize_line;

/// At most this many tools are named for a changed schema; the rest are counted.
const NAMED_TOOLS: usize = 3;

/// Names added to and removed from one list, sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListChange {
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

impl ListChange {
    fn of<'a>(
        before: impl IntoIterator<Item = &'a str>,
        after: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let before: BTreeSet<&str> = before.into_iter().collect();
        let after: BTreeSet<&str> = after.into_iter().collect();
        Self {
            added: after.difference(&before).map(|s| (*s).to_owned()).collect(),
            removed: before.difference(&after).map(|s| (*s).to_owned()).collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }
}

/// How one tool present before and after changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaChange {
    Input,
    Output,
    Both,
}

/// What changed between two listings of one server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogDiff {
    pub tools: ListChange,
    pub prompts: ListChange,
    /// By URI.
    pub resources: ListChange,
    /// By URI template.
    pub templates: ListChange,
    /// Tools in both listings whose `inputSchema` or `outputSchema` differs, by name.
    pub schemas: BTreeMap<String, SchemaChange>,
}

impl CatalogDiff {
    /// What changed from `before` to `after`. A list that could not be fetched in
    /// either listing is left out: it did not lose its items, it was not read.
    pub fn between(before: &CatalogSnapshot, after: &CatalogSnapshot) -> Self {
        let read = |kind: ListKind| {
            ![before, after]
                .iter()
                .any(|c| c.errors.iter().any(|(k, _)| *k == kind))
        };
        let mut diff = Self::default();
        if read(ListKind::Tools) {
            diff.tools = ListChange::of(
                before.tools.iter().map(|t| t.name.as_str()),
                after.tools.iter().map(|t| t.name.as_str()),
            );
            diff.schemas = schema_changes(before, after);
        }
        if read(ListKind::Prompts) {
            diff.prompts = ListChange::of(
                before.prompts.iter().map(|p| p.name.as_str()),
                after.prompts.iter().map(|p| p.name.as_str()),
            );
        }
        if read(ListKind::Resources) {
            diff.resources = ListChange::of(
                before.resources.iter().map(|r| r.uri.as_str()),
                after.resources.iter().map(|r| r.uri.as_str()),
            );
        }
        if read(ListKind::Templates) {
            diff.templates = ListChange::of(
                before.templates.iter().map(|t| t.uri_template.as_str()),
                after.templates.iter().map(|t| t.uri_template.as_str()),
            );
        }
        diff
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
            && self.prompts.is_empty()
            && self.resources.is_empty()
            && self.templates.is_empty()
            && self.schemas.is_empty()
    }

    /// `+1 tool, −1 prompt, get_weather input changed` (names sanitised); empty when
    /// nothing changed.
    pub fn summary(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for (change, one, many) in [
            (&self.tools, "tool", "tools"),
            (&self.prompts, "prompt", "prompts"),
            (&self.resources, "resource", "resources"),
            (&self.templates, "resource template", "resource templates"),
        ] {
            for (sign, names) in [('+', &change.added), ('−', &change.removed)] {
                match names.len() {
                    0 => {}
                    1 => parts.push(format!("{sign}1 {one}")),
                    n => parts.push(format!("{sign}{n} {many}")),
                }
            }
        }
        for (name, change) in self.schemas.iter().take(NAMED_TOOLS) {
            let what = match change {
                SchemaChange::Input => "input",
                SchemaChange::Output => "output",
                SchemaChange::Both => "input and output",
            };
            parts.push(format!("{} {what} changed", sanitize_line(name)));
        }
        match self.schemas.len().saturating_sub(NAMED_TOOLS) {
            0 => {}
            1 => parts.push("1 more tool's schema changed".into()),
            n => parts.push(format!("{n} more tools' schemas changed")),
        }
        parts.join(", ")
    }

    /// The transcript's line: `SERVER: summary`.
    pub fn line(&self, server: &str) -> String {
        format!("{}: {}", sanitize_line(server), self.summary())
    }
}

fn schema_changes(
    before: &CatalogSnapshot,
    after: &CatalogSnapshot,
) -> BTreeMap<String, SchemaChange> {
    let mut out = BTreeMap::new();
    for tool in &after.tools {
        let Some(old) = before.tool(&tool.name) else {
            continue;
        };
        // Compared as JSON: the order of members does not matter.
        let input = old.input_schema != tool.input_schema;
        let output = old.output_schema != tool.output_schema;
        let change = match (input, output) {
            (true, true) => SchemaChange::Both,
            (true, false) => SchemaChange::Input,
            (false, true) => SchemaChange::Output,
            (false, false) => continue,
        };
        out.insert(tool.name.clone(), change);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::mcp::catalog::{CatalogPrompt, CatalogResource, CatalogTemplate, CatalogTool};

    fn tool(name: &str, input: Value, output: Option<Value>) -> CatalogTool {
        CatalogTool {
            name: name.into(),
            title: None,
            description: String::new(),
            input_schema: input,
            output_schema: output,
            annotations: None,
            icons: 0,
            task: None,
            ui: None,
        }
    }

    fn prompt(name: &str) -> CatalogPrompt {
        CatalogPrompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            icons: 0,
        }
    }

    fn resource(uri: &str) -> CatalogResource {
        CatalogResource {
            uri: uri.into(),
            name: uri.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: 0,
        }
    }

    fn weather() -> CatalogSnapshot {
        CatalogSnapshot {
            tools: vec![
                tool(
                    "get_weather",
                    json!({"type": "object", "properties": {"city": {}}}),
                    None,
                ),
                tool(
                    "alerts",
                    json!({"type": "object"}),
                    Some(json!({"type": "object"})),
                ),
            ],
            prompts: vec![prompt("forecast"), prompt("brief")],
            resources: vec![resource("file:///stations.csv")],
            ..CatalogSnapshot::default()
        }
    }

    #[test]
    fn the_same_catalog_has_no_change() {
        let mut later = weather();
        // Another connection and revision, the same lists (members in another order).
        later.generation = 2;
        later.revision = 7;
        later.tools[0].input_schema = json!({"properties": {"city": {}}, "type": "object"});
        let diff = CatalogDiff::between(&weather(), &later);
        assert!(diff.is_empty(), "{diff:?}");
        assert_eq!(diff.summary(), "");
    }

    #[test]
    fn added_removed_and_changed_schemas_in_one_line() {
        let mut later = weather();
        later.tools.push(tool("radar", json!({}), None));
        later.tools[0].input_schema = json!({"type": "object", "properties": {"lat": {}}});
        later.prompts.pop();
        let diff = CatalogDiff::between(&weather(), &later);
        assert_eq!(diff.tools.added, ["radar"]);
        assert_eq!(diff.prompts.removed, ["brief"]);
        assert_eq!(
            diff.line("weather"),
            "weather: +1 tool, −1 prompt, get_weather input changed"
        );
    }

    #[test]
    fn every_kind_is_counted_and_schema_changes_named() {
        let before = weather();
        let mut after = weather();
        after.tools = vec![
            tool("get_weather", json!({"type": "object"}), Some(json!({}))),
            tool("alerts", json!({"type": "object"}), None),
        ];
        after.resources.clear();
        after.templates.push(CatalogTemplate {
            uri_template: "file:///{station}".into(),
            name: "station".into(),
            title: None,
            description: None,
            mime_type: None,
            icons: 0,
        });
        after.prompts = vec![
            prompt("forecast"),
            prompt("brief"),
            prompt("a"),
            prompt("b"),
        ];
        assert_eq!(
            CatalogDiff::between(&before, &after).summary(),
            "+2 prompts, −1 resource, +1 resource template, alerts output changed, \
             get_weather input and output changed"
        );
    }

    #[test]
    fn a_list_that_was_not_read_is_not_reported_as_emptied() {
        let mut after = CatalogSnapshot {
            errors: vec![(ListKind::Prompts, "timed out".into())],
            ..weather()
        };
        after.prompts.clear();
        assert!(CatalogDiff::between(&weather(), &after).is_empty());
    }

    #[test]
    fn names_are_sanitised_and_many_schema_changes_counted() {
        let names = ["a\u{1b}[31m", "b", "c", "d", "e"];
        let before = CatalogSnapshot {
            tools: names.iter().map(|n| tool(n, json!({}), None)).collect(),
            ..CatalogSnapshot::default()
        };
        let after = CatalogSnapshot {
            tools: names
                .iter()
                .map(|n| tool(n, json!({"x": 1}), None))
                .collect(),
            ..CatalogSnapshot::default()
        };
        let summary = CatalogDiff::between(&before, &after).summary();
        assert!(!summary.contains('\u{1b}'), "{summary}");
        assert!(
            summary.ends_with(", c input changed, 2 more tools' schemas changed"),
            "{summary}"
        );
    }
}
