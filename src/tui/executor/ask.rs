//! The executor's side of servers' questions: each question's reply channel waits
//! under an id at the `AskDesk` (filed by the inbox's forwarder, which sends
//! `Msg::Asked`), and the executor answers with what the person
//! chose. An approved sampling request goes to the current provider (it was counted
//! against `[policy] max_calls."sampling"` when it arrived, in `mcp::input`); its
//! answer comes back for the person to see.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::mcp::AskRequest;

use super::super::ask::AskId;
use super::super::msg::{AskCmd, Msg};
use super::Executor;

/// Questions waiting for the person, by id: filed by the inbox's forwarder as they
/// arrive, answered by the executor. Clones share the same questions.
#[derive(Debug, Clone, Default)]
pub struct AskDesk(Arc<Mutex<AskReplies>>);

#[derive(Debug, Default)]
struct AskReplies {
    next: AskId,
    waiting: HashMap<AskId, AskRequest>,
}

impl AskDesk {
    /// A server asks: keep the reply channel under a new id; the message that shows
    /// the question.
    pub fn file(&self, request: AskRequest) -> Msg {
        let mut desk = self.lock();
        desk.next += 1;
        let id = desk.next;
        let ask = Box::new(request.ask.clone());
        desk.waiting.insert(id, request);
        Msg::Asked { id, ask }
    }

    fn take(&self, id: AskId) -> Option<AskRequest> {
        self.lock().waiting.remove(&id)
    }

    /// Whether question `id` still waits for an answer (filed, not abandoned).
    fn still_waits(&self, id: AskId) -> bool {
        self.lock()
            .waiting
            .get(&id)
            .is_some_and(|r| !r.is_abandoned())
    }

    /// Forgets the questions whose server stopped waiting; their ids.
    fn abandoned(&self) -> Vec<AskId> {
        let mut desk = self.lock();
        let gone: Vec<AskId> = desk
            .waiting
            .iter()
            .filter(|(_, r)| r.is_abandoned())
            .map(|(id, _)| *id)
            .collect();
        for id in &gone {
            desk.waiting.remove(id);
        }
        gone
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, AskReplies> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Executor {
    /// Where servers' questions wait (the inbox's forwarder files them here).
    pub fn ask_desk(&self) -> AskDesk {
        self.asks.clone()
    }

    /// Questions whose server stopped waiting (their call ended) leave the screen.
    pub fn drop_abandoned_asks(&mut self) -> bool {
        let mut redraw = false;
        for id in self.asks.abandoned() {
            redraw |= self.handle(Msg::AskGone(id));
        }
        redraw
    }

    pub(super) fn execute_ask(&mut self, cmd: AskCmd) -> Option<Msg> {
        match cmd {
            AskCmd::Answer { id, answer } => {
                if let Some(request) = self.asks.take(id) {
                    request.answer(*answer);
                } else {
                    tracing::debug!("question {id} was no longer waiting");
                }
                None
            }
            AskCmd::Sample { id, server, params } => self.sample(id, &server, params),
        }
    }

    /// Sends the approved request to the provider the session uses now. The request
    /// was counted against `[policy] max_calls.sampling` when it arrived (in
    /// `mcp::input`), so trying the provider again spends nothing more.
    fn sample(&self, id: AskId, server: &str, params: serde_json::Value) -> Option<Msg> {
        // A request whose call ended is not spent on a model.
        if !self.asks.still_waits(id) {
            return Some(Msg::AskGone(id));
        }
        let status = &self.state.status;
        let choice = crate::llm::ProviderChoice {
            name: (status.provider != super::super::state::NO_PROVIDER)
                .then(|| status.provider.clone()),
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
