//! What a tool call returns: content blocks for the model, optional structured data.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One block of tool output (the MCP content kinds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    /// `data` is base64.
    Image {
        mime: String,
        data: String,
    },
    /// `data` is base64.
    Audio {
        mime: String,
        data: String,
    },
    ResourceLink {
        uri: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime: Option<String>,
    },
    /// A resource inlined: `text`, or `blob` (base64).
    EmbeddedResource {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blob: Option<String>,
    },
}

/// The outcome of a tool call as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub content: Vec<ContentBlock>,
    /// Structured content matching the tool's output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    pub is_error: bool,
    /// Not shown to the model: timing, decision, truncation notes.
    #[serde(default)]
    pub metadata: Value,
}

impl ToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::Text { text: text.into() }],
            structured: None,
            is_error: false,
            metadata: Value::Null,
        }
    }

    /// A failed result with one text block the model can read.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(text)
        }
    }

    #[must_use]
    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.metadata = metadata;
        self
    }

    /// All text blocks joined by newlines.
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }
}

/// Human text for result blocks: text sanitised, binary summarised.
pub fn render_blocks(blocks: &[crate::tools::ContentBlock]) -> String {
    use crate::tools::ContentBlock as B;
    let mut out = String::new();
    for block in blocks {
        let line = match block {
            B::Text { text }
            | B::EmbeddedResource {
                text: Some(text), ..
            } => crate::sanitize::sanitize(text).into_owned(),
            B::Image { mime, data } => {
                format!(
                    "[image {}, {} bytes base64]",
                    crate::sanitize::sanitize_line(mime),
                    data.len()
                )
            }
            B::Audio { mime, data } => {
                format!(
                    "[audio {}, {} bytes base64]",
                    crate::sanitize::sanitize_line(mime),
                    data.len()
                )
            }
            B::ResourceLink { uri, name, .. } => {
                format!(
                    "[resource link {} ({})]",
                    crate::sanitize::sanitize_line(uri),
                    crate::sanitize::sanitize_line(name)
                )
            }
            B::EmbeddedResource {
                uri, mime, blob, ..
            } => format!(
                "[blob {} {}, {} bytes base64]",
                crate::sanitize::sanitize_line(uri),
                crate::sanitize::sanitize_line(mime.as_deref().unwrap_or("")),
                blob.as_ref().map_or(0, String::len)
            ),
        };
        out.push_str(&line);
        if !line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}
