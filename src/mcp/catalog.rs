//! A server's catalog as immutable, plain data: tools, resources, resource templates and
//! prompts. Built from the wire JSON of each item so that the shapes the UI renders do
//! not depend on rmcp's internals.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::apps::UiLink;
use super::task_support::TaskMode;

/// Which list of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListKind {
    Tools,
    Resources,
    Templates,
    Prompts,
}

impl ListKind {
    pub const ALL: [Self; 4] = [Self::Tools, Self::Resources, Self::Templates, Self::Prompts];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Resources => "resources",
            Self::Templates => "resource templates",
            Self::Prompts => "prompts",
        }
    }
}

/// `ToolAnnotations`, as sent (absent hints stay `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolHints {
    pub title: Option<String>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogTool {
    /// The server's name for the tool (not qualified).
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub annotations: Option<ToolHints>,
    /// How many `icons` the server gave (shown as a mark; images are not decoded).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub icons: usize,
    /// How it may run as a task (2025-11-25 `execution.taskSupport`); none: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMode>,
    /// Its MCP Apps facts (`_meta.ui`): its UI resource, who may call it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<UiLink>,
}

impl CatalogTool {
    /// Only its MCP App may call it: never declared to a model.
    pub fn app_only(&self) -> bool {
        self.ui.as_ref().is_some_and(super::apps::UiLink::app_only)
    }

    /// An MCP App may not call it (its visibility lacks `"app"`).
    pub fn hidden_from_apps(&self) -> bool {
        self.ui.as_ref().is_some_and(|ui| !ui.visibility.app)
    }

    /// Its MCP Apps UI resource (`ui://…`), when it has an app to open.
    pub fn ui_resource(&self) -> Option<&str> {
        self.ui.as_ref().and_then(super::apps::UiLink::resource)
    }

    /// `title`, else the annotations' title, else the name.
    pub fn display_title(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.annotations.as_ref()?.title.as_deref())
            .unwrap_or(&self.name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogResource {
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub size: Option<u64>,
    /// How many `icons` the server gave (shown as a mark; images are not decoded).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub icons: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogTemplate {
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    /// How many `icons` the server gave (shown as a mark; images are not decoded).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub icons: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptArgumentInfo {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogPrompt {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub arguments: Vec<PromptArgumentInfo>,
    /// How many `icons` the server gave (shown as a mark; images are not decoded).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub icons: usize,
}

/// One server's catalog at one moment. Never mutated: a refresh builds a new one.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CatalogSnapshot {
    /// The connection this catalog was listed on; calls made with an older generation
    /// fail as stale.
    pub generation: u64,
    /// Bumped on every refresh of any list, including `list_changed`.
    pub revision: u64,
    pub tools: Vec<CatalogTool>,
    pub resources: Vec<CatalogResource>,
    pub templates: Vec<CatalogTemplate>,
    pub prompts: Vec<CatalogPrompt>,
    /// Lists that could not be fetched, with the reason (the rest are still usable).
    pub errors: Vec<(ListKind, String)>,
    /// Tools refused at listing, with the reason (invalid `x-mcp-header` annotations).
    pub refused: Vec<(String, String)>,
    /// When each list was fetched, its `ttlMs` / `cacheScope`, and whether it was kept
    /// from the previous connection.
    pub fresh: Vec<super::freshness::ListFreshness>,
    /// The catalog is not from this connection: it was read from the cache of the
    /// server's listing made at this time (an on-demand server not started yet).
    #[serde(skip)]
    pub cached_at: Option<std::time::SystemTime>,
}

impl CatalogSnapshot {
    pub fn tool(&self, name: &str) -> Option<&CatalogTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Number of items in a list.
    pub fn count(&self, kind: ListKind) -> usize {
        match kind {
            ListKind::Tools => self.tools.len(),
            ListKind::Resources => self.resources.len(),
            ListKind::Templates => self.templates.len(),
            ListKind::Prompts => self.prompts.len(),
        }
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn flag(v: &Value, key: &str) -> Option<bool> {
    v.get(key).and_then(Value::as_bool)
}

/// The number of `icons` entries (each `{src, mimeType?, sizes?, theme?}`) an item has.
fn icons(v: &Value) -> usize {
    v.get("icons").and_then(Value::as_array).map_or(0, Vec::len)
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Items without their required name (or URI) are skipped, never a panic.
pub fn tool_from_wire(v: &Value) -> Option<CatalogTool> {
    let annotations = v
        .get("annotations")
        .filter(|a| a.is_object())
        .map(|a| ToolHints {
            title: text(a, "title"),
            read_only: flag(a, "readOnlyHint"),
            destructive: flag(a, "destructiveHint"),
            idempotent: flag(a, "idempotentHint"),
            open_world: flag(a, "openWorldHint"),
        });
    Some(CatalogTool {
        name: text(v, "name")?,
        title: text(v, "title"),
        description: text(v, "description").unwrap_or_default(),
        input_schema: v
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object"})),
        output_schema: v.get("outputSchema").cloned(),
        annotations,
        icons: icons(v),
        task: None,
        ui: UiLink::from_tool(v),
    })
}

pub fn resource_from_wire(v: &Value) -> Option<CatalogResource> {
    Some(CatalogResource {
        uri: text(v, "uri")?,
        name: text(v, "name").unwrap_or_default(),
        title: text(v, "title"),
        description: text(v, "description"),
        mime_type: text(v, "mimeType"),
        size: v.get("size").and_then(Value::as_u64),
        icons: icons(v),
    })
}

pub fn template_from_wire(v: &Value) -> Option<CatalogTemplate> {
    Some(CatalogTemplate {
        uri_template: text(v, "uriTemplate")?,
        name: text(v, "name").unwrap_or_default(),
        title: text(v, "title"),
        description: text(v, "description"),
        mime_type: text(v, "mimeType"),
        icons: icons(v),
    })
}

pub fn prompt_from_wire(v: &Value) -> Option<CatalogPrompt> {
    let arguments = v
        .get("arguments")
        .and_then(Value::as_array)
        .map(|args| {
            args.iter()
                .filter_map(|a| {
                    Some(PromptArgumentInfo {
                        name: text(a, "name")?,
                        description: text(a, "description"),
                        required: flag(a, "required").unwrap_or(false),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Some(CatalogPrompt {
        name: text(v, "name")?,
        title: text(v, "title"),
        description: text(v, "description"),
        arguments,
        icons: icons(v),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wire_items_become_catalog_items() {
        let t = tool_from_wire(&json!({"name": "echo", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "title": "Echo!"}}))
        .unwrap();
        assert_eq!(t.display_title(), "Echo!");
        assert_eq!(t.icons, 0);
        let with_icons = json!({"name": "p", "icons": [{"src": "https://example.com/i.png"}, {"src": "data:image/svg+xml;base64,AA=="}]});
        assert_eq!(prompt_from_wire(&with_icons).map(|p| p.icons), Some(2));
        assert_eq!(
            serde_json::to_value(tool_from_wire(&with_icons))
                .ok()
                .map(|v| v["icons"].clone()),
            Some(json!(2))
        );
        assert_eq!(t.annotations.unwrap().read_only, Some(true));
        assert!(tool_from_wire(&json!({"title": "no name"})).is_none());
        let p = prompt_from_wire(
            &json!({"name": "p", "arguments": [{"name": "a", "required": true}, {"x": 1}]}),
        )
        .unwrap();
        assert_eq!(p.arguments.len(), 1);
        assert!(p.arguments[0].required);
    }
}
