//! The runtime's MCP side: server commands, reads, prompts, completions and log
//! levels run against the hub in the background; hub events become messages.

use crate::agent::AgentEvent;
use crate::mcp::{McpEvent, McpHub};

use super::msg::{Cmd, Msg};
use super::runtime::Runtime;
use super::state::{LogLevel, LogLine};

impl Runtime {
    pub(super) fn execute_mcp(&mut self, cmd: Cmd) -> Option<Msg> {
        match cmd {
            Cmd::Disable(name) => {
                let result = self.hub.as_ref().map(|hub| hub.disable(&name));
                match result {
                    Some(Err(e)) => Some(Msg::Agent(Box::new(AgentEvent::Error {
                        run_id: None,
                        message: format!("disable {name}: {e}"),
                    }))),
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
                    Some(Err(e)) => Some(Msg::Agent(Box::new(AgentEvent::Error {
                        run_id: None,
                        message: format!("reconnect {name}: {e}"),
                    }))),
                    None => None,
                }
            }
            Cmd::ReadResource { server, uri } => {
                let inbox = self.inbox.clone();
                self.spawn_mcp(format!("{server} read {uri}"), move |hub| async move {
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
            Cmd::GetPrompt { server, name, args } => {
                self.spawn_mcp(format!("{server} prompt {name}"), move |hub| async move {
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
                let hub = self.hub.clone()?;
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
                None
            }
            _ => None,
        }
    }

    /// Run an MCP request in the background; its text (or error) lands in the
    /// transcript.
    fn spawn_mcp<F, Fut>(&self, label: String, request: F)
    where
        F: FnOnce(McpHub) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<String, crate::mcp::McpError>> + Send,
    {
        let Some(hub) = self.hub.clone() else {
            let _ = self.inbox.send(Msg::CallDone {
                tool: label,
                text: "no MCP servers are configured".into(),
                is_error: true,
            });
            return;
        };
        let inbox = self.inbox.clone();
        tokio::spawn(async move {
            let msg = match request(hub).await {
                Ok(text) => Msg::CallDone {
                    tool: label,
                    text,
                    is_error: false,
                },
                Err(e) => Msg::CallDone {
                    tool: label,
                    text: e.to_string(),
                    is_error: true,
                },
            };
            let _ = inbox.send(msg);
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
            progress,
            total,
            message,
            ..
        } => Some(Msg::Progress {
            server,
            progress,
            total,
            message,
        }),
        McpEvent::CatalogChanged { .. } | McpEvent::Asked { .. } => None,
    }
}
