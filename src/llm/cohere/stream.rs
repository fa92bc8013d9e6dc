//! Decoding a Cohere Chat v2 stream: each SSE event's JSON names its `type`:
//! message-start → content-delta (text) | tool-plan-delta | tool-call-start →
//! tool-call-delta (argument pieces) → tool-call-end → message-end (finish reason and
//! usage). A stream without `message-end` is truncated.

use std::collections::HashMap;

use serde_json::Value;

use crate::llm::error::{LlmError, LlmErrorKind};
use crate::llm::event::{FinishReason, LlmEvent, Usage};
use crate::llm::message::SYNTHETIC_ID_PREFIX;
use crate::llm::transport::StreamDecoder;

const PROVIDER: &str = "cohere";

#[derive(Debug, Default)]
pub struct CohereDecoder {
    /// Open tool calls by index → call id.
    calls: HashMap<u64, String>,
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
        let v: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::new(LlmErrorKind::Decode, PROVIDER, format!("bad event: {e}"))
        })?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(name);
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        let message = v.pointer("/delta/message").unwrap_or(&Value::Null);
        let mut out = Vec::new();
        match kind {
            "content-delta" => {
                if let Some(text) = message.pointer("/content/text").and_then(Value::as_str)
                    && !text.is_empty()
                {
                    out.push(LlmEvent::TextDelta(text.to_owned()));
                }
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
                if let Some(id) = self.calls.get(&index)
                    && !piece.is_empty()
                {
                    out.push(LlmEvent::ToolCallDelta {
                        id: id.clone(),
                        fragment: piece.to_owned(),
                    });
                }
            }
            "tool-call-end" => {
                if let Some(id) = self.calls.remove(&index) {
                    out.push(LlmEvent::ToolCallEnd {
                        id,
                        signature: None,
                    });
                }
            }
            "message-end" => self.end(&v, &mut out)?,
            _ => {} // message-start, content-start/-end, tool-plan-delta, citations
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
        let mut out: Vec<LlmEvent> = self.usage.take().map(LlmEvent::Usage).into_iter().collect();
        out.push(LlmEvent::Finish(
            self.finish.take().unwrap_or(FinishReason::Stop),
        ));
        Ok(out)
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
        let name = function.get("name").and_then(Value::as_str).unwrap_or("");
        out.push(LlmEvent::ToolCallStart {
            id: id.clone(),
            name: name.to_owned(),
        });
        if let Some(args) = function.get("arguments").and_then(Value::as_str)
            && !args.is_empty()
        {
            out.push(LlmEvent::ToolCallDelta {
                id: id.clone(),
                fragment: args.to_owned(),
            });
        }
        self.calls.insert(index, id);
    }

    /// `message-end`: close any call left open, read finish reason and usage.
    fn end(&mut self, v: &Value, out: &mut Vec<LlmEvent>) -> Result<(), LlmError> {
        let mut open: Vec<(u64, String)> = self.calls.drain().collect();
        open.sort();
        for (_, id) in open {
            out.push(LlmEvent::ToolCallEnd {
                id,
                signature: None,
            });
        }
        let delta = v.get("delta").unwrap_or(&Value::Null);
        if let Some(tokens) = delta.pointer("/usage/tokens") {
            let n = |k: &str| tokens.get(k).and_then(Value::as_u64).unwrap_or(0);
            self.usage = Some(Usage::new(n("input_tokens"), n("output_tokens")));
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
            let mut err = LlmError::new(LlmErrorKind::Stream, PROVIDER, message);
            err.code = Some(reason.to_owned());
            return Err(err);
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
