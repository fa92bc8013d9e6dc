//! Decoding a Bedrock ConverseStream: messageStart → contentBlockStart (a tool use
//! opens) → contentBlockDelta (`text` | `toolUse.input` piece) → contentBlockStop →
//! messageStop (stop reason) → metadata (usage). Exception frames (`exception:TYPE`)
//! end the stream with the service's message. No `messageStop` means truncated.

use std::collections::HashMap;

use serde_json::Value;

use crate::llm::error::{LlmError, LlmErrorKind};
use crate::llm::event::{FinishReason, LlmEvent, Usage};
use crate::llm::transport::StreamDecoder;

const PROVIDER: &str = "bedrock";

#[derive(Debug, Default)]
pub struct BedrockDecoder {
    /// Tool-use blocks by content block index → tool use id.
    tools: HashMap<u64, String>,
    usage: Option<Usage>,
    finish: Option<FinishReason>,
    metadata: bool,
}

impl StreamDecoder for BedrockDecoder {
    fn on_event(&mut self, name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError> {
        let v: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::new(
                LlmErrorKind::Decode,
                PROVIDER,
                format!("bad {name} event: {e}"),
            )
        })?;
        if let Some(kind) = name.strip_prefix("exception:") {
            let message = v
                .get("message")
                .or_else(|| v.get("Message"))
                .and_then(Value::as_str)
                .unwrap_or("the service sent an exception");
            let mut err = LlmError::new(LlmErrorKind::Stream, PROVIDER, message);
            err.code = Some(kind.to_owned());
            return Err(err);
        }
        let index = v
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let mut out = Vec::new();
        match name {
            "contentBlockStart" => {
                if let Some(tool) = v.pointer("/start/toolUse") {
                    let s = |k: &str| tool.get(k).and_then(Value::as_str).unwrap_or("");
                    self.tools.insert(index, s("toolUseId").to_owned());
                    out.push(LlmEvent::ToolCallStart {
                        id: s("toolUseId").to_owned(),
                        name: s("name").to_owned(),
                    });
                }
            }
            "contentBlockDelta" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                if let Some(text) = delta.get("text").and_then(Value::as_str)
                    && !text.is_empty()
                {
                    out.push(LlmEvent::TextDelta(text.to_owned()));
                }
                let piece = delta.pointer("/toolUse/input").and_then(Value::as_str);
                if let (Some(piece), Some(id)) = (piece, self.tools.get(&index))
                    && !piece.is_empty()
                {
                    out.push(LlmEvent::ToolCallDelta {
                        id: id.clone(),
                        fragment: piece.to_owned(),
                    });
                }
            }
            "contentBlockStop" => {
                if let Some(id) = self.tools.remove(&index) {
                    out.push(LlmEvent::ToolCallEnd {
                        id,
                        signature: None,
                    });
                }
            }
            "messageStop" => {
                let reason = v
                    .get("stopReason")
                    .and_then(Value::as_str)
                    .unwrap_or("end_turn");
                self.finish = Some(stop_reason(reason));
            }
            "metadata" => {
                if let Some(u) = v.get("usage") {
                    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
                    self.usage = Some(Usage::new(n("inputTokens"), n("outputTokens")));
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
        let Some(finish) = self.finish.take() else {
            return Err(LlmError::truncated(PROVIDER));
        };
        let mut out: Vec<LlmEvent> = self.usage.take().map(LlmEvent::Usage).into_iter().collect();
        out.push(LlmEvent::Finish(finish));
        Ok(out)
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
