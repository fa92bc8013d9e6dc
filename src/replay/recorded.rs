//! The calls a saved session holds, each with what it gave: the model's and the
//! person's tool calls (`tool_call_requested` … `tool_result`) and the person's reads
//! and prompts (`request_started` … `request_finished`), in the order they were made.

use serde_json::{Map, Value};

use crate::agent::{AgentEvent, McpRequest};
use crate::config::AGENT_TOOL_PREFIX;
use crate::gate::{CallEnd, CallId};
use crate::policy::Origin;
use crate::tools::server_of;

/// What a call asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Asked {
    /// A tool call through the registry: `SERVER__TOOL`, or a built-in's name.
    Tool {
        name: String,
        args: Map<String, Value>,
    },
    /// A read or a prompt.
    Mcp(McpRequest),
    /// A request that cannot be asked again (a run of agents), by its label.
    Other(String),
}

/// What a call gave: as the session recorded it, or as it comes back today.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub outcome: CallEnd,
    /// The text its caller got: for the model's calls what the model read, for the
    /// person's the transcript's text (`tools::describe_result`, `mcp::describe_read`).
    pub text: String,
    /// The tool's structured content (`None` also for sessions that did not record it).
    pub structured: Option<Value>,
}

/// One call of a saved session.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    pub call_id: CallId,
    /// `model`, or `manual` for the person's calls, reads and prompts.
    pub origin: Origin,
    pub asked: Asked,
    /// What it gave (`None`: the session ended before it finished).
    pub seen: Option<Seen>,
    /// The model's text was cut to `max_tool_result_chars`.
    pub truncated: bool,
}

impl RecordedCall {
    /// The server it went to: `builtin` for the built-in tools.
    pub fn server(&self) -> &str {
        match &self.asked {
            Asked::Tool { name, .. } => server_of(name),
            Asked::Mcp(request) => request.server(),
            Asked::Other(_) => "",
        }
    }

    /// `weather__get`, `read weather file:///a`, `prompt weather forecast`.
    pub fn label(&self) -> String {
        match &self.asked {
            Asked::Tool { name, .. } => name.clone(),
            Asked::Mcp(McpRequest::Read { server, uri }) => format!("read {server} {uri}"),
            Asked::Mcp(McpRequest::Prompt { server, name, .. }) => {
                format!("prompt {server} {name}")
            }
            Asked::Other(label) => label.clone(),
        }
    }

    /// Why this call is not asked again, when it is not.
    pub fn skip_reason(&self) -> Option<&'static str> {
        match &self.asked {
            Asked::Tool { name, .. } if name.starts_with(AGENT_TOOL_PREFIX) => {
                return Some("it hands a task to an agent, which would ask a model");
            }
            Asked::Other(_) => return Some("a run of agents would ask a model"),
            _ => {}
        }
        match self.seen.as_ref().map(|s| s.outcome) {
            None => Some("the session has no result for it"),
            Some(CallEnd::Aborted) => Some("it was aborted in the session"),
            Some(CallEnd::Cancelled) => Some("it was cancelled in the session"),
            Some(_) => None,
        }
    }
}

/// The calls of a session's events, in the order they were asked for.
pub fn recorded_calls<'a>(events: impl IntoIterator<Item = &'a AgentEvent>) -> Vec<RecordedCall> {
    let mut calls: Vec<RecordedCall> = Vec::new();
    for event in events {
        match event {
            AgentEvent::ToolCallRequested {
                call_id,
                tool,
                args,
                origin: origin @ (Origin::Model | Origin::Manual),
                ..
            } => calls.push(RecordedCall {
                call_id: call_id.clone(),
                origin: *origin,
                asked: Asked::Tool {
                    name: tool.clone(),
                    args: match args {
                        Value::Object(map) => map.clone(),
                        _ => Map::new(),
                    },
                },
                seen: None,
                truncated: false,
            }),
            AgentEvent::RequestStarted {
                call_id,
                label,
                request,
                ..
            } => calls.push(RecordedCall {
                call_id: call_id.clone(),
                origin: Origin::Manual,
                asked: request
                    .clone()
                    .or_else(|| from_label(label))
                    .map_or_else(|| Asked::Other(label.clone()), Asked::Mcp),
                seen: None,
                truncated: false,
            }),
            AgentEvent::ToolResult {
                call_id,
                is_error,
                content,
                truncated,
                outcome,
                structured,
                ..
            } => {
                if let Some(call) = open_call(&mut calls, call_id) {
                    call.truncated = *truncated;
                    call.seen = Some(Seen {
                        outcome: outcome.unwrap_or(if *is_error {
                            CallEnd::Error
                        } else {
                            CallEnd::Ok
                        }),
                        text: content.clone(),
                        structured: structured.clone(),
                    });
                }
            }
            AgentEvent::RequestFinished {
                call_id,
                outcome,
                text,
                ..
            } => {
                if let Some(call) = open_call(&mut calls, call_id) {
                    call.seen = Some(Seen {
                        outcome: *outcome,
                        text: text.clone(),
                        structured: None,
                    });
                }
            }
            _ => {}
        }
    }
    calls
}

/// The latest call with this id still waiting for its result (the model may use an
/// id again in a later turn).
fn open_call<'a>(calls: &'a mut [RecordedCall], id: &CallId) -> Option<&'a mut RecordedCall> {
    calls
        .iter_mut()
        .rev()
        .find(|c| &c.call_id == id && c.seen.is_none())
}

/// A read or prompt of a session saved before requests were recorded whole, from its
/// label: `read SERVER URI`, `prompt SERVER NAME` (its arguments were not kept).
fn from_label(label: &str) -> Option<McpRequest> {
    let (verb, rest) = label.split_once(' ')?;
    let (server, what) = rest.split_once(' ')?;
    match verb {
        "read" => Some(McpRequest::Read {
            server: server.to_owned(),
            uri: what.to_owned(),
        }),
        "prompt" => Some(McpRequest::Prompt {
            server: server.to_owned(),
            name: what.to_owned(),
            args: Map::new(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn requested(id: &str, tool: &str, origin: Origin) -> AgentEvent {
        AgentEvent::ToolCallRequested {
            run_id: "r".into(),
            call_id: CallId::new(id),
            tool: tool.into(),
            args: json!({"a": 1}),
            origin,
        }
    }

    fn result(id: &str, content: &str, outcome: Option<CallEnd>) -> AgentEvent {
        AgentEvent::ToolResult {
            run_id: "r".into(),
            call_id: CallId::new(id),
            tool: "t".into(),
            is_error: false,
            content: content.into(),
            truncated: false,
            outcome,
            structured: Some(json!({"sum": 3})),
        }
    }

    #[test]
    fn calls_come_in_order_with_their_results() {
        let events = [
            requested("c1", "demo__add", Origin::Model),
            result("c1", "3", Some(CallEnd::Ok)),
            requested("manual-1", "fs", Origin::Manual),
            AgentEvent::RequestStarted {
                run_id: "r".into(),
                call_id: CallId::new("manual-2"),
                label: "prompt demo greet".into(),
                request: Some(McpRequest::Prompt {
                    server: "demo".into(),
                    name: "greet".into(),
                    args: json!({"name": "Ada"})
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                }),
            },
            AgentEvent::RequestFinished {
                run_id: "r".into(),
                call_id: CallId::new("manual-2"),
                outcome: CallEnd::Ok,
                text: "Hi Ada!".into(),
                duration_ms: 1,
            },
            // The same id in a later turn is another call.
            requested("c1", "demo__add", Origin::Model),
            result("c1", "4", None),
        ];
        let calls = recorded_calls(&events);
        assert_eq!(calls.len(), 4);
        assert_eq!(calls[0].server(), "demo");
        assert_eq!(calls[0].seen.as_ref().map(|s| s.text.as_str()), Some("3"));
        assert_eq!(calls[1].server(), "builtin");
        assert_eq!(
            calls[1].skip_reason(),
            Some("the session has no result for it")
        );
        assert_eq!(calls[2].label(), "prompt demo greet");
        assert_eq!(calls[2].origin, Origin::Manual);
        assert_eq!(calls[2].seen.as_ref().map(|s| s.outcome), Some(CallEnd::Ok));
        assert_eq!(calls[3].seen.as_ref().map(|s| s.text.as_str()), Some("4"));
        assert_eq!(calls[3].seen.as_ref().map(|s| s.outcome), Some(CallEnd::Ok));
        assert_eq!(calls[3].skip_reason(), None);
    }

    #[test]
    fn agents_and_old_labels() {
        let events = [
            requested("c1", "agent__helper", Origin::Model),
            result("c1", "done", Some(CallEnd::Ok)),
            AgentEvent::RequestStarted {
                run_id: "r".into(),
                call_id: CallId::new("manual-1"),
                label: "read demo test://text/1".into(),
                request: None,
            },
            AgentEvent::RequestStarted {
                run_id: "r".into(),
                call_id: CallId::new("manual-2"),
                label: "run agents a, b · sequential".into(),
                request: None,
            },
        ];
        let calls = recorded_calls(&events);
        assert!(calls[0].skip_reason().is_some_and(|r| r.contains("agent")));
        assert_eq!(
            calls[1].asked,
            Asked::Mcp(McpRequest::Read {
                server: "demo".into(),
                uri: "test://text/1".into()
            })
        );
        assert_eq!(
            calls[2].asked,
            Asked::Other("run agents a, b · sequential".into())
        );
        assert!(calls[2].skip_reason().is_some_and(|r| r.contains("agents")));
    }
}
