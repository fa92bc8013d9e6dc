//! Decoding an OpenAI Chat Completions stream, tolerant of compatible servers: whole
//! calls in one chunk, `id`/`name` repeated in every fragment, index 0 reused for
//! parallel calls (told apart by id), usage never sent or sent with an empty delta.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use super::chunk::{Chunk, Function, Text};
use crate::llm::decode::{
    call_end, closing, json, push_fragment, push_text, stream_error, usage_at,
};
use crate::llm::error::LlmError;
use crate::llm::event::{FinishReason, LlmEvent, Usage};
use crate::llm::message::synthetic_call_id;
use crate::llm::transport::StreamDecoder;

const PROVIDER: &str = "openai";

/// One tool-call fragment, however it was read.
struct CallParts<'a> {
    index: u64,
    id: Option<Cow<'a, str>>,
    name: Cow<'a, str>,
    fragment: Cow<'a, str>,
}

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
        match serde_json::from_str::<Chunk<'_>>(data) {
            Ok(chunk) if !chunk.error.0 => Ok(self.typed(chunk)),
            _ => self.untyped(data),
        }
    }

    fn is_complete(&self) -> bool {
        self.done
    }

    fn finish(&mut self) -> Result<Vec<LlmEvent>, LlmError> {
        closing(PROVIDER, self.done, self.finish.take(), self.usage.take())
    }
}

impl OpenAiDecoder {
    /// The usual chunk, read through borrowing types.
    fn typed(&mut self, chunk: Chunk<'_>) -> Vec<LlmEvent> {
        if let Some(usage) = chunk.usage {
            let n = |v: Option<u64>| v.unwrap_or(0);
            self.usage = Some(Usage::new(
                n(usage.prompt_tokens),
                n(usage.completion_tokens),
            ));
        }
        let mut out = Vec::new();
        for choice in chunk.choices.into_iter().flatten() {
            if let Some(delta) = choice.delta {
                push_text(&mut out, delta.content.map(|Text(text)| text));
                for call in delta.tool_calls.into_iter().flatten() {
                    let function = call.function.unwrap_or(Function {
                        name: None,
                        arguments: None,
                    });
                    let call = CallParts {
                        index: call.index.unwrap_or(0),
                        id: call.id.map(|Text(t)| t),
                        name: Text::or_empty(function.name),
                        fragment: Text::or_empty(function.arguments),
                    };
                    self.tool_call(call, &mut out);
                }
            }
            if let Some(Text(reason)) = choice.finish_reason {
                self.finish = Some(finish_reason(&reason));
                out.extend(self.close_calls());
            }
        }
        out
    }

    /// Any other JSON chunk, read leniently through `Value` (wrong types are ignored).
    fn untyped(&mut self, data: &str) -> Result<Vec<LlmEvent>, LlmError> {
        let chunk = json(PROVIDER, "chunk", data)?;
        if let Some(error) = chunk.get("error") {
            return Err(stream_error(PROVIDER, error, || error.to_string()));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage_at(usage, "prompt_tokens", "completion_tokens"));
        }
        let mut out = Vec::new();
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            let delta = choice.get("delta").unwrap_or(&Value::Null);
            push_text(&mut out, delta.get("content").and_then(Value::as_str));
            let calls = delta.get("tool_calls").and_then(Value::as_array);
            for call in calls.into_iter().flatten() {
                let function = call.get("function").unwrap_or(&Value::Null);
                let call = CallParts {
                    index: call.get("index").and_then(Value::as_u64).unwrap_or(0),
                    id: str_at(call, "id"),
                    name: str_at(function, "name").unwrap_or_default(),
                    fragment: match function.get("arguments") {
                        Some(Value::String(s)) => Cow::from(s.as_str()),
                        Some(Value::Null) | None => Cow::default(),
                        Some(other) => Cow::from(other.to_string()),
                    },
                };
                self.tool_call(call, &mut out);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish = Some(finish_reason(reason));
                out.extend(self.close_calls());
            }
        }
        Ok(out)
    }

    fn tool_call(&mut self, call: CallParts<'_>, out: &mut Vec<LlmEvent>) {
        let CallParts {
            index,
            id,
            name,
            fragment,
        } = call;
        let id = match id.filter(|s| !s.is_empty()) {
            Some(id) if self.open.iter().any(|o| *o == id) => id.into_owned(),
            Some(id) => self.start(index, id.into_owned(), &name, out),
            None => {
                if let Some(id) = self.by_index.get(&index) {
                    id.clone()
                } else {
                    let id = synthetic_call_id();
                    self.start(index, id, &name, out)
                }
            }
        };
        push_fragment(out, id, fragment);
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
            .map(call_end)
            .collect()
    }
}

fn str_at<'a>(value: &'a Value, key: &str) -> Option<Cow<'a, str>> {
    value.get(key).and_then(Value::as_str).map(Cow::from)
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
