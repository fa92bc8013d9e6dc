//! A call's result for people, as the transcript shows it and the session file keeps
//! it: a lone text block as it is; otherwise a `▸` line per block saying what it is,
//! the structured content pretty-printed. `switchboard replay` renders today's result
//! with the same function to compare it with the recorded one.

use std::fmt::Write as _;

use super::{ContentBlock, ToolResult, decoded_size};
use crate::sanitize::sanitize_line;

/// The line that opens the structured content in [`describe_result`]'s text.
pub const STRUCTURED_HEADING: &str = "▸ structured content";

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
        text.push_str(if result.is_error {
            "▸ the model was refused it; the whole result is kept for you: /save FILE \
             [ITEM] writes it. Its first part:\n"
        } else {
            "▸ larger than a model is sent (max_result_chars); kept whole for you: /save \
             FILE [ITEM] writes it. Its first part:\n"
        });
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
        out.push_str(&structured_section(structured));
    }
    out
}

/// The part of [`describe_result`]'s text that shows `structured`: the heading and the
/// value pretty-printed (sanitised), each ending with a newline.
pub fn structured_section(structured: &serde_json::Value) -> String {
    let pretty = serde_json::to_string_pretty(structured).unwrap_or_default();
    let mut text = format!(
        "{STRUCTURED_HEADING}\n{}",
        crate::sanitize::sanitize(&pretty)
    );
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}
