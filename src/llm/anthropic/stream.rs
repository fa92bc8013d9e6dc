//! Decoding an Anthropic Messages stream: message_start → content blocks (text |
//! tool_use with `input_json_delta`) → message_delta → message_stop; `ping` anywhere;
//! `event: error` may arrive after HTTP 200. No `message_stop` means truncated.

use std::collections::HashMap;

use serde_json::Value;

use crate::llm::error::{LlmError, LlmErrorKind};
use crate::llm::event::{FinishReason, LlmEvent, Usage};
use crate::llm::failure::error_object;
use crate::llm::transport::StreamDecoder;

const PROVIDER: &str = "anthropic";

#[derive(Debug, Default)]
pub struct AnthropicDecoder {
    /// Tool-use blocks by index → call id.
    tools: HashMap<u64, String>,
    usage: Usage,
    finish: Option<FinishReason>,
    done: bool,
}

impl StreamDecoder for AnthropicDecoder {
    fn on_event(&mut self, name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError> {
        let v: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::new(LlmErrorKind::Decode, PROVIDER, format!("bad event: {e}"))
        })?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(name);
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        let mut out = Vec::new();
        match kind {
            "message_start" => {
                if let Some(u) = v.pointer("/message/usage") {
                    self.read_usage(u);
                }
            }
            "content_block_start" => {
                let block = v.get("content_block").unwrap_or(&Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = block.get("text").and_then(Value::as_str)
                            && !t.is_empty()
                        {
                            out.push(LlmEvent::TextDelta(t.to_owned()));
                        }
                    }
                    Some("tool_use") => {
                        let s = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or("");
                        self.tools.insert(index, s("id").to_owned());
                        out.push(LlmEvent::ToolCallStart {
                            id: s("id").to_owned(),
                            name: s("name").to_owned(),
                        });
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                let s = |k: &str| delta.get(k).and_then(Value::as_str).unwrap_or("");
                match s("type") {
                    "text_delta" if !s("text").is_empty() => {
                        out.push(LlmEvent::TextDelta(s("text").to_owned()));
                    }
                    "input_json_delta" if !s("partial_json").is_empty() => {
                        if let Some(id) = self.tools.get(&index) {
                            out.push(LlmEvent::ToolCallDelta {
                                id: id.clone(),
                                fragment: s("partial_json").to_owned(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(id) = self.tools.remove(&index) {
                    out.push(LlmEvent::ToolCallEnd {
                        id,
                        signature: None,
                    });
                }
            }
            "message_delta" => {
                if let Some(reason) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.finish = Some(stop_reason(reason));
                }
                if let Some(u) = v.get("usage") {
                    self.read_usage(u);
                }
            }
            "message_stop" => self.done = true,
            "error" => {
                let body = error_object(v.get("error").unwrap_or(&v));
                let mut err = LlmError::new(
                    LlmErrorKind::Stream,
                    PROVIDER,
                    body.message.unwrap_or_else(|| "error event".into()),
                );
                err.code = body.code;
                return Err(err);
            }
            _ => {} // ping, thinking blocks, future events
        }
        Ok(out)
    }

    fn is_complete(&self) -> bool {
        self.done
    }

    fn finish(&mut self) -> Result<Vec<LlmEvent>, LlmError> {
        if !self.done {
            return Err(LlmError::truncated(PROVIDER));
        }
        Ok(vec![
            LlmEvent::Usage(self.usage),
            LlmEvent::Finish(self.finish.take().unwrap_or(FinishReason::Stop)),
        ])
    }
}

impl AnthropicDecoder {
    /// Usage fields are cumulative: take the latest of each one present.
    fn read_usage(&mut self, u: &Value) {
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        let cached = n("cache_creation_input_tokens").unwrap_or(0)
            + n("cache_read_input_tokens").unwrap_or(0);
        if let Some(input) = n("input_tokens") {
            self.usage.input_tokens = input + cached;
        }
        if let Some(output) = n("output_tokens") {
            self.usage.output_tokens = output;
        }
    }
}

fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" => FinishReason::Length,
        "refusal" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}
