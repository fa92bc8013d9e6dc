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

fn blocks(
    server: &str,
    limits: &Limits,
    items: impl Iterator<Item = ContentBlock>,
) -> Result<Vec<ContentBlock>, McpError> {
    let mut checker = Checker {
        server,
        limits,
        blocks: 0,
        chars: 0,
    };
    items.map(|b| checker.block(&b).map(|()| b)).collect()
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
    let content = match blocks(server, limits, content.iter().map(content_block)) {
        Ok(content) => content,
        Err(
            e @ McpError::Limit {
                limit: LimitKind::ResultChars,
                ..
            },
        ) => return Ok(oversized(server, &e, content)),
        Err(e) => return Err(e),
    };
    let structured = wire
        .get("structuredContent")
        .filter(|v| !v.is_null())
        .cloned();
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
        is_error: wire
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        metadata: json!({ "server": server }),
    })
}

/// What `resources/read` returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceRead {
    /// Each item is an `EmbeddedResource` block (text or base64 blob).
    pub contents: Vec<ContentBlock>,
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
    let contents = blocks(
        server,
        limits,
        items.iter().map(|r| ContentBlock::EmbeddedResource {
            uri: text(r, "uri").unwrap_or_default(),
            mime: text(r, "mimeType"),
            text: text(r, "text"),
            blob: text(r, "blob"),
        }),
    )?;
    Ok(ResourceRead { contents })
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
    let contents = blocks(
        server,
        limits,
        items
            .iter()
            .map(|m| content_block(m.get("content").unwrap_or(&Value::Null))),
    )?;
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
fn oversized(server: &str, error: &McpError, wire: &[Value]) -> ToolResult {
    let all: Vec<ContentBlock> = wire.iter().map(content_block).collect();
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
