//! Decoding an Anthropic Messages stream: message_start → content blocks (text |
//! tool_use with `input_json_delta`) → message_delta → message_stop; `ping` anywhere;
//! `event: error` may arrive after HTTP 200. No `message_stop` means truncated.

use serde_json::Value;

use crate::llm::decode::{OpenCalls, closing, json, push_text, str_at, stream_error};
use crate::llm::error::LlmError;
use crate::llm::event::{FinishReason, LlmEvent, Usage};
use crate::llm::transport::StreamDecoder;

const PROVIDER: &str = "anthropic";

#[derive(Debug, Default)]
pub struct AnthropicDecoder {
    /// Tool-use blocks by index.
    tools: OpenCalls,
    usage: Usage,
    finish: Option<FinishReason>,
    done: bool,
}

impl StreamDecoder for AnthropicDecoder {
    fn on_event(&mut self, name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError> {
        let v = json(PROVIDER, "event", data)?;
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
                    Some("text") => push_text(&mut out, block.get("text").and_then(Value::as_str)),
                    Some("tool_use") => {
                        let id = str_at(block, "id").to_owned();
                        self.tools.start(index, id, str_at(block, "name"), &mut out);
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                match str_at(delta, "type") {
                    "text_delta" => push_text(&mut out, Some(str_at(delta, "text"))),
                    "input_json_delta" => {
                        self.tools
                            .fragment(index, str_at(delta, "partial_json"), &mut out);
                    }
                    _ => {}
                }
            }
            "content_block_stop" => self.tools.end(index, &mut out),
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
                let error = v.get("error").unwrap_or(&v);
                return Err(stream_error(PROVIDER, error, || "error event".into()));
            }
            _ => {} // ping, thinking blocks, future events
        }
        Ok(out)
    }

    fn is_complete(&self) -> bool {
        self.done
    }

    fn finish(&mut self) -> Result<Vec<LlmEvent>, LlmError> {
        closing(PROVIDER, self.done, self.finish.take(), Some(self.usage))
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
