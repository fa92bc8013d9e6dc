//! MCP Apps tools (`--apps`): tools that name an interactive UI in `_meta.ui`
//! (https://github.com/modelcontextprotocol/ext-apps, `specification/2026-01-26/apps.mdx`),
//! and the UI resource itself, readable though not listed.

use serde_json::{Value, json};

/// The UI the clock tools name.
pub const CLOCK_UI: &str = "ui://test/clock.html";

/// The apps tools' catalog entries: `clock` (`_meta.ui`), `legacy_clock` (only the
/// deprecated flat `_meta["ui/resourceUri"]`) and `clock_tick` (app-only).
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
    ]
}

/// The result of an apps tool, or `None` for another tool. The clocks answer text for
/// the model and `structuredContent` for the UI.
pub fn run(name: &str) -> Option<Value> {
    match name {
        "clock" | "legacy_clock" => Some(json!({
            "content": [{"type": "text", "text": "It is 12:00 UTC."}],
            "structuredContent": {"hands": {"hour": 12, "minute": 0}, "ui_only_marker": "for-the-app"},
        })),
        "clock_tick" => Some(json!({"content": [{"type": "text", "text": "ticked"}]})),
        _ => None,
    }
}

/// The contents of `uri` when it is the clock UI.
pub fn read(uri: &str) -> Option<Value> {
    (uri == CLOCK_UI).then(|| {
        json!({"uri": uri, "mimeType": "text/html;profile=mcp-app",
            "text": "<!doctype html><html><body><p id=\"clock\">12:00</p></body></html>"})
    })
}
