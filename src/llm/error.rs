//! Provider errors: they carry the provider's own message and request id.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmErrorKind {
    /// The provider answered with an error status.
    Status,
    /// The stream carried an error event after a successful start.
    Stream,
    /// The stream ended without its terminal event.
    Truncated,
    /// Connecting, sending or reading failed.
    Transport,
    /// The response was not what the provider's format promises.
    Decode,
    /// The provider is not configured (unknown name, missing API key, bad script).
    Config,
}

/// A failed model request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub struct LlmError {
    pub kind: LlmErrorKind,
    /// `openai`, `anthropic`, `gemini`, `cohere`, `bedrock` or `scripted`.
    pub provider: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The provider's error type or code (`overloaded_error`, `insufficient_quota`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

impl LlmError {
    pub fn new(kind: LlmErrorKind, provider: &str, message: impl Into<String>) -> Self {
        Self {
            kind,
            provider: provider.to_owned(),
            message: message.into(),
            status: None,
            code: None,
            request_id: None,
        }
    }

    pub fn config(provider: &str, message: impl Into<String>) -> Self {
        Self::new(LlmErrorKind::Config, provider, message)
    }

    pub fn truncated(provider: &str) -> Self {
        Self::new(
            LlmErrorKind::Truncated,
            provider,
            "the response stream ended before the provider finished it",
        )
    }

    #[must_use]
    pub fn with_request_id(mut self, id: Option<String>) -> Self {
        if self.request_id.is_none() {
            self.request_id = id;
        }
        self
    }
}

impl fmt::Display for LlmError {
    /// `anthropic: HTTP 529 overloaded_error: Overloaded (request id req_1)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.provider)?;
        match self.kind {
            LlmErrorKind::Stream => f.write_str("error in stream: ")?,
            LlmErrorKind::Transport => f.write_str("request failed: ")?,
            LlmErrorKind::Decode => f.write_str("unreadable response: ")?,
            LlmErrorKind::Status | LlmErrorKind::Truncated | LlmErrorKind::Config => {}
        }
        if let Some(status) = self.status {
            write!(f, "HTTP {status} ")?;
        }
        if let Some(code) = &self.code {
            write!(f, "{code}: ")?;
        }
        f.write_str(&self.message)?;
        if let Some(id) = &self.request_id {
            write!(f, " (request id {id})")?;
        }
        Ok(())
    }
}
