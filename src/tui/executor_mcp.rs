//! The executor's MCP side: server commands, reads, prompts, completions and log
//! levels run against the hub in the background; hub events become messages.

use std::time::Instant;

use crate::agent::AgentEvent;
use crate::gate::{CallEnd, CallId};
use crate::mcp::{McpEvent, McpHub};

use super::executor::{Executor, close};
use super::msg::{Cmd, Msg};
use super::state::{LogLevel, LogLine};

impl Executor {
    pub(super) fn execute_mcp(&mut self, cmd: Cmd) -> Option<Msg> {
        match cmd {
            Cmd::Disable(name) => {
                let result = self.hub.as_ref().map(|hub| hub.disable(&name));
                match result {
                    Some(Err(e)) => Some(Msg::Failed(format!("disable {name}: {e}"))),
                    _ => None,
                }
            }
            Cmd::Reconnect(name) => {
                let result = self.hub.as_ref().map(|hub| hub.reconnect(&name));
                match result {
                    Some(Ok(())) => {
                        tracing::info!("reconnecting {name}");
                        None
                    }
                    Some(Err(e)) => Some(Msg::Failed(format!("reconnect {name}: {e}"))),
                    None => None,
                }
            }
            Cmd::ReadResource {
                call_id,
                server,
                uri,
            } => {
                let inbox = self.inbox.clone();
                let label = format!("read {server} {uri}");
                self.spawn_mcp(call_id, label, move |hub| async move {
                    let read = hub.read_resource(&server, &uri).await?;
                    let text = super::result_view::describe_read(&read);
                    let last = super::state::LastContents {
                        source: format!("{server} read {uri}"),
                        blocks: read.contents,
                    };
                    let _ = inbox.send(Msg::Contents(Box::new(last)));
                    Ok(text)
                });
                None
            }
            Cmd::SetServerLogLevel(level) => {
                if let Some(hub) = self.hub.clone() {
                    tokio::spawn(async move {
                        match hub.set_log_level(&level).await {
                            Ok(asked) if !asked.is_empty() => tracing::info!(
                                "asked {} for log level {level} and above",
                                asked.join(", ")
                            ),
                            Ok(_) => {}
                            Err(e) => tracing::warn!("{e}"),
                        }
                    });
                }
                None
            }
            Cmd::GetPrompt {
                call_id,
                server,
                name,
                args,
            } => {
                let label = format!("prompt {server} {name}");
                self.spawn_mcp(call_id, label, move |hub| async move {
                    hub.get_prompt(&server, &name, args)
                        .await
                        .map(|view| view.to_text())
                });
                None
            }
            Cmd::Complete {
                server,
                reference,
                argument,
                value,
                context,
            } => {
                self.complete(server, reference, argument, value, context);
                None
            }
            _ => None,
        }
    }

    /// Asks the server for completions of one argument in the background; they come
    /// back as `Msg::Completions` (none when the server has none or is gone).
    fn complete(
        &self,
        server: String,
        reference: super::msg::CompletionTarget,
        argument: String,
        value: String,
        context: std::collections::BTreeMap<String, String>,
    ) {
        let Some(hub) = self.hub.clone() else {
            return;
        };
        let inbox = self.inbox.clone();
        tokio::spawn(async move {
            let reference_text = match &reference {
                super::msg::CompletionTarget::Template(t)
                | super::msg::CompletionTarget::Prompt(t) => t.clone(),
            };
            let target = match reference {
                super::msg::CompletionTarget::Template(_) => {
                    crate::mcp::CompletionRef::Template(&reference_text)
                }
                super::msg::CompletionTarget::Prompt(_) => {
                    crate::mcp::CompletionRef::Prompt(&reference_text)
                }
            };
            let values = match hub.server(&server) {
                Ok(handle) => handle
                    .complete(target, &argument, &value, &context)
                    .await
                    .unwrap_or_default(),
                Err(_) => Vec::new(),
            };
            let _ = inbox.send(Msg::Completions {
                argument,
                value,
                values,
            });
        });
    }

    /// Run an MCP request in the background as a call the person made: recorded as
    /// started and finished (with its whole text), cancellable from its card.
    fn spawn_mcp<F, Fut>(&self, call_id: CallId, label: String, request: F)
    where
        F: FnOnce(McpHub) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<String, crate::mcp::McpError>> + Send,
    {
        let run_id = call_id.0.clone();
        self.recorder.emit(AgentEvent::RequestStarted {
            run_id: run_id.clone(),
            call_id: call_id.clone(),
            label,
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

/// MCP notifications as UI messages: server logs and stderr into the Logs pane,
/// progress into the status bar.
pub fn mcp_msg(event: McpEvent) -> Option<Msg> {
    match event {
        McpEvent::Log {
            server,
            level,
            message,
            ..
        } => Some(Msg::Log(LogLine {
            level: match level.as_str() {
                "emergency" | "alert" | "critical" | "error" => LogLevel::Error,
                "warning" => LogLevel::Warn,
                "debug" => LogLevel::Debug,
                _ => LogLevel::Info,
            },
            target: format!("mcp:{server}"),
            message,
        })),
        McpEvent::Stderr { server, line } => Some(Msg::Log(LogLine {
            level: LogLevel::Debug,
            target: format!("stderr:{server}"),
            message: line,
        })),
        McpEvent::Progress {
            server,
            step_id,
            progress,
            total,
            message,
            ..
        } => Some(Msg::Progress {
            server,
            call_id: step_id.map(CallId),
            progress,
            total,
            message,
        }),
        McpEvent::Task { tool, view } => Some(Msg::TaskSeen { tool, view }),
        McpEvent::ResourceUpdated { server, uri } => Some(Msg::ResourceUpdated { server, uri }),
        McpEvent::SubscriptionLost {
            server,
            uri,
            reason,
        } => Some(Msg::SubscriptionLost {
            server,
            uri,
            reason,
        }),
        McpEvent::CatalogChanged { .. } | McpEvent::Asked { .. } => None,
    }
}
