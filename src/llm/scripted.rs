//! The scripted provider: the offline default. Deterministic, no network.
//!
//! Without a script it reads the user's last message: lines `TOOL {json}` or
//! `/call TOOL key=value …` become tool calls (streamed in chunks like a real provider);
//! once their results are back it answers with a summary of them. Anything else gets a
//! short explanation of what it is and how to configure a real provider. With a script
//! (see [`super::scripted_script`]) it replays the script's responses in order.

use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use super::error::{LlmError, LlmErrorKind};
use super::event::{FinishReason, LlmEvent, Usage};
use super::message::{ChatRequest, Message};
use super::provider::{LlmStream, Provider};
use super::scripted_input::requested_calls;
use super::scripted_script::{ScriptedCall, ScriptedTurn};

/// Text is streamed in pieces of this many characters, arguments in smaller ones.
const TEXT_CHUNK: usize = 24;
const ARGS_CHUNK: usize = 10;
/// How much of each result the summary quotes.
const SUMMARY_CHARS: usize = 300;

/// The example line the explanation offers.
pub const EXAMPLE_LINE: &str = r#"fs {"operation":"list","path":"."}"#;

#[derive(Debug, Default)]
pub struct ScriptedProvider {
    script: Option<Mutex<std::vec::IntoIter<ScriptedTurn>>>,
    next_id: AtomicUsize,
}

impl ScriptedProvider {
    /// Reacts to the user's messages.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replays `turns`, one per request.
    pub fn with_script(turns: Vec<ScriptedTurn>) -> Self {
        Self {
            script: Some(Mutex::new(turns.into_iter())),
            next_id: AtomicUsize::new(0),
        }
    }

    fn respond(&self, request: &ChatRequest) -> ScriptedTurn {
        if let Some(script) = &self.script {
            let mut script = script
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            return script.next().unwrap_or_else(|| ScriptedTurn {
                text: "(The script has no more responses.)".into(),
                ..ScriptedTurn::default()
            });
        }
        match request.messages.last() {
            Some(Message::Tool { .. }) => ScriptedTurn {
                text: summary(&request.messages),
                ..ScriptedTurn::default()
            },
            Some(Message::User { text }) => {
                let calls = requested_calls(text);
                if calls.is_empty() {
                    ScriptedTurn {
                        text: explanation(request),
                        ..ScriptedTurn::default()
                    }
                } else {
                    ScriptedTurn {
                        tool_calls: calls
                            .into_iter()
                            .map(|c| ScriptedCall {
                                id: None,
                                name: c.name,
                                arguments: c.arguments,
                            })
                            .collect(),
                        ..ScriptedTurn::default()
                    }
                }
            }
            _ => ScriptedTurn {
                text: explanation(request),
                ..ScriptedTurn::default()
            },
        }
    }

    fn events(&self, request: &ChatRequest, turn: ScriptedTurn) -> Vec<LlmEvent> {
        if let Some(message) = turn.error {
            return vec![LlmEvent::Error(LlmError::new(
                LlmErrorKind::Stream,
                "scripted",
                message,
            ))];
        }
        let mut out: Vec<LlmEvent> = chunks(&turn.text, TEXT_CHUNK)
            .map(|c| LlmEvent::TextDelta(c.to_owned()))
            .collect();
        let mut output_chars = turn.text.chars().count();
        for call in &turn.tool_calls {
            let id = call.id.clone().unwrap_or_else(|| {
                format!("call_{}", self.next_id.fetch_add(1, Ordering::Relaxed) + 1)
            });
            let args = Value::Object(call.arguments.clone()).to_string();
            output_chars += args.chars().count() + call.name.len();
            out.push(LlmEvent::ToolCallStart {
                id: id.clone(),
                name: call.name.clone(),
            });
            out.extend(chunks(&args, ARGS_CHUNK).map(|c| LlmEvent::ToolCallDelta {
                id: id.clone(),
                fragment: c.to_owned(),
            }));
            out.push(LlmEvent::ToolCallEnd {
                id,
                signature: None,
            });
        }
        let input_chars: usize = request
            .messages
            .iter()
            .map(|m| m.preview().chars().count())
            .sum();
        out.push(LlmEvent::Usage(Usage::new(
            tokens(input_chars),
            tokens(output_chars),
        )));
        out.push(LlmEvent::Finish(if turn.tool_calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        }));
        out
    }
}

impl Provider for ScriptedProvider {
    fn kind(&self) -> &'static str {
        "scripted"
    }

    fn model(&self) -> &str {
        if self.script.is_some() {
            "script"
        } else {
            "offline"
        }
    }

    fn stream(&self, request: ChatRequest) -> LlmStream {
        let turn = self.respond(&request);
        Box::pin(futures::stream::iter(self.events(&request, turn)))
    }
}

/// About four characters a token, at least one.
fn tokens(chars: usize) -> u64 {
    u64::try_from(chars.div_ceil(4).max(1)).unwrap_or(u64::MAX)
}

/// `text` in pieces of at most `size` characters.
fn chunks(text: &str, size: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = rest.char_indices().nth(size).map_or(rest.len(), |(i, _)| i);
        let (head, tail) = rest.split_at(cut);
        rest = tail;
        Some(head)
    })
}

/// A summary of the latest round of tool results.
fn summary(messages: &[Message]) -> String {
    let results: Vec<&Message> = messages
        .iter()
        .rev()
        .take_while(|m| matches!(m, Message::Tool { .. }))
        .collect();
    let mut text = format!(
        "I made {} tool call{}; here is what came back:\n",
        results.len(),
        if results.len() == 1 { "" } else { "s" }
    );
    for m in results.into_iter().rev() {
        if let Message::Tool {
            name,
            content,
            is_error,
            ..
        } = m
        {
            let verdict = if *is_error { "failed" } else { "succeeded" };
            let quoted: String = content.chars().take(SUMMARY_CHARS).collect();
            let more = if content.chars().count() > SUMMARY_CHARS {
                "…"
            } else {
                ""
            };
            let _ = write!(text, "\n- {name} {verdict}:\n{quoted}{more}\n");
        }
    }
    text
}

/// What the scripted provider is, and how to get a real one.
fn explanation(request: &ChatRequest) -> String {
    let tools: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
    let offered = if tools.is_empty() {
        "No tools are offered right now.".to_owned()
    } else {
        format!("Tools offered: {}.", tools.join(", "))
    };
    format!(
        "I am switchboard's scripted provider: an offline stand-in, not a language model, \
         so I cannot answer questions. I turn lines like `TOOL {{json args}}` or \
         `/call TOOL key=value …` into tool calls (they go through the same approval \
         gate a real model's calls do) and then summarise the results.\n\n\
         Try:\n\n    {EXAMPLE_LINE}\n\n{offered}\n\n\
         To talk to a real model, add a provider to switchboard.toml, for example\n\n\
         ```toml\n[providers.claude]\nkind = \"anthropic\"   # or openai, gemini\n\
         model = \"claude-sonnet-4-5\"\n```\n\n\
         and set its key in the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY or \
         GEMINI_API_KEY), then choose it with `default_provider = \"claude\"` or \
         `--provider claude`."
    )
}
