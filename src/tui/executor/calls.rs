//! The executor's calls on the person's behalf: `/call` (and forms) through the
//! gate, `/read` and `/prompt` against the hub, cancelling them, and the
//! coordinator. Each is recorded on the session's sink as a call with its card. `/agents a,b --mode M TASK` runs the agents in the
//! background as one call the person made: its card is a request card; each step's
//! `agent__NAME` call (id `CALL/run/step-N`) and the agents' own calls nest under it,
//! approvals go to the pane, and Esc on the card cancels the run.

use std::sync::{Arc, PoisonError};
use std::time::Instant;

use crate::agent::sink::SinkObserver;
use crate::agent::{AgentEvent, McpRequest};
use crate::agents::{Plan, coordinate, outcomes_text};
use crate::gate::{CallEnd, CallId};
use crate::mcp::McpHub;
use crate::policy::Origin;
use crate::tools::ToolContext;

/// The server of a built-in tool's saved case (as `switchboard call builtin TOOL`).
const BUILTIN: &str = "builtin";

use serde_json::Value;

use super::super::msg::{CallCmd, Msg};
use super::super::result_view;
use super::super::state::{LastCase, LastContents};
use super::{Executor, close};
use crate::cases::{Observed, Target};
use crate::tools::{render_blocks_for_stream as render_blocks, split_qualified};

impl Executor {
    pub(super) fn execute_call(&self, cmd: CallCmd) {
        match cmd {
            CallCmd::CallTool {
                call_id,
                tool,
                args,
            } => self.call_tool(call_id, tool, args),
            CallCmd::RunAgents {
                call_id,
                plan,
                task,
            } => self.run_agents(call_id, plan, task),
            CallCmd::ReadResource {
                call_id,
                server,
                uri,
            } => {
                let inbox = self.inbox.clone();
                let label = format!("read {server} {uri}");
                let request = McpRequest::Read {
                    server: server.clone(),
                    uri: uri.clone(),
                };
                self.spawn_mcp(call_id, label, request, move |hub| async move {
                    let read = hub.read_resource(&server, &uri).await;
                    let observed = match &read {
                        Ok(read) => Observed::from_text(true, &render_blocks(&read.contents)),
                        Err(e) => Observed::from_text(false, &e.to_string()),
                    };
                    let case = LastCase {
                        server: server.clone(),
                        target: Target::Read { uri: uri.clone() },
                        observed,
                    };
                    let _ = inbox.send(Msg::CaseSource(Box::new(case)));
                    let read = read?;
                    let text = result_view::describe_read(&read);
                    let last = LastContents {
                        source: format!("{server} read {uri}"),
                        blocks: read.contents,
                    };
                    let _ = inbox.send(Msg::Contents(Box::new(last)));
                    Ok(text)
                });
            }
            CallCmd::GetPrompt {
                call_id,
                server,
                name,
                args,
            } => {
                let label = format!("prompt {server} {name}");
                let inbox = self.inbox.clone();
                let request = McpRequest::Prompt {
                    server: server.clone(),
                    name: name.clone(),
                    args: args.clone(),
                };
                self.spawn_mcp(call_id, label, request, move |hub| async move {
                    let text = hub
                        .get_prompt(&server, &name, args.clone())
                        .await
                        .map(|view| view.to_text());
                    let observed = match &text {
                        Ok(text) => Observed::from_text(true, text),
                        Err(e) => Observed::from_text(false, &e.to_string()),
                    };
                    let case = LastCase {
                        server,
                        target: Target::Prompt { name, args },
                        observed,
                    };
                    let _ = inbox.send(Msg::CaseSource(Box::new(case)));
                    text
                });
            }
            CallCmd::CancelCalls(ids) => {
                let open = self
                    .open_calls
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                for id in ids {
                    if let Some(token) = open.get(&id) {
                        token.cancel();
                    }
                }
            }
        }
    }

    /// A call on the person's behalf: recorded as requested, then through the gate
    /// (whose events go to the same recorder), then its whole result.
    fn call_tool(&self, call_id: CallId, tool: String, args: serde_json::Map<String, Value>) {
        let run_id = call_id.0.clone();
        self.recorder.emit(AgentEvent::ToolCallRequested {
            run_id: run_id.clone(),
            call_id: call_id.clone(),
            tool: tool.clone(),
            args: Value::Object(args.clone()),
            origin: Origin::Manual,
        });
        let token = self.open(&call_id);
        let ctx = ToolContext::new(run_id.clone(), Origin::Manual)
            .with_call_id(call_id.clone())
            .with_cancel(token.clone())
            .with_observer(Arc::new(SinkObserver(self.recorder.clone())));
        let registry = Arc::clone(&self.registry);
        let readiness = self.readiness.clone();
        let (inbox, recorder, open) = (
            self.inbox.clone(),
            self.recorder.clone(),
            Arc::clone(&self.open_calls),
        );
        tokio::spawn(async move {
            let asked = args.clone();
            wait_for_servers(&registry, &tool, readiness.as_deref(), &inbox, &token).await;
            let outcome = registry.invoke(&tool, args, &ctx).await;
            let end = outcome.end();
            let result = outcome.into_result();
            let has_schema = registry
                .specs()
                .iter()
                .any(|s| s.name == tool && s.output_schema.is_some());
            let (server, name) = split_qualified(&tool).unwrap_or((BUILTIN, &tool));
            let _ = inbox.send(Msg::CaseSource(Box::new(LastCase {
                server: server.to_owned(),
                target: Target::Tool {
                    name: name.to_owned(),
                    args: asked,
                },
                observed: Observed::from_tool_result(&result, has_schema),
            })));
            let text = result_view::describe_result(&result);
            // `/save` keeps what the tool returned, even what was too large to show.
            let _ = inbox.send(Msg::Contents(Box::new(LastContents {
                source: tool.clone(),
                blocks: result.oversized.unwrap_or(result.content),
            })));
            close(&open, &call_id);
            recorder.emit(AgentEvent::ToolResult {
                run_id,
                call_id,
                tool,
                is_error: result.is_error,
                content: text,
                truncated: false,
                outcome: Some(end),
                structured: result.structured,
            });
        });
    }

    fn run_agents(&self, call_id: CallId, plan: Plan, task: String) {
        let run_id = call_id.0.clone();
        self.recorder.emit(AgentEvent::RequestStarted {
            run_id: run_id.clone(),
            call_id: call_id.clone(),
            label: format!(
                "run agents {} · {}",
                plan.agents.join(", "),
                plan.mode.as_str()
            ),
            request: None,
        });
        let token = self.open(&call_id);
        // Steps are `CALL/run/step-N`: nested under this card as calls of "run".
        let base = ToolContext::new(run_id.clone(), Origin::Manual)
            .with_call_id(CallId(format!("{}/run", call_id.0)))
            .with_cancel(token)
            .with_observer(Arc::new(SinkObserver(self.recorder.clone())));
        let registry = Arc::clone(&self.registry);
        let (recorder, open) = (self.recorder.clone(), Arc::clone(&self.open_calls));
        tokio::spawn(async move {
            let started = Instant::now();
            let outcomes = coordinate(&registry, &plan, &task, &base, &|_| {}).await;
            close(&open, &call_id);
            let failed = outcomes.iter().any(|o| o.error.is_some());
            recorder.emit(AgentEvent::RequestFinished {
                run_id,
                call_id,
                outcome: if failed { CallEnd::Error } else { CallEnd::Ok },
                text: outcomes_text(&outcomes),
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            });
        });
    }

    /// Run an MCP request in the background as a call the person made: recorded as
    /// started and finished (with its whole text), cancellable from its card.
    fn spawn_mcp<F, Fut>(&self, call_id: CallId, label: String, asked: McpRequest, request: F)
    where
        F: FnOnce(McpHub) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<String, crate::mcp::McpError>> + Send,
    {
        let run_id = call_id.0.clone();
        self.recorder.emit(AgentEvent::RequestStarted {
            run_id: run_id.clone(),
            call_id: call_id.clone(),
            label,
            request: Some(asked),
        });
        let token = self.open(&call_id);
        let (hub, recorder, open) = (
            self.hub.clone(),
            self.recorder.clone(),
            std::sync::Arc::clone(&self.open_calls),
        );
        tokio::spawn(async move {
            let started = Instant::now();
            let (outcome, text) = match hub {
                None => (CallEnd::Failed, "no MCP servers are configured".to_owned()),
                Some(hub) => tokio::select! {
                    biased;
                    () = token.cancelled() => (CallEnd::Cancelled, "cancelled".to_owned()),
                    result = request(hub) => match result {
                        Ok(text) => (CallEnd::Ok, text),
                        Err(e) => (CallEnd::Error, e.to_string()),
                    },
                },
            };
            close(&open, &call_id);
            recorder.emit(AgentEvent::RequestFinished {
                run_id,
                call_id,
                outcome,
                text,
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            });
        });
    }
}

/// A manual call to a tool not registered yet while servers are still connecting
/// waits for them (each bounded by its startup timeout), as a message does, saying so;
/// Esc cancels the call. Then it goes through the gate as usual (an unknown tool is
/// refused there).
async fn wait_for_servers(
    registry: &crate::tools::Registry,
    tool: &str,
    readiness: Option<&dyn crate::agent::Readiness>,
    inbox: &tokio::sync::mpsc::UnboundedSender<Msg>,
    cancel: &tokio_util::sync::CancellationToken,
) {
    let Some(readiness) = readiness else {
        return;
    };
    if registry.names().iter().any(|n| n == tool) {
        return;
    }
    let pending = readiness.pending();
    if pending.is_empty() {
        return;
    }
    let _ = inbox.send(Msg::Note(format!(
        "Waiting for {} to connect… (Esc cancels the call)",
        pending.join(", ")
    )));
    tokio::select! {
        () = readiness.settled() => {}
        () = cancel.cancelled() => {}
    }
}
