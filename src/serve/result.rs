//! A gated call's [`ToolResult`] as the `CallToolResult` its client is sent, built as
//! rmcp's type directly: the result moves over block by block, with no trip through
//! JSON. What the client receives is what `tools::result_wire` writes (content blocks,
//! `structuredContent`, `isError`, and `resultType: complete`, which rmcp strips for a
//! client of an older protocol); the tests hold the two to the same bytes.

use rmcp::model::{
    AudioContent, CallToolResult, ContentBlock as Wire, EmbeddedResource, ImageContent, Resource,
    ResourceContents, TextContent,
};

use crate::tools::{ContentBlock, ToolResult};

/// The result as rmcp's `CallToolResult` (`resultType: complete`).
pub(super) fn call_tool_result(result: ToolResult) -> CallToolResult {
    let mut wire = CallToolResult::success(result.content.into_iter().map(block).collect());
    wire.structured_content = result.structured;
    wire.is_error = Some(result.is_error);
    wire
}

/// One block as MCP sends it.
fn block(block: ContentBlock) -> Wire {
    match block {
        ContentBlock::Text { text } => Wire::Text(TextContent::new(text)),
        ContentBlock::Image { mime, data } => Wire::Image(ImageContent::new(data, mime)),
        ContentBlock::Audio { mime, data } => Wire::Audio(AudioContent::new(data, mime)),
        ContentBlock::ResourceLink { uri, name, mime } => {
            let mut link = Resource::new(uri, name);
            link.mime_type = mime;
            Wire::ResourceLink(link)
        }
        ContentBlock::EmbeddedResource {
            uri,
            mime,
            text,
            blob,
        } => {
            // Text wins over a blob, and an item with neither is empty text, as
            // `tools::resource_contents` writes it.
            let contents = match (text, blob) {
                (None, Some(blob)) => ResourceContents::BlobResourceContents {
                    uri,
                    mime_type: mime,
                    blob,
                    meta: None,
                },
                (text, _) => ResourceContents::TextResourceContents {
                    uri,
                    mime_type: mime,
                    text: text.unwrap_or_default(),
                    meta: None,
                },
            };
            Wire::Resource(EmbeddedResource::new(contents))
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// What the client was sent before: the result as JSON, marked complete, read back
    /// as rmcp's type.
    fn through_json(result: &ToolResult) -> CallToolResult {
        crate::serve::handler::wire(crate::tools::result_wire(result)).unwrap()
    }

    fn every_kind() -> Vec<ContentBlock> {
        let s = |v: &str| v.to_owned();
        vec![
            ContentBlock::Text { text: s("hi ✓") },
            ContentBlock::Text { text: s("") },
            ContentBlock::Image {
                mime: s("image/png"),
                data: s("AA=="),
            },
            ContentBlock::Audio {
                mime: s("audio/wav"),
                data: s("AQ=="),
            },
            ContentBlock::ResourceLink {
                uri: s("file:///a"),
                name: s("a"),
                mime: Some(s("text/x")),
            },
            ContentBlock::ResourceLink {
                uri: s("file:///b"),
                name: s("b"),
                mime: None,
            },
            ContentBlock::EmbeddedResource {
                uri: s("u1"),
                mime: Some(s("text/plain")),
                text: Some(s("t")),
                blob: None,
            },
            ContentBlock::EmbeddedResource {
                uri: s("u2"),
                mime: None,
                text: None,
                blob: Some(s("AA==")),
            },
            ContentBlock::EmbeddedResource {
                uri: s("u3"),
                mime: Some(s("application/x")),
                text: Some(s("both")),
                blob: Some(s("AA==")),
            },
            ContentBlock::EmbeddedResource {
                uri: s("u4"),
                mime: None,
                text: None,
                blob: None,
            },
        ]
    }

    /// Every block kind, with and without structured content, error or not: the same
    /// value and the same bytes as the JSON path.
    #[test]
    fn a_result_is_sent_as_its_json_was() {
        let structured = [
            None,
            Some(json!({"sum": 5.0, "nested": {"list": [1, "two", null]}})),
            Some(json!([1, 2])),
            Some(json!("text")),
        ];
        for structured in structured {
            for is_error in [false, true] {
                let result = ToolResult {
                    content: every_kind(),
                    structured: structured.clone(),
                    structured_mismatch: vec!["ignored".into()],
                    is_error,
                    oversized: None,
                    metadata: json!({"server": "t"}),
                };
                let before = through_json(&result);
                let after = call_tool_result(result);
                assert_eq!(after, before);
                assert_eq!(
                    serde_json::to_string(&after).unwrap(),
                    serde_json::to_string(&before).unwrap()
                );
            }
        }
    }

    /// The shapes the gate makes itself (a refusal, an empty result) and what the wire
    /// carries for them.
    #[test]
    fn refusals_and_empty_results_keep_their_shape() {
        for result in [
            ToolResult::error("Denied: no."),
            ToolResult::text("ok"),
            ToolResult {
                content: Vec::new(),
                ..ToolResult::text("")
            },
        ] {
            let before = through_json(&result);
            let after = call_tool_result(result);
            assert_eq!(after, before);
            let wire = serde_json::to_value(&after).unwrap();
            assert_eq!(wire["resultType"], "complete");
            assert!(wire["isError"].is_boolean());
            assert!(wire.get("_meta").is_none() && wire.get("structuredContent").is_none());
            assert!(matches!(wire["content"], Value::Array(_)));
        }
    }
}
