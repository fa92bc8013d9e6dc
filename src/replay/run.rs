//! One recorded call made again, and its verdict.

use serde::Serialize;

use super::compare::{Difference, Pointer, compare};
use super::recorded::{Asked, RecordedCall, Seen};
use crate::agent::McpRequest;
use crate::agent::tool_round::{cut_for_model, text_for_model};
use crate::gate::{CallEnd, CallId};
use crate::mcp::{McpHub, describe_read};
use crate::policy::Origin;
use crate::tools::{Registry, ToolContext, describe_result};

/// What became of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It gave what it gave then (the ignored fields aside).
    Same,
    Differs,
    /// Not made (see the verdict's reason).
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Same => "same",
            Self::Differs => "differs",
            Self::Skipped => "skipped",
        }
    }
}

/// A call, what it gave now and how that differs from then.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub call: RecordedCall,
    pub status: Status,
    pub differences: Vec<Difference>,
    /// Why it was skipped.
    pub reason: Option<String>,
    /// What it gave now (`None` when skipped).
    pub now: Option<Seen>,
}

impl Verdict {
    /// A call not made, and why.
    pub fn skipped(call: RecordedCall, reason: impl Into<String>) -> Self {
        Self {
            call,
            status: Status::Skipped,
            differences: Vec::new(),
            reason: Some(reason.into()),
            now: None,
        }
    }

    /// The gate refused it now.
    pub fn denied(&self) -> bool {
        self.now
            .as_ref()
            .is_some_and(|n| n.outcome == CallEnd::Denied)
    }
}

/// Makes recorded calls again against a registry and a hub, headless: every tool call
/// goes through `Registry::invoke` with origin `cli`.
pub struct Replayer<'a> {
    pub registry: &'a Registry,
    pub hub: &'a McpHub,
    /// The run id of every call (`replay-PID`).
    pub run_id: String,
    /// `max_tool_result_chars`: a model's result the session cut is cut so again.
    pub model_limit: usize,
    /// JSON Pointers dropped from both sides before comparing.
    pub ignore: Vec<Pointer>,
}

impl Replayer<'_> {
    /// Makes call `n` (numbered from 1 for its id, `replay-N`) again, unless it is
    /// not to be made, and compares.
    pub async fn replay(&self, call: RecordedCall, n: usize) -> Verdict {
        if let Some(reason) = call.skip_reason() {
            return Verdict::skipped(call, reason);
        }
        let Some(was) = call.seen.clone() else {
            return Verdict::skipped(call, "the session has no result for it");
        };
        let now = match &call.asked {
            Asked::Tool { name, args } => self.tool(&call, name, args.clone(), n).await,
            Asked::Mcp(request) => self.request(request).await,
            Asked::Other(_) => return Verdict::skipped(call, "it cannot be asked again"),
        };
        let differences = compare(&was, &now, &self.ignore);
        Verdict {
            status: if differences.is_empty() {
                Status::Same
            } else {
                Status::Differs
            },
            call,
            differences,
            reason: None,
            now: Some(now),
        }
    }

    /// Through the gate; the text as the session's caller got it (the model's, cut
    /// as it was cut, or the transcript's).
    async fn tool(
        &self,
        call: &RecordedCall,
        name: &str,
        args: serde_json::Map<String, serde_json::Value>,
        n: usize,
    ) -> Seen {
        let ctx = ToolContext::new(self.run_id.clone(), Origin::Cli)
            .with_call_id(CallId(format!("replay-{n}")));
        let outcome = self.registry.invoke(name, args, &ctx).await;
        let end = outcome.end();
        let result = outcome.into_result();
        let text = if call.origin == Origin::Manual {
            describe_result(&result)
        } else if call.truncated {
            cut_for_model(text_for_model(&result), self.model_limit).0
        } else {
            text_for_model(&result)
        };
        Seen {
            outcome: end,
            text,
            structured: result.structured,
        }
    }

    /// A read or a prompt, as the TUI's `/read` and `/prompt` make them.
    async fn request(&self, request: &McpRequest) -> Seen {
        let answer = match request {
            McpRequest::Read { server, uri } => self
                .hub
                .read_resource(server, uri)
                .await
                .map(|read| describe_read(&read)),
            McpRequest::Prompt { server, name, args } => self
                .hub
                .get_prompt(server, name, args.clone())
                .await
                .map(|view| view.to_text()),
        };
        let (outcome, text) = match answer {
            Ok(text) => (CallEnd::Ok, text),
            Err(e) => (CallEnd::Error, e.to_string()),
        };
        Seen {
            outcome,
            text,
            structured: None,
        }
    }
}
