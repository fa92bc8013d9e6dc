//! Stream decoding: the pieces every provider's decoder is built from (an event's
//! JSON, an error the stream reports, usage counts, text and tool-call events, the
//! closing events), and the decoders themselves, exposed for benchmarks and fixture
//! tests.

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

use super::error::{LlmError, LlmErrorKind};
use super::event::{FinishReason, LlmEvent, Usage};
use super::failure::error_object;

pub use super::anthropic::stream::AnthropicDecoder;
pub use super::bedrock::stream::BedrockDecoder;
pub use super::cohere::stream::CohereDecoder;
pub use super::eventstream::events as event_stream_frames;
pub use super::gemini::stream::GeminiDecoder;
pub use super::openai::stream::OpenAiDecoder;

/// One event's JSON; data that is not JSON is a `Decode` error: `bad {what}: …`.
pub(super) fn json(provider: &str, what: impl fmt::Display, data: &str) -> Result<Value, LlmError> {
    serde_json::from_str(data)
        .map_err(|e| LlmError::new(LlmErrorKind::Decode, provider, format!("bad {what}: {e}")))
}

/// The error a stream reports in an error object: its message (else `fallback()`)
/// and its code.
pub(super) fn stream_error(
    provider: &str,
    error: &Value,
    fallback: impl FnOnce() -> String,
) -> LlmError {
    let body = error_object(error);
    coded_error(provider, body.message.unwrap_or_else(fallback), body.code)
}

/// A `Stream` error with the provider's code for it.
pub(super) fn coded_error(
    provider: &str,
    message: impl Into<String>,
    code: Option<String>,
) -> LlmError {
    let mut err = LlmError::new(LlmErrorKind::Stream, provider, message);
    err.code = code;
    err
}

/// The string at `key`; "" when it is absent or not a string.
pub(super) fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The count at `key`; 0 when it is absent or not a whole number.
pub(super) fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The usage an object reports under the provider's two names for the counts.
pub(super) fn usage_at(value: &Value, input: &str, output: &str) -> Usage {
    Usage::new(count(value, input), count(value, output))
}

/// A `TextDelta` for a piece of the answer; an empty or absent piece adds nothing.
pub(super) fn push_text<T>(out: &mut Vec<LlmEvent>, text: Option<T>)
where
    T: AsRef<str> + Into<String>,
{
    if let Some(text) = text
        && !text.as_ref().is_empty()
    {
        out.push(LlmEvent::TextDelta(text.into()));
    }
}

/// A `ToolCallDelta` for a piece of a call's arguments; an empty piece adds nothing.
pub(super) fn push_fragment<T>(out: &mut Vec<LlmEvent>, id: impl Into<String>, fragment: T)
where
    T: AsRef<str> + Into<String>,
{
    if !fragment.as_ref().is_empty() {
        out.push(LlmEvent::ToolCallDelta {
            id: id.into(),
            fragment: fragment.into(),
        });
    }
}

/// A call is complete (no signature: only Gemini sends one).
pub(super) fn call_end(id: String) -> LlmEvent {
    LlmEvent::ToolCallEnd {
        id,
        signature: None,
    }
}

/// The tool calls open in a stream, by the index the provider numbers them with.
#[derive(Debug, Default)]
pub(super) struct OpenCalls(HashMap<u64, String>);

impl OpenCalls {
    /// A call opens at `index`.
    pub(super) fn start(&mut self, index: u64, id: String, name: &str, out: &mut Vec<LlmEvent>) {
        self.0.insert(index, id.clone());
        out.push(LlmEvent::ToolCallStart {
            id,
            name: name.to_owned(),
        });
    }

    /// A piece of the arguments of the call open at `index` (none open: nothing).
    pub(super) fn fragment(&self, index: u64, fragment: &str, out: &mut Vec<LlmEvent>) {
        if let Some(id) = self.0.get(&index) {
            push_fragment(out, id.as_str(), fragment);
        }
    }

    /// The call open at `index` is complete.
    pub(super) fn end(&mut self, index: u64, out: &mut Vec<LlmEvent>) {
        if let Some(id) = self.0.remove(&index) {
            out.push(call_end(id));
        }
    }

    /// Every open call is complete, in the order of their indexes.
    pub(super) fn end_all(&mut self, out: &mut Vec<LlmEvent>) {
        let mut open: Vec<(u64, String)> = self.0.drain().collect();
        open.sort();
        out.extend(open.into_iter().map(|(_, id)| call_end(id)));
    }
}

/// The events that close a stream: its usage (when it reported any), then why the
/// model stopped (`Stop` when it did not say). A stream that was not `done` (its
/// terminal event, or for some providers its finish reason, never came) was cut
/// short: `Truncated`.
pub(super) fn closing(
    provider: &str,
    done: bool,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
) -> Result<Vec<LlmEvent>, LlmError> {
    if !done {
        return Err(LlmError::truncated(provider));
    }
    let mut out: Vec<LlmEvent> = usage.map(LlmEvent::Usage).into_iter().collect();
    out.push(LlmEvent::Finish(finish.unwrap_or(FinishReason::Stop)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_needs_the_end_and_defaults_the_reason() {
        let err = closing("p", false, Some(FinishReason::Stop), None).unwrap_err();
        assert_eq!(err.kind, LlmErrorKind::Truncated);
        assert_eq!(
            closing("p", true, None, Some(Usage::new(1, 2))).unwrap(),
            vec![
                LlmEvent::Usage(Usage::new(1, 2)),
                LlmEvent::Finish(FinishReason::Stop)
            ]
        );
    }

    #[test]
    fn open_calls_take_fragments_by_index_and_end_in_order() {
        let mut calls = OpenCalls::default();
        let mut out = Vec::new();
        calls.start(1, "b".into(), "t", &mut out);
        calls.start(0, "a".into(), "t", &mut out);
        calls.fragment(1, "{}", &mut out);
        calls.fragment(1, "", &mut out);
        calls.fragment(7, "{}", &mut out);
        calls.end_all(&mut out);
        let ends: Vec<&LlmEvent> = out.iter().skip(3).collect();
        assert_eq!(out.len(), 5);
        assert_eq!(*ends[0], call_end("a".into()));
        assert_eq!(*ends[1], call_end("b".into()));
        assert!(
            matches!(&out[2], LlmEvent::ToolCallDelta { id, fragment } if id == "b" && fragment == "{}")
        );
    }
}
