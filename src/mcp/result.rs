//! Results from the wire (`tools/call`, `resources/read`, `prompts/get`) as our types,
//! with the content-block and character limits enforced: past a limit the whole result
//! is refused with a typed error, never silently cut.

use serde::Serialize;
use serde_json::{Value, json};

use super::error::{LimitKind, McpError};
use super::limits::Limits;
use crate::tools::{ContentBlock, ToolResult};

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// One content block from its wire JSON; unknown kinds become a visible text note.
pub fn content_block(v: &Value) -> ContentBlock {
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => ContentBlock::Text {
            text: text(v, "text").unwrap_or_default(),
        },
        "image" | "audio" => {
            let mime = text(v, "mimeType").unwrap_or_default();
            let data = text(v, "data").unwrap_or_default();
            if kind == "image" {
                ContentBlock::Image { mime, data }
            } else {
                ContentBlock::Audio { mime, data }
            }
        }
        "resource_link" => ContentBlock::ResourceLink {
            uri: text(v, "uri").unwrap_or_default(),
            name: text(v, "name").unwrap_or_default(),
            mime: text(v, "mimeType"),
        },
        "resource" => {
            let r = v.get("resource").cloned().unwrap_or(Value::Null);
            ContentBlock::EmbeddedResource {
                uri: text(&r, "uri").unwrap_or_default(),
                mime: text(&r, "mimeType"),
                text: text(&r, "text"),
                blob: text(&r, "blob"),
            }
        }
        other => ContentBlock::Text {
            text: format!(
                "[unsupported content type {:?}]",
                crate::sanitize::sanitize_line(other)
            ),
        },
    }
}

/// Characters of text a block carries.
fn text_chars(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text { text } => text.chars().count(),
        ContentBlock::EmbeddedResource { text: Some(t), .. } => t.chars().count(),
        _ => 0,
    }
}

struct Checker<'a> {
    server: &'a str,
    limits: &'a Limits,
    blocks: usize,
    chars: usize,
}

impl Checker<'_> {
    fn block(&mut self, block: &ContentBlock) -> Result<(), McpError> {
        self.blocks += 1;
        if self.blocks > self.limits.max_content_blocks {
            return Err(McpError::Limit {
                server: self.server.to_owned(),
                limit: LimitKind::ContentBlocks,
                max: self.limits.max_content_blocks,
                detail: format!(
                    "more than {} content blocks",
                    self.limits.max_content_blocks
                ),
            });
        }
        self.chars += text_chars(block);
        self.check_chars()
    }

    fn check_chars(&self) -> Result<(), McpError> {
        if self.chars > self.limits.max_result_chars {
            return Err(McpError::Limit {
                server: self.server.to_owned(),
                limit: LimitKind::ResultChars,
                max: self.limits.max_result_chars,
                detail: format!("the result has at least {} characters of text", self.chars),
            });
        }
        Ok(())
    }
}

/// The content-block and character limits over `items`, in order: the first one
/// passed is the error.
fn check(server: &str, limits: &Limits, items: &[ContentBlock]) -> Result<(), McpError> {
    let mut checker = Checker {
        server,
        limits,
        blocks: 0,
        chars: 0,
    };
    items.iter().try_for_each(|b| checker.block(b))
}

/// The most text an oversized result keeps for the person (beyond it, only the
/// refusal remains).
const MAX_KEPT_CHARS: usize = 64 * 1024 * 1024;

/// A `CallToolResult` (wire JSON) as a `ToolResult`. Past `max_result_chars` of text
/// the model gets the limit's error, and the whole content is kept in `oversized`
/// for the person (up to 64 Mi characters).
pub fn tool_result(server: &str, wire: &Value, limits: &Limits) -> Result<ToolResult, McpError> {
    let empty = Vec::new();
    let content = wire
        .get("content")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let structured = wire
        .get("structuredContent")
        .filter(|v| !v.is_null())
        .cloned();
    let is_error = wire.get("isError").and_then(Value::as_bool) == Some(true);
    let content = content.iter().map(content_block).collect();
    finish(server, limits, content, structured, is_error)
}

/// [`tool_result`] for the result rmcp has already read: each block moves over as it
/// is, with no trip through JSON.
pub fn call_tool_result(
    server: &str,
    result: rmcp::model::CallToolResult,
    limits: &Limits,
) -> Result<ToolResult, McpError> {
    let rmcp::model::CallToolResult {
        content,
        structured_content,
        is_error,
        ..
    } = result;
    let content = content.into_iter().map(block_of).collect();
    let structured = structured_content.filter(|v| !v.is_null());
    finish(server, limits, content, structured, is_error == Some(true))
}

/// One of rmcp's content blocks as ours.
fn block_of(block: rmcp::model::ContentBlock) -> ContentBlock {
    use rmcp::model::{ContentBlock as Wire, ResourceContents};
    match block {
        Wire::Text(t) => ContentBlock::Text { text: t.text },
        Wire::Image(i) => ContentBlock::Image {
            mime: i.mime_type,
            data: i.data,
        },
        Wire::Audio(a) => ContentBlock::Audio {
            mime: a.mime_type,
            data: a.data,
        },
        Wire::ResourceLink(r) => ContentBlock::ResourceLink {
            uri: r.uri,
            name: r.name,
            mime: r.mime_type,
        },
        Wire::Resource(embedded) => match embedded.resource {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => ContentBlock::EmbeddedResource {
                uri,
                mime: mime_type,
                text: Some(text),
                blob: None,
            },
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => ContentBlock::EmbeddedResource {
                uri,
                mime: mime_type,
                text: None,
                blob: Some(blob),
            },
            other => through_json(&other),
        },
        other => through_json(&other),
    }
}

/// A block of a kind newer than this code, read from its JSON.
fn through_json(block: &impl Serialize) -> ContentBlock {
    let value = serde_json::to_value(block).unwrap_or(Value::Null);
    content_block(&value)
}

/// The limits checked on a result's blocks and structured content.
fn finish(
    server: &str,
    limits: &Limits,
    content: Vec<ContentBlock>,
    structured: Option<Value>,
    is_error: bool,
) -> Result<ToolResult, McpError> {
    match check(server, limits, &content) {
        Ok(()) => {}
        Err(
            e @ McpError::Limit {
                limit: LimitKind::ResultChars,
                ..
            },
        ) => return Ok(oversized(server, &e, content)),
        Err(e) => return Err(e),
    }
    if let Some(s) = &structured {
        let chars = s.to_string().chars().count();
        if chars > limits.max_result_chars {
            return Err(McpError::Limit {
                server: server.to_owned(),
                limit: LimitKind::ResultChars,
                max: limits.max_result_chars,
                detail: format!("structuredContent has {chars} characters"),
            });
        }
    }
    Ok(ToolResult {
        content,
        structured,
        oversized: None,
        structured_mismatch: Vec::new(),
        is_error,
        metadata: json!({ "server": server }),
    })
}

/// What `resources/read` returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceRead {
    /// Each item is an `EmbeddedResource` block (text or base64 blob).
    pub contents: Vec<ContentBlock>,
    /// The first item's `_meta.ui` (MCP Apps: the UI's `csp`, `permissions`,
    /// `prefersBorder`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui_meta: Option<Value>,
}

/// A read's text, with a `/save` hint for each item that is binary.
pub fn describe_read(read: &ResourceRead) -> String {
    let mut text = crate::tools::render_blocks(&read.contents);
    let several = read.contents.len() > 1;
    for (i, block) in read.contents.iter().enumerate() {
        let binary = matches!(
            block,
            ContentBlock::EmbeddedResource { blob: Some(_), .. }
                | ContentBlock::Image { .. }
                | ContentBlock::Audio { .. }
        );
        if binary {
            let item = if several {
                format!(" {}", i + 1)
            } else {
                String::new()
            };
            text.push_str("/save FILE");
            text.push_str(&item);
            text.push_str(" writes it to a file\n");
        }
    }
    text
}

pub fn resource_read(
    server: &str,
    wire: &Value,
    limits: &Limits,
) -> Result<ResourceRead, McpError> {
    let empty = Vec::new();
    let items = wire
        .get("contents")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let contents: Vec<ContentBlock> = items
        .iter()
        .map(|r| ContentBlock::EmbeddedResource {
            uri: text(r, "uri").unwrap_or_default(),
            mime: text(r, "mimeType"),
            text: text(r, "text"),
            blob: text(r, "blob"),
        })
        .collect();
    check(server, limits, &contents)?;
    let ui_meta = items
        .first()
        .and_then(|r| r.get("_meta")?.get("ui"))
        .filter(|ui| ui.is_object())
        .cloned();
    Ok(ResourceRead { contents, ui_meta })
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptMessageView {
    /// `user` or `assistant`.
    pub role: String,
    pub content: ContentBlock,
}

/// What `prompts/get` returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptView {
    pub description: Option<String>,
    pub messages: Vec<PromptMessageView>,
}

impl PromptView {
    /// For people: `# description`, then `role: text` per message (blocks rendered
    /// by [`crate::tools::render_blocks`]); untrusted text sanitised.
    pub fn to_text(&self) -> String {
        let mut out = self
            .description
            .as_deref()
            .map(|d| format!("# {}\n", crate::sanitize::sanitize_line(d)))
            .unwrap_or_default();
        for m in &self.messages {
            out.push_str(&crate::sanitize::sanitize_line(&m.role));
            out.push_str(": ");
            out.push_str(&crate::tools::render_blocks(std::slice::from_ref(
                &m.content,
            )));
        }
        out
    }
}

pub fn prompt_view(server: &str, wire: &Value, limits: &Limits) -> Result<PromptView, McpError> {
    let empty = Vec::new();
    let items = wire
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let roles: Vec<String> = items
        .iter()
        .map(|m| text(m, "role").unwrap_or_else(|| "user".into()))
        .collect();
    let contents: Vec<ContentBlock> = items
        .iter()
        .map(|m| content_block(m.get("content").unwrap_or(&Value::Null)))
        .collect();
    check(server, limits, &contents)?;
    Ok(PromptView {
        description: text(wire, "description"),
        messages: roles
            .into_iter()
            .zip(contents)
            .map(|(role, content)| PromptMessageView { role, content })
            .collect(),
    })
}

/// The refusal the model gets for a result past `max_result_chars`, with the whole
/// content kept for the person when it is not absurdly large.
fn oversized(server: &str, error: &McpError, all: Vec<ContentBlock>) -> ToolResult {
    let chars: usize = all.iter().map(text_chars).sum();
    let kept = (chars <= MAX_KEPT_CHARS).then_some(all);
    let mut result = ToolResult::error(error.to_string()).with_metadata(json!({
        "server": server,
        "error": error.kind(),
    }));
    result.oversized = kept;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_content_kind_maps() {
        let wire = json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"},
            {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "u", "name": "n"},
            {"type": "resource", "resource": {"uri": "u2", "blob": "AA=="}},
            {"type": "hologram"}
        ], "structuredContent": {"a": 1}, "isError": true});
        let r = tool_result("s", &wire, &Limits::default()).unwrap();
        assert_eq!(r.content.len(), 6);
        assert!(r.is_error);
        assert_eq!(r.structured, Some(json!({"a": 1})));
        assert!(matches!(&r.content[5], ContentBlock::Text { text } if text.contains("hologram")));
    }

    /// What rmcp read moves over without JSON, exactly as the JSON path reads it,
    /// limits included.
    #[test]
    fn a_typed_result_reads_as_its_json() {
        let wire = json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"},
            {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "u", "name": "n", "mimeType": "text/x"},
            {"type": "resource", "resource": {"uri": "u2", "blob": "AA=="}},
            {"type": "resource", "resource": {"uri": "u3", "mimeType": "text/plain", "text": "t"}}
        ], "structuredContent": {"a": 1}, "isError": true});
        let typed = |limits: &Limits| {
            let result: rmcp::model::CallToolResult = serde_json::from_value(wire.clone()).unwrap();
            call_tool_result("s", result, limits)
        };
        let limits = Limits::default();
        assert_eq!(
            typed(&limits).unwrap(),
            tool_result("s", &wire, &limits).unwrap()
        );
        let small = Limits {
            max_result_chars: 1,
            ..Limits::default()
        };
        let oversized = typed(&small).unwrap();
        assert_eq!(oversized, tool_result("s", &wire, &small).unwrap());
        assert_eq!(oversized.oversized.map(|o| o.len()), Some(6));
    }

    #[test]
    fn limits_are_typed_errors() {
        let limits = Limits {
            max_result_chars: 5,
            max_content_blocks: 2,
            ..Limits::default()
        };
        // Too much text: the model gets the limit's error, the person the whole result.
        let long = json!({"content": [{"type": "text", "text": "123456"}]});
        let r = tool_result("s", &long, &limits).unwrap();
        assert!(r.is_error);
        assert!(r.text_content().contains("max_result_chars (5)"), "{r:?}");
        assert_eq!(r.metadata["error"], "mcp_call_failed");
        assert_eq!(
            r.oversized,
            Some(vec![ContentBlock::Text {
                text: "123456".into()
            }])
        );
        let many = json!({"content": [{"type": "text", "text": ""}, {"type": "text", "text": ""}, {"type": "text", "text": ""}]});
        let e = tool_result("s", &many, &limits).unwrap_err();
        assert!(
            matches!(
                e,
                McpError::Limit {
                    limit: LimitKind::ContentBlocks,
                    ..
                }
            ),
            "{e}"
        );
    }
}
