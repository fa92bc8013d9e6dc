//! The executor's side of servers' questions: it keeps each question's reply channel
//! under an id, hands the question to `update`, and answers with what the person
//! chose. An approved sampling request goes to the current provider (it was counted
//! against `[policy] max_calls."sampling"` when it arrived, in `mcp::input`); its
//! answer comes back for the person to see.

use std::collections::HashMap;

use crate::mcp::AskRequest;

use super::ask::AskId;
use super::executor::Executor;
use super::msg::{Cmd, Msg};

/// Questions waiting for the person, by id.
#[derive(Debug, Default)]
pub struct AskReplies {
    next: AskId,
    waiting: HashMap<AskId, AskRequest>,
}

impl Executor {
    /// A server asks: keep the reply channel, show the question.
    pub fn ask(&mut self, request: AskRequest) -> bool {
        self.asks.next += 1;
        let id = self.asks.next;
        let ask = Box::new(request.ask.clone());
        self.asks.waiting.insert(id, request);
        self.handle(Msg::Asked { id, ask })
    }

    /// Questions whose server stopped waiting (their call ended) leave the screen.
    pub fn drop_abandoned_asks(&mut self) -> bool {
        let gone: Vec<AskId> = self
            .asks
            .waiting
            .iter()
            .filter(|(_, r)| r.is_abandoned())
            .map(|(id, _)| *id)
            .collect();
        let mut redraw = false;
        for id in gone {
            self.asks.waiting.remove(&id);
            redraw |= self.handle(Msg::AskGone(id));
        }
        redraw
    }

    pub(super) fn execute_ask(&mut self, cmd: Cmd) -> Option<Msg> {
        match cmd {
            Cmd::Answer { id, answer } => {
                if let Some(request) = self.asks.waiting.remove(&id) {
                    request.answer(*answer);
                } else {
                    tracing::debug!("question {id} was no longer waiting");
                }
                None
            }
            Cmd::Sample { id, server, params } => self.sample(id, &server, params),
            Cmd::Subscribe { server, uri, on } => {
                let hub = self.hub.clone()?;
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
                None
            }
            Cmd::GetTask { server, task_id } => self.task_request(server, task_id, false),
            Cmd::CancelTask { server, task_id } => self.task_request(server, task_id, true),
            Cmd::OpenUrl(url) => {
                let inbox = self.inbox.clone();
                tokio::spawn(async move {
                    if let Err(e) = crate::mcp::oauth::browser::open(&url).await {
                        let line = super::state::LogLine {
                            level: super::state::LogLevel::Warn,
                            target: "switchboard::tui".into(),
                            message: format!("could not open the page: {e}; copy it with c"),
                        };
                        let _ = inbox.send(Msg::Log(line));
                    }
                });
                None
            }
            Cmd::CopyText(text) => {
                // OSC 52: the terminal (also over SSH) puts it on the clipboard.
                if let Err(e) = super::term::copy_to_clipboard(&text) {
                    tracing::warn!("copy to the clipboard: {e}");
                }
                None
            }
            _ => None,
        }
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
                        text: Ok(super::tasks::describe(&view)),
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

    /// Sends the approved request to the provider the session uses now. The request
    /// was counted against `[policy] max_calls.sampling` when it arrived (in
    /// `mcp::input`), so trying the provider again spends nothing more.
    fn sample(&self, id: AskId, server: &str, params: serde_json::Value) -> Option<Msg> {
        let status = &self.state.status;
        let choice = crate::llm::ProviderChoice {
            name: (status.provider != super::state::NO_PROVIDER).then(|| status.provider.clone()),
            model: (!status.model.is_empty()).then(|| status.model.clone()),
        };
        let config = self
            .recipe
            .as_ref()
            .map(|r| r.config.clone())
            .unwrap_or_default();
        let env = |name: &str| std::env::var(name).ok();
        let provider = match crate::llm::provider_from_config(
            &config,
            &choice,
            &env,
            crate::llm::RetryPolicy::default(),
        ) {
            Ok((_, provider)) => provider,
            Err(e) => {
                return Some(Msg::Sampled {
                    id,
                    result: Err(format!("provider: {e}")),
                });
            }
        };
        tracing::info!(server, "sampling request sent to {}", provider.kind());
        let inbox = self.inbox.clone();
        tokio::spawn(async move {
            let result = crate::agent::sampling::sample(provider.as_ref(), &params)
                .await
                .map_err(|e| e.to_string());
            let _ = inbox.send(Msg::Sampled { id, result });
        });
        None
    }
}

impl Executor {
    /// The MCP hub the executor reads, gets prompts and follows tasks through (the
    /// event loop sets it; tests that drive an executor use this).
    #[must_use]
    pub fn with_hub(mut self, hub: crate::mcp::McpHub) -> Self {
        self.hub = Some(hub);
        self
    }
}
