//! The one stream of events every provider produces.

use std::fmt;
use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

use super::error::LlmError;

/// Tokens used by a request (or summed over a turn or a session).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            output_tokens,
        }
    }

    pub fn total(self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, rhs: Self) {
        self.input_tokens += rhs.input_tokens;
        self.output_tokens += rhs.output_tokens;
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    /// Hit the token limit.
    Length,
    ContentFilter,
    /// A provider-specific reason, verbatim.
    Other(String),
}

impl fmt::Display for FinishReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stop => f.write_str("stop"),
            Self::ToolCalls => f.write_str("tool_calls"),
            Self::Length => f.write_str("length"),
            Self::ContentFilter => f.write_str("content_filter"),
            Self::Other(s) => f.write_str(s),
        }
    }
}

/// One event of a model response. A well-formed stream ends with `Finish` (after an
/// optional `Usage`), or with `Error`; nothing follows either.
#[derive(Debug, Clone, PartialEq)]
pub enum LlmEvent {
    TextDelta(String),
    /// A tool call opens.
    ToolCallStart {
        id: String,
        name: String,
    },
    /// A piece of a call's JSON arguments; concatenate in order.
    ToolCallDelta {
        id: String,
        fragment: String,
    },
    /// A call is complete; `signature` is Gemini's `thoughtSignature`.
    ToolCallEnd {
        id: String,
        signature: Option<String>,
    },
    /// Tokens used by this request.
    Usage(Usage),
    Finish(FinishReason),
    /// The request failed (after retries); the stream ends.
    Error(LlmError),
}
