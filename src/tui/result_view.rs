//! How results look in the transcript: each content block of a call labelled (text,
//! image and audio with mime and size, links, embedded resources), structured content
//! pretty-printed; reads with a `/save` hint for binary items, and `/save` itself.

use std::fmt::Write as _;

use crate::mcp::ResourceRead;
use crate::sanitize::sanitize_line;
use crate::tools::{ContentBlock, ToolResult, decoded_size};

/// A call's result for people. A lone text block is shown as it is; otherwise every
/// block gets a `▸` line saying what it is.
pub fn describe_result(result: &ToolResult) -> String {
    let mut text = describe_blocks(result);
    if !result.structured_mismatch.is_empty() {
        let _ = writeln!(
            text,
            "⚠ the structured content does not match the tool's output schema: {}",
            result.structured_mismatch.join("; ")
        );
    }
    if let Some(whole) = &result.oversized {
        let shown = ToolResult {
            content: whole.clone(),
            oversized: None,
            ..ToolResult::text("")
        };
        text.push_str(
            "▸ the model was refused it; the whole result is kept for you: /save FILE \
             [ITEM] writes it. Its first part:\n",
        );
        text.push_str(&describe_blocks(&shown));
    }
    text
}

fn describe_blocks(result: &ToolResult) -> String {
    let plain = matches!(result.content.as_slice(), [ContentBlock::Text { .. }] | [])
        && result.structured.is_none();
    if plain {
        return crate::tools::render_blocks(&result.content);
    }
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        if !text.ends_with('\n') {
            out.push('\n');
        }
    };
    for (i, block) in result.content.iter().enumerate() {
        // Binary items say how to keep them: `/save FILE N` (N counts every block).
        let save = format!("  · /save FILE {}", i + 1);
        match block {
            ContentBlock::Text { text } => {
                line("▸ text".into());
                line(crate::sanitize::sanitize(text).into_owned());
            }
            ContentBlock::Image { mime, data } | ContentBlock::Audio { mime, data } => {
                let kind = if matches!(block, ContentBlock::Image { .. }) {
                    "image"
                } else {
                    "audio"
                };
                line(format!(
                    "▸ {kind} {} · {}{save}",
                    sanitize_line(mime),
                    decoded_size(data)
                ));
            }
            ContentBlock::ResourceLink { uri, name, mime } => line(format!(
                "▸ link {} · {}{}",
                sanitize_line(uri),
                sanitize_line(name),
                mime.as_deref()
                    .map(|m| format!(" · {}", sanitize_line(m)))
                    .unwrap_or_default()
            )),
            ContentBlock::EmbeddedResource {
                uri,
                mime,
                text,
                blob,
            } => {
                let mime = mime
                    .as_deref()
                    .map(|m| format!(" · {}", sanitize_line(m)))
                    .unwrap_or_default();
                match (text, blob) {
                    (_, Some(blob)) => line(format!(
                        "▸ resource {}{mime} · {}{save}",
                        sanitize_line(uri),
                        decoded_size(blob)
                    )),
                    (text, None) => {
                        line(format!("▸ resource {}{mime}", sanitize_line(uri)));
                        line(crate::sanitize::sanitize(text.as_deref().unwrap_or("")).into_owned());
                    }
                }
            }
        }
    }
    if let Some(structured) = &result.structured {
        line("▸ structured content".into());
        line(
            crate::sanitize::sanitize(
                &serde_json::to_string_pretty(structured).unwrap_or_default(),
            )
            .into_owned(),
        );
    }
    out
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

/// `/save`: writes an item of the last read or call, relative to the working directory.
pub fn save_blocks(
    blocks: &[ContentBlock],
    item: usize,
    path: &str,
    overwrite: bool,
) -> Result<String, String> {
    use crate::mcp::save::{SaveError, save_content};
    match save_content(blocks, item, std::path::Path::new(path), overwrite) {
        Ok(saved) => Ok(saved.to_string()),
        Err(e @ SaveError::Exists(_)) => Err(format!("{e}; /save! {path} replaces it")),
        Err(e) => Err(e.to_string()),
    }
}
