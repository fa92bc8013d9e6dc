//! Decoding a Gemini `streamGenerateContent?alt=sse` stream: each event is a whole
//! response chunk; function calls arrive whole; `finishReason` is STOP even after a call,
//! so calls are detected by their parts. No `finishReason` before the end means
//! truncated.

use serde_json::Value;

use crate::llm::decode::{closing, count, json, push_text, stream_error};
use crate::llm::error::LlmError;
use crate::llm::event::{FinishReason, LlmEvent, Usage};
#[cfg(test)]
use crate::llm::message::SYNTHETIC_ID_PREFIX;
use crate::llm::message::synthetic_call_id;
use crate::llm::transport::StreamDecoder;

const PROVIDER: &str = "gemini";

#[derive(Debug, Default)]
pub struct GeminiDecoder {
    usage: Option<Usage>,
    finish: Option<FinishReason>,
    saw_call: bool,
}

impl StreamDecoder for GeminiDecoder {
    fn on_event(&mut self, _name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError> {
        let chunk = json(PROVIDER, "chunk", data)?;
        if let Some(error) = chunk.get("error") {
            return Err(stream_error(PROVIDER, error, || error.to_string()));
        }
        if let Some(u) = chunk.get("usageMetadata") {
            self.usage = Some(Usage::new(
                count(u, "promptTokenCount"),
                count(u, "candidatesTokenCount") + count(u, "thoughtsTokenCount"),
            ));
        }
        let mut out = Vec::new();
        if let Some(reason) = chunk
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            self.finish = Some(FinishReason::Other(format!("blocked: {reason}")));
        }
        let Some(candidate) = chunk.pointer("/candidates/0") else {
            return Ok(out);
        };
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            self.part(part, &mut out);
        }
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
            self.finish = Some(self.finish_reason(reason));
        }
        Ok(out)
    }

    fn is_complete(&self) -> bool {
        false // usage may follow the finishing chunk: read to the end
    }

    fn finish(&mut self) -> Result<Vec<LlmEvent>, LlmError> {
        let finish = self.finish.take();
        closing(PROVIDER, finish.is_some(), finish, self.usage.take())
    }
}

impl GeminiDecoder {
    fn part(&mut self, part: &Value, out: &mut Vec<LlmEvent>) {
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            return; // thought summaries are not the answer
        }
        push_text(out, part.get("text").and_then(Value::as_str));
        if let Some(call) = part.get("functionCall") {
            self.saw_call = true;
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map_or_else(synthetic_call_id, str::to_owned);
            let name = call.get("name").and_then(Value::as_str).unwrap_or("");
            let args = call
                .get("args")
                .cloned()
                .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
            out.push(LlmEvent::ToolCallStart {
                id: id.clone(),
                name: name.to_owned(),
            });
            out.push(LlmEvent::ToolCallDelta {
                id: id.clone(),
                fragment: args.to_string(),
            });
            out.push(LlmEvent::ToolCallEnd {
                id,
                signature: part
                    .get("thoughtSignature")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            });
        }
    }

    fn finish_reason(&self, reason: &str) -> FinishReason {
        match reason {
            "STOP" if self.saw_call => FinishReason::ToolCalls,
            "STOP" => FinishReason::Stop,
            "MAX_TOKENS" => FinishReason::Length,
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
            | "IMAGE_SAFETY" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_ids(decoder: &mut GeminiDecoder) -> Vec<String> {
        let chunk = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"t","args":{}}},{"functionCall":{"name":"t","args":{}}}]},"finishReason":"STOP"}]}"#;
        let events = decoder.on_event("", chunk).unwrap_or_default();
        events
            .into_iter()
            .filter_map(|e| match e {
                LlmEvent::ToolCallStart { id, .. } => Some(id),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn gemini_synthetic_ids_are_unique_across_steps() {
        // Each model request (step) gets a new decoder; ids must not start over.
        let first = call_ids(&mut GeminiDecoder::default());
        let second = call_ids(&mut GeminiDecoder::default());
        let all: std::collections::HashSet<&String> = first.iter().chain(&second).collect();
        assert_eq!(first.len(), 2);
        assert_eq!(all.len(), 4, "{first:?} {second:?}");
        assert!(first[0].starts_with(SYNTHETIC_ID_PREFIX));
    }
}
