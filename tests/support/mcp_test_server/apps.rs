//! MCP Apps tools (`--apps`): tools that name an interactive UI in `_meta.ui`
//! (https://github.com/modelcontextprotocol/ext-apps, `specification/2026-01-26/apps.mdx`),
//! and the UI resource itself, readable though not listed.

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

/// The UI the clock tools name.
pub const CLOCK_UI: &str = "ui://test/clock.html";

/// The apps tools' catalog entries: `clock` (`_meta.ui`), `legacy_clock` (only the
/// deprecated flat `_meta["ui/resourceUri"]`), `clock_tick` (app-only),
/// `model_clock` (model-only: its app may not call it), `stats_poll` (app-only
/// with no resource of its own, as server-system-monitor's `poll-system-stats`)
/// and `ui_declared` (says whether the client declared the extension).
pub fn tools() -> Vec<Value> {
    let empty = json!({"type": "object", "properties": {}});
    vec![
        json!({"name": "clock", "description": "The time, with a clock UI.", "inputSchema": empty,
            "annotations": {"readOnlyHint": true},
            "_meta": {"ui": {"resourceUri": CLOCK_UI}}}),
        json!({"name": "legacy_clock", "description": "The time (UI named the deprecated way).",
            "inputSchema": empty, "annotations": {"readOnlyHint": true},
            "_meta": {"ui/resourceUri": CLOCK_UI}}),
        json!({"name": "clock_tick", "description": "Advances the clock UI; for the app only.",
            "inputSchema": empty, "annotations": {"readOnlyHint": true},
            "_meta": {"ui": {"resourceUri": CLOCK_UI, "visibility": ["app"]}}}),
        json!({"name": "model_clock", "description": "The time; its app may not call it.",
            "inputSchema": empty, "annotations": {"readOnlyHint": true},
            "_meta": {"ui": {"resourceUri": CLOCK_UI, "visibility": ["model"]}}}),
        json!({"name": "stats_poll", "description": "Numbers for the UI to poll.",
            "inputSchema": empty, "annotations": {"readOnlyHint": true},
            "_meta": {"ui": {"visibility": ["app"]}}}),
        json!({"name": "ui_declared", "description": "Whether the client declared MCP Apps.",
            "inputSchema": empty, "annotations": {"readOnlyHint": true}}),
    ]
}

/// The result of an apps tool, or `None` for another tool. The clocks answer text for
/// the model and `structuredContent` for the UI.
pub fn run(name: &str, declared: bool) -> Option<Value> {
    match name {
        "clock" | "legacy_clock" | "model_clock" => Some(json!({
            "content": [{"type": "text", "text": "It is 12:00 UTC."}],
            "structuredContent": {"hands": {"hour": 12, "minute": 0}, "ui_only_marker": "for-the-app"},
        })),
        "clock_tick" => Some(json!({"content": [{"type": "text", "text": "ticked"}]})),
        "stats_poll" => Some(json!({"content": [{"type": "text", "text": "load 0.5"}]})),
        "ui_declared" => Some(json!({"content": [{"type": "text",
            "text": if declared { "ui declared" } else { "ui not declared" }}]})),
        _ => None,
    }
}

/// Whether the client declared `extensions["io.modelcontextprotocol/ui"]` with the
/// app mime type: in its `initialize` (2025-11-25) or in the request's
/// `_meta["io.modelcontextprotocol/clientCapabilities"]` (2026-07-28).
pub fn ui_declared(context: &RequestContext<RoleServer>) -> bool {
    let initialized = context
        .peer
        .peer_info()
        .map(|info| serde_json::to_value(&info.capabilities).unwrap_or_default());
    let per_request = serde_json::to_value(&context.meta)
        .ok()
        .and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities").cloned());
    [initialized, per_request]
        .iter()
        .flatten()
        .any(|capabilities| {
            capabilities["extensions"]["io.modelcontextprotocol/ui"]["mimeTypes"]
                .as_array()
                .is_some_and(|m| m.iter().any(|t| t == "text/html;profile=mcp-app"))
        })
}

/// The contents of `uri` when it is the clock UI; it declares one origin it may
/// connect to (`_meta.ui.csp`).
pub fn read(uri: &str) -> Option<Value> {
    (uri == CLOCK_UI).then(|| {
        json!({"uri": uri, "mimeType": "text/html;profile=mcp-app",
            "text": "<!doctype html><html><body><p id=\"clock\">12:00</p></body></html>",
            "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}}})
    })
}
