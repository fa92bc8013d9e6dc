//! The executor's side of the peers outside a call: reconnecting and disabling MCP
//! servers, log levels, completions, subscriptions and tasks run against the hub in
//! the background, and remote agents' cards; hub events become messages.

use super::super::hub_view;
use super::super::msg::{CompletionTarget, Msg, ServerCmd};
use super::Executor;

impl Executor {
    pub(super) fn execute_server(&mut self, cmd: ServerCmd) -> Option<Msg> {
        match cmd {
            ServerCmd::Refresh => self.servers_msg(),
            ServerCmd::Disable(name) => {
                let result = self.hub.as_ref().map(|hub| hub.disable(&name));
                match result {
                    Some(Err(e)) => Some(Msg::Failed(format!("disable {name}: {e}"))),
                    Some(Ok(())) | None => None,
                }
            }
            ServerCmd::Reconnect(name) => {
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
            ServerCmd::SetLogLevel(level) => {
                self.set_log_level(level);
                None
            }
            ServerCmd::Complete {
                server,
                reference,
                argument,
                value,
                context,
            } => {
                self.complete(server, reference, argument, value, context);
                None
            }
            ServerCmd::Subscribe { server, uri, on } => {
                self.subscribe(server, uri, on);
                None
            }
            ServerCmd::GetTask { server, task_id } => self.task_request(server, task_id, false),
            ServerCmd::CancelTask { server, task_id } => self.task_request(server, task_id, true),
            ServerCmd::ReadAgentCards { agents, timeout } => {
                super::super::agent_cards::spawn_reads(&self.inbox, agents, timeout);
                None
            }
        }
    }

    /// New server rows and catalog from the hub's snapshot and the registry.
    fn servers_msg(&mut self) -> Option<Msg> {
        let hub = self.hub.as_ref()?;
        let snapshot = hub.snapshot();
        Some(Msg::Servers {
            rows: hub_view::server_rows_with(
                &self.state.servers.rows,
                &snapshot,
                &mut self.declared_sizes,
            ),
            catalog: hub_view::catalog(&self.registry.specs(), &snapshot),
            snapshot,
        })
    }

    /// `logging/setLevel` on every server that takes it, in the background.
    fn set_log_level(&self, level: String) {
        let Some(hub) = self.hub.clone() else {
            return;
        };
        tokio::spawn(async move {
            match hub.set_log_level(&level).await {
                Ok(asked) if !asked.is_empty() => {
                    tracing::info!("asked {} for log level {level} and above", asked.join(", "));
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("{e}"),
            }
        });
    }

    /// Subscribes (`on`) or unsubscribes in the background; answers `Msg::Subscribed`.
    fn subscribe(&self, server: String, uri: String, on: bool) {
        let Some(hub) = self.hub.clone() else {
            return;
        };
        let inbox = self.inbox.clone();
        tokio::spawn(async move {
            let result = if on {
                hub.subscribe_resource(&server, &uri).await
            } else {
                hub.unsubscribe_resource(&server, &uri).await
            };
            let result = result.map_err(|e| e.to_string());
            let _ = inbox.send(Msg::Subscribed {
                server,
                uri,
                on,
                result,
            });
        });
    }

    /// Asks the server for completions of one argument in the background; they come
    /// back as `Msg::Completions` (none when the server has none or is gone).
    fn complete(
        &self,
        server: String,
        reference: CompletionTarget,
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
                CompletionTarget::Template(t) | CompletionTarget::Prompt(t) => t.clone(),
            };
            let target = match reference {
                CompletionTarget::Template(_) => {
                    crate::mcp::CompletionRef::Template(&reference_text)
                }
                CompletionTarget::Prompt(_) => crate::mcp::CompletionRef::Prompt(&reference_text),
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

    /// `tasks/get` or `tasks/cancel` over the server's current connection.
    fn task_request(&self, server: String, task_id: String, cancel: bool) -> Option<Msg> {
        let Some(hub) = self.hub.clone() else {
            return Some(Msg::TaskAnswer {
                view: None,
                text: Err("no MCP servers are configured".into()),
            });
        };
        let inbox = self.inbox.clone();
        tokio::spawn(async move {
            let msg = if cancel {
                let text = hub
                    .cancel_task(&server, &task_id)
                    .await
                    .map(|()| format!("task {task_id} on {server}: cancel sent"))
                    .map_err(|e| format!("cancel task {task_id}: {e}"));
                let view = hub.get_task(&server, &task_id).await.ok().map(Box::new);
                Msg::TaskAnswer { view, text }
            } else {
                match hub.get_task(&server, &task_id).await {
                    Ok(view) => Msg::TaskAnswer {
                        text: Ok(super::super::tasks::describe(&view)),
                        view: Some(Box::new(view)),
                    },
                    Err(e) => Msg::TaskAnswer {
                        view: None,
                        text: Err(format!("task {task_id}: {e}")),
                    },
                }
            };
            let _ = inbox.send(msg);
        });
        None
    }
}
