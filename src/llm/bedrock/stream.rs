//! Decoding a Bedrock ConverseStream: messageStart → contentBlockStart (a tool use
//! opens) → contentBlockDelta (`text` | `toolUse.input` piece) → contentBlockStop →
//! messageStop (stop reason) → metadata (usage). Exception frames (`exception:TYPE`)
//! end the stream with the service's message. No `messageStop` means truncated.

use serde_json::Value;

use crate::llm::decode::{OpenCalls, closing, coded_error, json, push_text, str_at, usage_at};
use crate::llm::error::LlmError;
use crate::llm::event::{FinishReason, LlmEvent, Usage};
use crate::llm::transport::StreamDecoder;

const PROVIDER: &str = "bedrock";

#[derive(Debug, Default)]
pub struct BedrockDecoder {
    /// Tool-use blocks by content block index.
    tools: OpenCalls,
    usage: Option<Usage>,
    finish: Option<FinishReason>,
    metadata: bool,
}

impl StreamDecoder for BedrockDecoder {
    fn on_event(&mut self, name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError> {
        let v = json(PROVIDER, format_args!("{name} event"), data)?;
        if let Some(kind) = name.strip_prefix("exception:") {
            let message = v
                .get("message")
                .or_else(|| v.get("Message"))
                .and_then(Value::as_str)
                .unwrap_or("the service sent an exception");
            return Err(coded_error(PROVIDER, message, Some(kind.to_owned())));
        }
        let index = v
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let mut out = Vec::new();
        match name {
            "contentBlockStart" => {
                if let Some(tool) = v.pointer("/start/toolUse") {
                    let id = str_at(tool, "toolUseId").to_owned();
                    self.tools.start(index, id, str_at(tool, "name"), &mut out);
                }
            }
            "contentBlockDelta" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                push_text(&mut out, delta.get("text").and_then(Value::as_str));
                if let Some(piece) = delta.pointer("/toolUse/input").and_then(Value::as_str) {
                    self.tools.fragment(index, piece, &mut out);
                }
            }
            "contentBlockStop" => self.tools.end(index, &mut out),
            "messageStop" => {
                let reason = v
                    .get("stopReason")
                    .and_then(Value::as_str)
                    .unwrap_or("end_turn");
                self.finish = Some(stop_reason(reason));
            }
            "metadata" => {
                if let Some(u) = v.get("usage") {
                    self.usage = Some(usage_at(u, "inputTokens", "outputTokens"));
                }
                self.metadata = true;
            }
            _ => {} // messageStart, reasoning content, future events
        }
        Ok(out)
    }

    fn is_complete(&self) -> bool {
        self.metadata && self.finish.is_some()
    }

    fn finish(&mut self) -> Result<Vec<LlmEvent>, LlmError> {
        let finish = self.finish.take();
        closing(PROVIDER, finish.is_some(), finish, self.usage.take())
    }
}

fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "guardrail_intervened" | "content_filtered" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}
