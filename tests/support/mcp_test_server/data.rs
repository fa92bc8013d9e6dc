//! The catalogs the test server offers: 12 items in every list, served 4 per page.

use serde_json::{Value, json};

/// Items per page.
pub const PAGE: usize = 4;

/// The twelve tools (a thirteenth, `extra`, appears after `add_tool` is called).
pub fn tools(with_extra: bool) -> Vec<Value> {
    let text_arg =
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let empty = json!({"type": "object", "properties": {}});
    let mut tools = vec![
        json!({"name": "echo", "title": "Echo", "description": "Echo the text back.",
            "inputSchema": text_arg,
            "annotations": {"readOnlyHint": true, "openWorldHint": false}}),
        json!({"name": "add", "description": "Add two numbers; structured result.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
            "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]},
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "slow", "description": "Sleep, reporting progress every 50 ms.",
            "inputSchema": {"type": "object", "properties": {"millis": {"type": "integer"}, "progress": {"type": "boolean"}}},
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "big", "description": "Return a text of `chars` characters.",
            "inputSchema": {"type": "object", "properties": {"chars": {"type": "integer"}, "blocks": {"type": "integer"}}},
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "fail", "description": "A tool error (isError).", "inputSchema": empty,
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "remote_error", "description": "A JSON-RPC error.", "inputSchema": empty,
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "add_tool", "description": "Add the tool `extra` and announce list_changed.",
            "inputSchema": empty, "annotations": {"readOnlyHint": false, "destructiveHint": false}}),
        json!({"name": "delete_thing", "description": "Pretend to delete something.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
            "annotations": {"destructiveHint": true}}),
        json!({"name": "write_thing", "description": "Pretend to write something.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
            "annotations": {"destructiveHint": false}}),
        json!({"name": "mixed", "description": "Every kind of content block.", "inputSchema": empty,
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "log", "description": "Send log messages at each level.", "inputSchema": empty,
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "plain", "description": "A tool without annotations; `exit: true` kills the server.",
            "inputSchema": {"type": "object", "properties": {"exit": {"type": "boolean"}}}}),
    ];
    if with_extra {
        tools.push(
            json!({"name": "extra", "description": "Added at run time.", "inputSchema": empty,
            "annotations": {"readOnlyHint": true}}),
        );
    }
    tools
}

/// A tool name of 200 characters (`--misbehave long-name`).
pub const LONG_NAME: &str = "a_tool_name_that_goes_on_and_on_a_tool_name_that_goes_on_and_on_a_tool_name_that_goes_on_and_on_a_tool_name_that_goes_on_and_on_a_tool_name_that_goes_on_and_on_a_tool_name_that_goes_on_and_on_abcdefghijklm";
/// A tool name with characters providers refuse (`--misbehave long-name`).
pub const ODD_NAME: &str = "get.weather/now v2";

/// The tools `--misbehave long-name` adds: names providers reject.
pub fn unsafe_names() -> Vec<Value> {
    [LONG_NAME, ODD_NAME]
        .into_iter()
        .map(|name| {
            json!({"name": name, "description": "A tool whose name providers reject.",
                "inputSchema": {"type": "object", "properties": {}},
                "annotations": {"readOnlyHint": true}})
        })
        .collect()
}

/// `--misbehave x-mcp-header`: `regional` mirrors `region` to `Mcp-Param-Region`
/// (2026-07-28 over HTTP) and answers with the header it got; `bad_header`'s
/// annotation is not an HTTP token, so clients must refuse the tool.
pub fn header_tools() -> Vec<Value> {
    vec![
        json!({"name": "regional", "description": "Says which Mcp-Param-Region header came.",
            "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}}},
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "bad_header", "description": "An invalid x-mcp-header annotation.",
            "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Bad Region"}}},
            "annotations": {"readOnlyHint": true}}),
    ]
}

/// Ten text resources and two blobs.
pub fn resources() -> Vec<Value> {
    (1..=12)
        .map(|i| {
            if i <= 10 {
                json!({"uri": format!("test://text/{i}"), "name": format!("text-{i}"),
                    "mimeType": "text/plain", "description": format!("Text resource {i}")})
            } else {
                json!({"uri": format!("test://blob/{i}"), "name": format!("blob-{i}"),
                    "mimeType": "application/octet-stream"})
            }
        })
        .collect()
}

pub fn templates() -> Vec<Value> {
    (1..=12)
        .map(|i| {
            json!({"uriTemplate": format!("test://tpl{i}/{{id}}"), "name": format!("template-{i}"),
                "description": "Completes `id`.", "mimeType": "text/plain"})
        })
        .collect()
}

pub fn prompts() -> Vec<Value> {
    let mut prompts = vec![
        json!({"name": "greet", "title": "Greeting", "description": "Greet someone.",
        "arguments": [
            {"name": "name", "description": "Who to greet", "required": true},
            {"name": "style", "description": "formal or casual", "required": false}
        ]}),
    ];
    prompts.extend(
        (2..=12)
            .map(|i| json!({"name": format!("prompt-{i}"), "description": format!("Prompt {i}")})),
    );
    prompts
}

/// One page of `items` under `key`, starting at the cursor (an index as text).
pub fn page(key: &str, items: Vec<Value>, cursor: Option<&str>) -> Value {
    let total = items.len();
    let start: usize = cursor.and_then(|c| c.parse().ok()).unwrap_or(0).min(total);
    let end = (start + PAGE).min(total);
    let slice: Vec<Value> = items.into_iter().skip(start).take(end - start).collect();
    let mut out = json!({ key: slice });
    if end < total {
        out["nextCursor"] = json!(end.to_string());
    }
    out
}
