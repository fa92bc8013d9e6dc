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
    /// Where `structured` breaks the tool's `outputSchema` (`path: what`), or that it
    /// is missing; empty when it conforms or the tool declares no schema. The text
    /// content is still passed on; only the structured part is not to be trusted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub structured_mismatch: Vec<String>,
    pub is_error: bool,
    /// A result too large for the model (past `max_result_chars`): the model is told
    /// so (`content`), the person can still see its first part and save it whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversized: Option<Vec<ContentBlock>>,
    /// Not shown to the model: timing, decision, truncation notes.
    #[serde(default)]
    pub metadata: Value,
}

impl ToolResult {
    /// The result of a call the person made, for the person: one too large for a model
    /// is not an error to them — it is the whole result, kept (`oversized`), with
    /// nothing else to show. Any other result is unchanged.
    #[must_use]
    pub fn for_the_person(mut self) -> Self {
        if self.oversized.is_some() {
            self.is_error = false;
            self.content.clear();
        }
        self
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::Text { text: text.into() }],
            structured: None,
            structured_mismatch: Vec::new(),
            is_error: false,
            oversized: None,
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

    /// Checks `structured` against the tool's `outputSchema` (MCP 2025-06-18 and later,
    /// "Output Schema": clients SHOULD validate structured results against it) and
    /// records any mismatch in [`ToolResult::structured_mismatch`]. Error results are
    /// not checked.
    pub fn check_output_schema(&mut self, schema: &Value) {
        if self.is_error {
            return;
        }
        self.structured_mismatch = match &self.structured {
            None => {
                vec!["structuredContent: missing, but the tool declares an outputSchema".into()]
            }
            Some(value) => crate::tools::check_schema(schema, value)
                .into_iter()
                .map(|p| match p.strip_prefix("arguments:") {
                    Some(rest) => format!("structuredContent:{rest}"),
                    None => format!("structuredContent.{p}"),
                })
                .collect(),
        };
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

/// The size of base64 `data` once decoded, for people: `3 bytes`, `12.4 KiB`.
#[allow(clippy::cast_precision_loss)]
pub fn decoded_size(data: &str) -> String {
    let data = data.trim();
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    let bytes = (data.len() / 4 * 3 + (data.len() % 4 * 3 / 4)).saturating_sub(padding);
    match bytes {
        1 => "1 byte".into(),
        0..1024 => format!("{bytes} bytes"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}

/// Human text for result blocks: text sanitised, binary summarised (mime, size).
pub fn render_blocks(blocks: &[crate::tools::ContentBlock]) -> String {
    render(blocks, |t| crate::sanitize::sanitize(t).into_owned())
}

/// As [`render_blocks`] for line-oriented output (the CLI's stdout): tabs are kept, so
/// a tool's tab-separated text (the memory tool's `{n:6}\t{line}`) prints as it is.
pub fn render_blocks_for_stream(blocks: &[crate::tools::ContentBlock]) -> String {
    render(blocks, |t| {
        crate::sanitize::sanitize_keep_tabs(t).into_owned()
    })
}

fn render(blocks: &[crate::tools::ContentBlock], text_of: impl Fn(&str) -> String) -> String {
    use crate::tools::ContentBlock as B;
    let mut out = String::new();
    for block in blocks {
        let line = match block {
            B::Text { text }
            | B::EmbeddedResource {
                text: Some(text), ..
            } => text_of(text),
            B::Image { mime, data } => {
                format!(
                    "[image {}, {}]",
                    crate::sanitize::sanitize_line(mime),
                    decoded_size(data)
                )
            }
            B::Audio { mime, data } => {
                format!(
                    "[audio {}, {}]",
                    crate::sanitize::sanitize_line(mime),
                    decoded_size(data)
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
                "[blob {} {}, {}]",
                crate::sanitize::sanitize_line(uri),
                crate::sanitize::sanitize_line(mime.as_deref().unwrap_or("")),
                decoded_size(blob.as_deref().unwrap_or(""))
            ),
        };
        out.push_str(&line);
        if !line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Equal as data: numbers compare by value (`7` is `7.0`), arrays item by item,
/// objects key by key. What a result "is the same" means wherever results are
/// compared (a call's text against its structured content, saved cases, replays).
pub fn same_data(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_data(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_data(v, w)))
        }
        _ => a == b,
    }
}

/// The length of `value` as compact JSON text, without building the text.
pub fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod size_tests {
    use super::decoded_size;

    #[test]
    fn sizes_are_of_the_decoded_bytes() {
        assert_eq!(decoded_size("AAEC"), "3 bytes");
        assert_eq!(decoded_size("AAE="), "2 bytes");
        assert_eq!(decoded_size("AA=="), "1 byte");
        assert_eq!(decoded_size(""), "0 bytes");
        assert_eq!(decoded_size(&"A".repeat(4 * 1024)), "3.0 KiB");
        assert_eq!(decoded_size(&"A".repeat(4 * 700_000)), "2.0 MiB");
    }
}
