//! Decoding a Cohere Chat v2 stream: each SSE event's JSON names its `type`:
//! message-start → content-delta (text) | tool-plan-delta | tool-call-start →
//! tool-call-delta (argument pieces) → tool-call-end → message-end (finish reason and
//! usage). A stream without `message-end` is truncated.

use serde_json::Value;

use crate::llm::decode::{OpenCalls, closing, coded_error, json, push_text, str_at, usage_at};
use crate::llm::error::LlmError;
use crate::llm::event::{FinishReason, LlmEvent, Usage};
use crate::llm::message::SYNTHETIC_ID_PREFIX;
use crate::llm::transport::StreamDecoder;

const PROVIDER: &str = "cohere";

#[derive(Debug, Default)]
pub struct CohereDecoder {
    /// Open tool calls by index.
    calls: OpenCalls,
    usage: Option<Usage>,
    finish: Option<FinishReason>,
    done: bool,
    synthetic: usize,
}

impl StreamDecoder for CohereDecoder {
    fn on_event(&mut self, name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError> {
        if data.trim() == "[DONE]" {
            return Ok(Vec::new());
        }
        let v = json(PROVIDER, "event", data)?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(name);
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        let message = v.pointer("/delta/message").unwrap_or(&Value::Null);
        let mut out = Vec::new();
        match kind {
            "content-delta" => {
                push_text(
                    &mut out,
                    message.pointer("/content/text").and_then(Value::as_str),
                );
            }
            "tool-call-start" => {
                let call = message.get("tool_calls").unwrap_or(&Value::Null);
                self.start(index, call, &mut out);
            }
            "tool-call-delta" => {
                let piece = message
                    .pointer("/tool_calls/function/arguments")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                self.calls.fragment(index, piece, &mut out);
            }
            "tool-call-end" => self.calls.end(index, &mut out),
            "message-end" => self.end(&v, &mut out)?,
            _ => {} // message-start, content-start/-end, tool-plan-delta, citations
        }
        Ok(out)
    }

    fn is_complete(&self) -> bool {
        self.done
    }

    fn finish(&mut self) -> Result<Vec<LlmEvent>, LlmError> {
        closing(PROVIDER, self.done, self.finish.take(), self.usage.take())
    }
}

impl CohereDecoder {
    fn start(&mut self, index: u64, call: &Value, out: &mut Vec<LlmEvent>) {
        let id = match call.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => {
                self.synthetic += 1;
                format!("{SYNTHETIC_ID_PREFIX}{}", self.synthetic)
            }
        };
        let function = call.get("function").unwrap_or(&Value::Null);
        self.calls.start(index, id, str_at(function, "name"), out);
        self.calls
            .fragment(index, str_at(function, "arguments"), out);
    }

    /// `message-end`: close any call left open, read finish reason and usage.
    fn end(&mut self, v: &Value, out: &mut Vec<LlmEvent>) -> Result<(), LlmError> {
        self.calls.end_all(out);
        let delta = v.get("delta").unwrap_or(&Value::Null);
        if let Some(tokens) = delta.pointer("/usage/tokens") {
            self.usage = Some(usage_at(tokens, "input_tokens", "output_tokens"));
        }
        let reason = delta
            .get("finish_reason")
            .and_then(Value::as_str)
            .unwrap_or("COMPLETE");
        if reason == "ERROR" {
            let message = delta
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("the model stopped with an error");
            return Err(coded_error(PROVIDER, message, Some(reason.to_owned())));
        }
        self.finish = Some(finish_reason(reason));
        self.done = true;
        Ok(())
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "COMPLETE" | "STOP_SEQUENCE" => FinishReason::Stop,
        "TOOL_CALL" => FinishReason::ToolCalls,
        "MAX_TOKENS" => FinishReason::Length,
        other => FinishReason::Other(other.to_lowercase()),
    }
}
