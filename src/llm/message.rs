//! The one internal message model every provider maps to and from (OpenAI-like).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Prefix of tool-call ids switchboard made up because the provider sent none.
/// Such ids are never sent back to a provider that gives ids of its own.
pub const SYNTHETIC_ID_PREFIX: &str = "sb_call_";

/// A fresh id for a tool call the provider gave none (Gemini often does not; some
/// OpenAI-compatible servers neither): `sb_call_<process>_<n>`, never repeated in this
/// process and not clashing with the ids of a resumed session written by another one.
pub fn synthetic_call_id() -> String {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    static PROCESS: OnceLock<String> = OnceLock::new();
    let process = PROCESS.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        format!("{:x}{:05x}", std::process::id(), nanos & 0xf_ffff)
    });
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{SYNTHETIC_ID_PREFIX}{process}_{n}")
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    System {
        text: String,
    },
    User {
        text: String,
    },
    /// The model's answer: text and/or tool calls.
    Assistant {
        #[serde(default)]
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, answering `call_id`.
    Tool {
        call_id: String,
        /// The tool's name as the model saw it (Gemini answers by name).
        name: String,
        content: String,
        #[serde(default)]
        is_error: bool,
    },
}

impl Message {
    pub fn user(text: impl Into<String>) -> Self {
        Self::User { text: text.into() }
    }

    pub fn system(text: impl Into<String>) -> Self {
        Self::System { text: text.into() }
    }

    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self::Assistant {
            text: text.into(),
            tool_calls,
        }
    }

    pub fn tool(
        call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Self {
        Self::Tool {
            call_id: call_id.into(),
            name: name.into(),
            content: content.into(),
            is_error,
        }
    }

    /// `system`, `user`, `assistant` or `tool`.
    pub fn role(&self) -> &'static str {
        match self {
            Self::System { .. } => "system",
            Self::User { .. } => "user",
            Self::Assistant { .. } => "assistant",
            Self::Tool { .. } => "tool",
        }
    }

    /// A one-line description: the text, or the tool calls, or the result.
    pub fn preview(&self) -> String {
        match self {
            Self::System { text } | Self::User { text } => text.clone(),
            Self::Assistant { text, tool_calls } if tool_calls.is_empty() => text.clone(),
            Self::Assistant { tool_calls, .. } => {
                let names: Vec<String> = tool_calls
                    .iter()
                    .map(|c| format!("{} {}", c.name, c.arguments))
                    .collect();
                format!("tool calls: {}", names.join("; "))
            }
            Self::Tool { name, content, .. } => format!("{name} result: {content}"),
        }
    }
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    /// The tool name as the model sees it (`fs`, `weather__get_weather`).
    pub name: String,
    /// Usually an object. Arguments that were not valid JSON are kept as the raw string.
    pub arguments: Value,
    /// Gemini's `thoughtSignature`, echoed back with the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl ToolCall {
    /// Builds a call from its streamed argument text (empty means `{}`).
    pub fn from_fragments(
        id: String,
        name: String,
        arguments: &str,
        signature: Option<String>,
    ) -> Self {
        let arguments = if arguments.trim().is_empty() {
            Value::Object(Map::new())
        } else {
            serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()))
        };
        Self {
            id,
            name,
            arguments,
            signature,
        }
    }

    /// The arguments as a JSON string (OpenAI's wire form).
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        }
    }

    /// The arguments as an object (Anthropic's and Gemini's wire form); `{}` otherwise.
    pub fn arguments_object(&self) -> Value {
        match &self.arguments {
            Value::Object(_) => self.arguments.clone(),
            _ => Value::Object(Map::new()),
        }
    }

    /// Whether the provider gave this id (as opposed to switchboard making it up).
    pub fn has_provider_id(&self) -> bool {
        !self.id.starts_with(SYNTHETIC_ID_PREFIX)
    }
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDeclaration {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

/// Per-request knobs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestOptions {
    pub model: Option<String>,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
}

/// Everything one model request carries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatRequest {
    /// The conversation; `System` messages are placed where each provider wants them.
    pub messages: Vec<Message>,
    pub tools: Vec<ToolDeclaration>,
    pub options: RequestOptions,
}

impl ChatRequest {
    /// The provider-safe names of the tools this request offers (see
    /// [`super::tool_names`]).
    pub fn tool_names(&self) -> super::tool_names::ToolNames {
        super::tool_names::ToolNames::new(self.tools.iter().map(|t| t.name.as_str()))
    }

    /// All system texts, joined by blank lines.
    pub fn system_text(&self) -> Option<String> {
        let parts: Vec<&str> = self
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::System { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }
}
