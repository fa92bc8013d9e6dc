//! Content blocks and results as MCP sends them (`CallToolResult`: `content`,
//! `structuredContent`, `isError`), for whoever passes a result on: serve clients,
//! MCP Apps.

use serde_json::{Value, json};

use super::{ContentBlock, ToolResult};

/// A result as `CallToolResult` JSON.
pub fn result_wire(result: &ToolResult) -> Value {
    let content: Vec<Value> = result.content.iter().map(block_wire).collect();
    let mut wire = json!({"content": content, "isError": result.is_error});
    if let Some(structured) = &result.structured {
        wire["structuredContent"] = structured.clone();
    }
    wire
}

/// Sets `key` when there is a value.
pub fn optional(v: &mut Value, key: &str, value: Option<&String>) {
    if let Some(value) = value {
        v[key] = json!(value);
    }
}

/// A content block as MCP sends it.
pub fn block_wire(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::Text { text } => json!({"type": "text", "text": text}),
        ContentBlock::Image { mime, data } => {
            json!({"type": "image", "mimeType": mime, "data": data})
        }
        ContentBlock::Audio { mime, data } => {
            json!({"type": "audio", "mimeType": mime, "data": data})
        }
        ContentBlock::ResourceLink { uri, name, mime } => {
            let mut v = json!({"type": "resource_link", "uri": uri, "name": name});
            optional(&mut v, "mimeType", mime.as_ref());
            v
        }
        ContentBlock::EmbeddedResource { .. } => {
            json!({"type": "resource", "resource": resource_contents(block)})
        }
    }
}

/// An embedded resource's `contents` item (`uri`, `mimeType`, `text` or `blob`).
pub fn resource_contents(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::EmbeddedResource {
            uri,
            mime,
            text,
            blob,
        } => {
            let mut v = json!({"uri": uri});
            optional(&mut v, "mimeType", mime.as_ref());
            optional(&mut v, "blob", blob.as_ref());
            match (text, blob) {
                (Some(t), _) => v["text"] = json!(t),
                (None, None) => v["text"] = json!(""),
                (None, Some(_)) => {}
            }
            v
        }
        other => {
            json!({"uri": "", "text": super::render_blocks(std::slice::from_ref(other))})
        }
    }
}
