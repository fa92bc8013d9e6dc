//! The approval card of a sampling request (`sampling/createMessage`, MCP 2025-11-25
//! "Sampling", <https://modelcontextprotocol.io/specification/2025-11-25/client/sampling>):
//! what the server wants the model asked, then the model's answer before it goes back.

use serde_json::Value;

use crate::mcp::SamplingReply;
use crate::sanitize::sanitize_line;

#[derive(Debug, Clone, PartialEq)]
pub enum SampleStage {
    /// The person reads (and may edit) the request.
    Review,
    /// Sent to the provider; waiting for its answer.
    Running,
    /// The model answered: shown before it goes back (may be edited or declined).
    Reply(SamplingReply),
    /// The provider failed: why.
    Failed(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SampleCard {
    /// The request's params as sent (messages replaced when the person edits them).
    pub params: Value,
    pub stage: SampleStage,
}

/// The text of a content block or list of blocks; other kinds by their type.
pub fn content_text(content: &Value) -> String {
    let block = |b: &Value| match b.get("type").and_then(Value::as_str) {
        Some("text") => b
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        Some("tool_use") => format!(
            "[tool call {} {}]",
            b.get("name").and_then(Value::as_str).unwrap_or("?"),
            b.get("input").map(Value::to_string).unwrap_or_default()
        ),
        Some("tool_result") => format!(
            "[tool result {}]",
            b.get("content").map(content_text).unwrap_or_default()
        ),
        Some(other) => format!("[{other}]"),
        None => String::new(),
    };
    match content {
        Value::Array(blocks) => blocks.iter().map(block).collect::<Vec<_>>().join("\n"),
        other => block(other),
    }
}

/// Lines of one message shown on the card; the rest is counted, not drawn, so a long
/// request cannot push the keys that answer it off the screen (Ctrl+E shows it all).
pub const MESSAGE_LINES: usize = 6;
/// Lines of the model's reply shown before it goes back.
pub const REPLY_LINES: usize = 8;
/// Characters of one line shown; a longer line ends in `…`.
const LINE_CHARS: usize = 300;

/// The first `max` lines of `text` (each cut to [`LINE_CHARS`]) and how many more
/// lines there are.
pub fn clipped(text: &str, max: usize) -> (Vec<String>, usize) {
    let mut shown = Vec::new();
    let mut more = 0;
    for line in text.lines() {
        if shown.len() == max {
            more += 1;
            continue;
        }
        shown.push(match line.char_indices().nth(LINE_CHARS) {
            Some((at, _)) => format!("{}…", &line[..at]),
            None => line.to_owned(),
        });
    }
    (shown, more)
}

/// `… 194 more lines`.
pub fn more_lines(n: usize) -> String {
    format!("… {n} more line{}", if n == 1 { "" } else { "s" })
}

impl SampleCard {
    pub fn new(params: Value) -> Self {
        Self {
            params,
            stage: SampleStage::Review,
        }
    }

    /// (role, text) per message, sanitised.
    pub fn messages(&self) -> Vec<(String, String)> {
        self.params
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|m| {
                let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
                let text = m.get("content").map(content_text).unwrap_or_default();
                (
                    sanitize_line(role),
                    crate::sanitize::sanitize(&text).into_owned(),
                )
            })
            .collect()
    }

    pub fn system(&self) -> Option<String> {
        self.params
            .get("systemPrompt")
            .and_then(Value::as_str)
            .map(|s| crate::sanitize::sanitize(s).into_owned())
    }

    /// The names of the tools the server offers the model (sampling with tools).
    pub fn tools(&self) -> Vec<String> {
        self.params
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("name").and_then(Value::as_str).map(sanitize_line))
            .collect()
    }

    /// `hints: claude-3-sonnet · intelligence 0.8 · speed 0.5 · cost 0.3`.
    pub fn preferences(&self) -> Option<String> {
        let prefs = self.params.get("modelPreferences")?;
        let mut parts = Vec::new();
        let hints: Vec<String> = prefs
            .get("hints")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|h| h.get("name").and_then(Value::as_str).map(sanitize_line))
            .collect();
        if !hints.is_empty() {
            parts.push(format!("hints: {}", hints.join(", ")));
        }
        for (key, label) in [
            ("intelligencePriority", "intelligence"),
            ("speedPriority", "speed"),
            ("costPriority", "cost"),
        ] {
            if let Some(x) = prefs.get(key).and_then(Value::as_f64) {
                parts.push(format!("{label} {x}"));
            }
        }
        (!parts.is_empty()).then(|| parts.join(" · "))
    }

    pub fn max_tokens(&self) -> Option<u64> {
        self.params.get("maxTokens").and_then(Value::as_u64)
    }

    /// The messages as pretty JSON, for the external editor.
    pub fn messages_json(&self) -> String {
        let messages = self.params.get("messages").cloned().unwrap_or(Value::Null);
        serde_json::to_string_pretty(&messages).unwrap_or_default()
    }

    /// What the editor saved: new messages (Review) or a new reply text (Reply).
    pub fn edited(&mut self, text: &str) -> Result<(), String> {
        match &mut self.stage {
            SampleStage::Review => {
                let messages: Value = serde_json::from_str(text)
                    .map_err(|e| format!("the messages are not JSON: {e}"))?;
                if !messages.is_array() {
                    return Err("the messages must be a JSON array".into());
                }
                self.params["messages"] = messages;
                Ok(())
            }
            SampleStage::Reply(reply) => {
                reply.content = serde_json::json!({"type": "text", "text": text.trim_end()});
                Ok(())
            }
            _ => Err("nothing to edit now".into()),
        }
    }
}
