//! Decoding an OpenAI Chat Completions stream, tolerant of compatible servers: whole
//! calls in one chunk, `id`/`name` repeated in every fragment, index 0 reused for
//! parallel calls (told apart by id), usage never sent or sent with an empty delta.

use std::collections::HashMap;

use serde_json::Value;

use super::error::{LlmError, LlmErrorKind};
use super::event::{FinishReason, LlmEvent, Usage};
use super::failure::error_object;
use super::message::synthetic_call_id;
use super::transport::StreamDecoder;

const PROVIDER: &str = "openai";

#[derive(Debug, Default)]
pub struct OpenAiDecoder {
    /// Calls opened and not yet closed, in order.
    open: Vec<String>,
    /// The call currently fed by each index.
    by_index: HashMap<u64, String>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    done: bool,
}

impl StreamDecoder for OpenAiDecoder {
    fn on_event(&mut self, _name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(self.close_calls());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::new(LlmErrorKind::Decode, PROVIDER, format!("bad chunk: {e}"))
        })?;
        if let Some(error) = chunk.get("error") {
            let body = error_object(error);
            let mut err = LlmError::new(
                LlmErrorKind::Stream,
                PROVIDER,
                body.message.unwrap_or_else(|| error.to_string()),
            );
            err.code = body.code;
            return Err(err);
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            self.usage = Some(Usage::new(n("prompt_tokens"), n("completion_tokens")));
        }
        let mut out = Vec::new();
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            let delta = choice.get("delta").unwrap_or(&Value::Null);
            if let Some(text) = delta.get("content").and_then(Value::as_str)
                && !text.is_empty()
            {
                out.push(LlmEvent::TextDelta(text.to_owned()));
            }
            let calls = delta.get("tool_calls").and_then(Value::as_array);
            for call in calls.into_iter().flatten() {
                self.tool_call(call, &mut out);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish = Some(finish_reason(reason));
                out.extend(self.close_calls());
            }
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

impl OpenAiDecoder {
    fn tool_call(&mut self, call: &Value, out: &mut Vec<LlmEvent>) {
        let index = call.get("index").and_then(Value::as_u64).unwrap_or(0);
        let function = call.get("function").unwrap_or(&Value::Null);
        let name = function.get("name").and_then(Value::as_str).unwrap_or("");
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let id = match id {
            Some(id) if self.open.iter().any(|o| o == id) => id.to_owned(),
            Some(id) => self.start(index, id.to_owned(), name, out),
            None => {
                if let Some(id) = self.by_index.get(&index) {
                    id.clone()
                } else {
                    let id = synthetic_call_id();
                    self.start(index, id, name, out)
                }
            }
        };
        let fragment = match function.get("arguments") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        if !fragment.is_empty() {
            out.push(LlmEvent::ToolCallDelta { id, fragment });
        }
    }

    fn start(&mut self, index: u64, id: String, name: &str, out: &mut Vec<LlmEvent>) -> String {
        self.open.push(id.clone());
        self.by_index.insert(index, id.clone());
        out.push(LlmEvent::ToolCallStart {
            id: id.clone(),
            name: name.to_owned(),
        });
        id
    }

    fn close_calls(&mut self) -> Vec<LlmEvent> {
        self.by_index.clear();
        std::mem::take(&mut self.open)
            .into_iter()
            .map(|id| LlmEvent::ToolCallEnd {
                id,
                signature: None,
            })
            .collect()
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}
