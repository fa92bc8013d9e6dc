//! MCP Apps (extension `io.modelcontextprotocol/ui`): the link from a tool to its
//! interactive UI, read from the tool's `_meta`.
//!
//! Per the extension's stable spec
//! (https://github.com/modelcontextprotocol/ext-apps, `specification/2026-01-26/apps.mdx`)
//! a tool names its UI with `_meta.ui = {resourceUri: "ui://…", visibility: [...]}`;
//! `visibility` lists who may call it, `"model"` and/or `"app"`, both when absent. The
//! flat key `_meta["ui/resourceUri"]` is deprecated but still read. A host MUST keep a
//! tool whose visibility lacks `"model"` from the model, and MUST refuse an app's call
//! to a tool whose visibility lacks `"app"`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The URI scheme of a UI resource.
pub const UI_SCHEME: &str = "ui://";

/// The extension's name in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The mime type of an MCP App's HTML resource.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// A tool's MCP Apps facts: its `ui://` resource, if it names one, and who may call
/// it. A tool may give `visibility` alone (an app-only helper such as a poll its UI
/// calls), with no resource of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiLink {
    /// The `ui://` resource holding the UI (read with `resources/read`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool.
    pub visibility: Visibility,
}

/// `_meta.ui.visibility`: `["model", "app"]` when absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Visibility {
    pub model: bool,
    pub app: bool,
}

impl Default for Visibility {
    fn default() -> Self {
        Self {
            model: true,
            app: true,
        }
    }
}

impl UiLink {
    /// The link in a tool's wire JSON (`_meta` of a `tools/list` item), if it names a
    /// `ui://` resource or says who may call it. `_meta.ui.resourceUri` wins over the
    /// deprecated `_meta["ui/resourceUri"]`; a resource that is not `ui://…` is none.
    pub fn from_tool(tool: &Value) -> Option<Self> {
        let meta = tool.get("_meta")?;
        let ui = meta.get("ui").filter(|u| u.is_object());
        let resource_uri = ui
            .and_then(|u| u.get("resourceUri"))
            .and_then(Value::as_str)
            .or_else(|| meta.get("ui/resourceUri").and_then(Value::as_str))
            .filter(|u| u.starts_with(UI_SCHEME) && u.len() > UI_SCHEME.len())
            .map(str::to_owned);
        let visibility = match ui.and_then(|u| u.get("visibility")) {
            Some(Value::Array(items)) => {
                let has = |name: &str| items.iter().any(|i| i.as_str() == Some(name));
                Some(Visibility {
                    model: has("model"),
                    app: has("app"),
                })
            }
            _ => None,
        };
        if resource_uri.is_none() && visibility.is_none() {
            return None;
        }
        Some(Self {
            resource_uri,
            visibility: visibility.unwrap_or_default(),
        })
    }

    /// Only an app may call it: it is never declared to a model.
    pub fn app_only(&self) -> bool {
        !self.visibility.model
    }

    /// Its UI resource, when it has one (the tool then has an app to open).
    pub fn resource(&self) -> Option<&str> {
        self.resource_uri.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nested_form_with_default_visibility() {
        let link = UiLink::from_tool(&json!({"name": "t",
            "_meta": {"ui": {"resourceUri": "ui://srv/clock.html"}}}))
        .unwrap();
        assert_eq!(link.resource(), Some("ui://srv/clock.html"));
        assert_eq!(link.visibility, Visibility::default());
        assert!(!link.app_only());
    }

    #[test]
    fn deprecated_flat_key_is_read() {
        let link =
            UiLink::from_tool(&json!({"_meta": {"ui/resourceUri": "ui://srv/old.html"}})).unwrap();
        assert_eq!(link.resource(), Some("ui://srv/old.html"));
        assert!(link.visibility.model && link.visibility.app);
    }

    #[test]
    fn nested_wins_over_flat() {
        let link = UiLink::from_tool(&json!({"_meta": {
            "ui": {"resourceUri": "ui://srv/new.html"}, "ui/resourceUri": "ui://srv/old.html"}}))
        .unwrap();
        assert_eq!(link.resource(), Some("ui://srv/new.html"));
    }

    #[test]
    fn visibility_lists_who_may_call() {
        let of = |v: Value| {
            UiLink::from_tool(
                &json!({"_meta": {"ui": {"resourceUri": "ui://a/b", "visibility": v}}}),
            )
            .unwrap()
            .visibility
        };
        assert_eq!(
            of(json!(["app"])),
            Visibility {
                model: false,
                app: true
            }
        );
        assert_eq!(
            of(json!(["model"])),
            Visibility {
                model: true,
                app: false
            }
        );
        assert_eq!(of(json!(["model", "app"])), Visibility::default());
        // An explicit empty list: nobody (so not the model either).
        assert_eq!(
            of(json!([])),
            Visibility {
                model: false,
                app: false
            }
        );
        // Not a list: the default.
        assert_eq!(of(json!("app")), Visibility::default());
        assert!(
            UiLink::from_tool(
                &json!({"_meta": {"ui": {"resourceUri": "ui://a/b", "visibility": ["app"]}}})
            )
            .unwrap()
            .app_only()
        );
    }

    /// server-system-monitor's `poll-system-stats`: `_meta.ui = {visibility: ["app"]}`
    /// and no resource; it is app-only all the same.
    #[test]
    fn visibility_without_a_resource_is_kept() {
        let link = UiLink::from_tool(&json!({"_meta": {"ui": {"visibility": ["app"]}}})).unwrap();
        assert_eq!(link.resource(), None);
        assert!(link.app_only());
        assert!(link.visibility.app);
    }

    #[test]
    fn garbage_is_no_link() {
        for tool in [
            json!({"name": "plain"}),
            json!({"_meta": null}),
            json!({"_meta": {"ui": "ui://a/b"}}),
            json!({"_meta": {"ui": {"resourceUri": 7}}}),
            json!({"_meta": {"ui": {"resourceUri": "https://example.com/x.html"}}}),
            json!({"_meta": {"ui": {"resourceUri": "ui://"}}}),
            json!({"_meta": {"ui/resourceUri": ["ui://a/b"]}}),
            json!({"_meta": {"ui": {"visibility": "app"}}}),
        ] {
            assert_eq!(UiLink::from_tool(&tool), None, "{tool}");
        }
    }
}
