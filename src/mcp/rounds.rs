//! One request on a live connection, in either protocol generation: progress routed to
//! its caller, the timeout reset on progress, `notifications/cancelled` when the caller
//! gives up, the log level in `_meta` (2026-07-28), and multi round-trip requests
//! (`input_required` → answer the `inputRequests`, echo `requestState` verbatim,
//! retry under a new id, at most `max_input_rounds` times). A question the person
//! declined or cancelled is never put to them again within the request: a server that
//! asks it again ends the call.

use std::time::Duration;

use rmcp::model::{
    CancelledNotificationParam, ClientRequest, InputRequest, InputRequests, InputResponses,
    ProgressToken, RequestId, RequestMetaObject, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleClient};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::client::{ProgressRoute, ProgressRoutes};
use super::error::{McpError, untrusted};
use super::listing::service_error;
use super::server::{Live, ServerHandle};
use super::snapshot::McpEvent;

/// Sends `notifications/cancelled` unless finished normally; marks the progress token
/// finished.
struct InFlight<'a> {
    peer: Peer<RoleClient>,
    id: RequestId,
    token: ProgressToken,
    routes: &'a ProgressRoutes,
    armed: bool,
}

impl InFlight<'_> {
    fn cancelled_params(&self, reason: &str) -> Option<CancelledNotificationParam> {
        serde_json::from_value(json!({"requestId": self.id, "reason": reason})).ok()
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.routes.finish(&self.token);
        if !self.armed {
            return;
        }
        let Some(params) = self.cancelled_params("the caller gave up") else {
            return;
        };
        let peer = self.peer.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.notify_cancelled(params).await;
            });
        }
    }
}

/// The elicitations the person declined or cancelled during one request, by what
/// they asked (the request's params without `_meta`), with the answer given.
#[derive(Debug, Default)]
struct Declined(Vec<(Value, &'static str)>);

/// What an elicitation asks, comparable across rounds whatever key it comes under.
fn question(request: &InputRequest) -> Option<Value> {
    let InputRequest::Elicitation(request) = request else {
        return None;
    };
    let mut asked = serde_json::to_value(&request.params).ok()?;
    if let Some(object) = asked.as_object_mut() {
        object.remove("_meta");
    }
    Some(asked)
}

impl Declined {
    /// The first request of this round that puts a declined question again.
    fn asked_again(&self, requests: &InputRequests) -> Option<(Value, &'static str)> {
        requests.values().filter_map(question).find_map(|asked| {
            self.0
                .iter()
                .find(|(declined, _)| *declined == asked)
                .cloned()
        })
    }

    /// Remembers the questions of `asked` that `responses` decline or cancel.
    fn note(&mut self, asked: Vec<(String, Value)>, responses: &InputResponses) {
        for (key, question) in asked {
            let action = responses.get(&key).and_then(|r| r["action"].as_str());
            let answer = match action {
                Some("decline") => "declined",
                Some("cancel") => "cancelled",
                _ => continue,
            };
            self.0.push((question, answer));
        }
    }
}

/// The parameters of the next round: answers to the last round's input requests and
/// its request state, each only when the server sent one.
#[derive(Debug, Default)]
pub struct Round {
    pub input_responses: Option<InputResponses>,
    pub request_state: Option<String>,
}

impl ServerHandle {
    /// The request's options; its timeout is kept here, not by rmcp (see
    /// [`ServerHandle::answer`]).
    fn request_options(&self, live: &Live) -> PeerRequestOptions {
        let options = PeerRequestOptions::no_options();
        if !live.stateless || !live.logs {
            return options;
        }
        // 2026-07-28 has no logging/setLevel: the level travels with each request.
        let mut meta = RequestMetaObject::new();
        #[allow(deprecated)] // logging: deprecated in 2026-07-28, still widely used
        meta.set_log_level(self.current_log_level());
        options.with_meta(meta)
    }

    /// Sends one request and waits for its answer.
    async fn send_once(
        &self,
        live: &Live,
        request: ClientRequest,
        route: ProgressRoute,
        cancel: &CancellationToken,
    ) -> Result<ServerResult, McpError> {
        // Counted from before it is sent: a question the server asks during it is
        // tied to it (see `ClientSide::create_elicitation`).
        let _open = self.client.in_flight.open();
        let options = self.request_options(live);
        let handle = live
            .peer
            .send_request_with_option(request, options)
            .await
            .map_err(|e| service_error(&self.name, e))?;
        let mut in_flight = InFlight {
            peer: live.peer.clone(),
            id: handle.id.clone(),
            token: handle.progress_token.clone(),
            routes: &self.routes,
            armed: true,
        };
        let request_name = route.request.clone();
        let beats = self.routes.insert(&in_flight.token, route);
        let response = tokio::select! {
            response = self.answer(handle.await_response(), beats) => response,
            () = cancel.cancelled() => {
                if let Some(params) = in_flight.cancelled_params("cancelled by the user") {
                    in_flight.armed = false;
                    let _ = live.peer.notify_cancelled(params).await;
                }
                return Err(McpError::CallFailed {
                    server: self.name.clone(),
                    reason: "cancelled".into(),
                });
            }
        };
        // The progress the server sent before its answer is out before the answer.
        self.routes.settled(&in_flight.token).await;
        // A timeout leaves the request armed: the server hears it was cancelled.
        in_flight.armed = matches!(response, Err(rmcp::service::ServiceError::Timeout { .. }));
        drop(in_flight);
        if let Err(rmcp::service::ServiceError::McpError(error)) = &response {
            self.pages_required(&request_name, error);
        }
        response.map_err(|e| service_error(&self.name, e))
    }

    /// A URLElicitationRequiredError names pages for the person: the front ends hear
    /// of them as `McpEvent::PagesRequired` (the TUI shows a URL card for each).
    fn pages_required(&self, request: &str, error: &rmcp::ErrorData) {
        let pages = super::listing::required_pages(error);
        if !pages.is_empty() {
            let _ = self.client.events.send(McpEvent::PagesRequired {
                server: self.name.clone(),
                request: request.to_owned(),
                pages,
            });
        }
    }

    /// Waits for `response` under the request timeout (`tool_timeout`), which starts
    /// again at each progress on the request (`beats`) and is paused while this server
    /// has a question open with the person: it may wait on the answer, and the person's
    /// time is not the server's. It starts again when the question closes.
    async fn answer(
        &self,
        response: impl std::future::Future<Output = Result<ServerResult, rmcp::service::ServiceError>>,
        mut beats: tokio::sync::watch::Receiver<u64>,
    ) -> Result<ServerResult, rmcp::service::ServiceError> {
        let timeout = self.limits.request_timeout;
        let mut asking = self.client.asking.watch();
        let mut deadline = tokio::time::Instant::now() + timeout;
        // Boxed: a call's future stays small wherever it is awaited.
        let mut response = Box::pin(response);
        loop {
            let paused = *asking.borrow_and_update() > 0;
            tokio::select! {
                response = &mut response => return response,
                Ok(()) = beats.changed() => {}
                Ok(()) = asking.changed() => {}
                () = tokio::time::sleep_until(deadline), if !paused => {
                    return Err(rmcp::service::ServiceError::Timeout { timeout });
                }
            }
            deadline = tokio::time::Instant::now() + timeout;
        }
    }

    /// Sends `build(round)` until the answer is not `input_required`, answering each
    /// round's input requests through this server's asker.
    pub(super) async fn drive(
        &self,
        live: &Live,
        build: impl Fn(Round) -> ClientRequest,
        route: ProgressRoute,
        cancel: &CancellationToken,
    ) -> Result<ServerResult, McpError> {
        let max = self.limits.max_input_rounds;
        let mut round = Round::default();
        let mut waits: u32 = 0;
        let mut declined = Declined::default();
        for _ in 0..=max {
            let answer = self
                .send_once(live, build(round), route.clone(), cancel)
                .await?;
            let ServerResult::InputRequiredResult(asked) = answer else {
                return Ok(answer);
            };
            let requests = asked.input_requests.unwrap_or_default();
            if requests.is_empty() && asked.request_state.is_none() {
                return Err(McpError::CallFailed {
                    server: self.name.clone(),
                    reason: "input_required without input requests or request state".into(),
                });
            }
            let input_responses = if requests.is_empty() {
                // Only state to echo: the server is waiting on something; back off.
                let millis = (50u64 << waits.min(3)).min(250);
                tokio::time::sleep(Duration::from_millis(millis)).await;
                waits += 1;
                None
            } else {
                waits = 0;
                if let Some((question, answer)) = declined.asked_again(&requests) {
                    return Err(self.asked_again(&question, answer));
                }
                let asked: Vec<(String, Value)> = requests
                    .iter()
                    .filter_map(|(key, r)| question(r).map(|q| (key.clone(), q)))
                    .collect();
                // Boxed: asking the person is rare, and its state would otherwise
                // make every call's future as large as the largest question.
                let responses = Box::pin(self.client.fulfil(requests)).await?;
                declined.note(asked, &responses);
                Some(responses)
            };
            round = Round {
                input_responses,
                request_state: asked.request_state,
            };
        }
        Err(McpError::CallFailed {
            server: self.name.clone(),
            reason: format!(
                "the server still asked for input after {max} rounds (limit max_input_rounds = {max})"
            ),
        })
    }

    /// The call ends rather than put a declined question to the person again.
    fn asked_again(&self, question: &Value, answer: &str) -> McpError {
        let message = question["message"].as_str().unwrap_or("");
        McpError::CallFailed {
            server: self.name.clone(),
            reason: format!(
                "the person {answer} the server's question ({:?}) and the server asked it again; it is not asked twice",
                untrusted(message, 200)
            ),
        }
    }
}
