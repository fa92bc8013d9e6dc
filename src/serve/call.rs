//! One `tools/call` from a client: through the gate with origin `serve`, progress
//! passed back to the client, cancellation (the client's `notifications/cancelled`
//! or its going away) passed on to the tool, and every outcome a `CallToolResult` —
//! a refusal is a tool error (`isError: true`) naming why, never a protocol error.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResult, ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer};
use serde_json::{Map, Value};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::Gateway;
use crate::gate::CallId;
use crate::mcp::McpEvent;
use crate::policy::{Origin, RemoteClient};
use crate::tools::{CallOutcome, ToolContext};

/// What a call takes from its request: how it is cancelled, and where its progress
/// goes. A call that becomes a task (see `tasks`) outlives its request, so it holds
/// these rather than the request's context.
pub(super) struct Request {
    pub cancel: CancellationToken,
    pub progress: Option<(ProgressToken, Peer<RoleServer>)>,
}

impl Request {
    /// Cancelled with the request (the client's `notifications/cancelled`, or its
    /// going away).
    pub fn of(context: &RequestContext<RoleServer>) -> Self {
        Self {
            cancel: context.ct.child_token(),
            progress: Self::progress_of(context),
        }
    }

    /// Where the request's progress goes: its token, on its client's connection.
    pub fn progress_of(
        context: &RequestContext<RoleServer>,
    ) -> Option<(ProgressToken, Peer<RoleServer>)> {
        context
            .meta
            .get_progress_token()
            .map(|token| (token, context.peer.clone()))
    }
}

/// Runs the call and answers with its result.
pub(super) async fn call(
    gateway: &Gateway,
    name: &str,
    args: Map<String, Value>,
    client: Arc<RemoteClient>,
    request: Request,
) -> Result<CallToolResult, ErrorData> {
    if !gateway.exposes_tool(name) {
        return Err(not_exposed(name));
    }
    if gateway.must_wait(name) {
        // A server still connecting, or reconnecting after a crash: its tools are
        // registered once it is ready.
        gateway.reconnected(name, &request.cancel).await;
    }
    let _running = gateway.running();
    let n = gateway.next_call();
    let run_id = format!("serve-{n}");
    let mut ctx = ToolContext::new(run_id.clone(), Origin::Serve)
        .with_call_id(CallId::new(run_id.clone()))
        .with_cancel(request.cancel)
        .with_remote(client);
    if let Some(observer) = &gateway.observer {
        ctx = ctx.with_observer(Arc::clone(observer));
    }
    // Listening before the call starts, so no progress of it is missed.
    let progress = request.progress.map(|(token, peer)| Progress {
        events: gateway.hub.events(),
        run_id,
        token,
        peer,
        open: true,
    });
    let mut invoke = std::pin::pin!(gateway.registry.invoke(name, args, &ctx));
    let outcome = match progress {
        Some(progress) => progress.around(invoke.as_mut()).await,
        None => invoke.await,
    };
    if let CallOutcome::Failed(crate::tools::InvokeError::NotFound { .. }) = outcome {
        return Err(not_exposed(name));
    }
    Ok(super::result::call_tool_result(outcome.into_result()))
}

/// MCP's answer to a call of a tool it does not list: invalid params (-32602).
fn not_exposed(name: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown tool: {name}"), None)
}

/// One call's progress, passed on to its client while the call runs, in the call's
/// own task (no task of its own, nothing spawned per call).
struct Progress {
    events: broadcast::Receiver<McpEvent>,
    run_id: String,
    token: ProgressToken,
    peer: Peer<RoleServer>,
    /// Still passing progress on: the events go on and the client is there.
    open: bool,
}

impl Progress {
    /// Runs `call`, passing on its progress as it comes, then what the server sent
    /// before its result: none may follow the result.
    async fn around<F: Future>(mut self, mut call: std::pin::Pin<&mut F>) -> F::Output {
        let output = loop {
            tokio::select! {
                biased;
                output = call.as_mut() => break output,
                event = self.events.recv(), if self.open => match event {
                    Ok(event) => self.open = self.pass_on(&event).await,
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => self.open = false,
                },
            }
        };
        if self.open {
            self.drain().await;
        }
        output
    }

    /// The progress published but not passed on yet when the result came (for
    /// [`PROGRESS_DRAIN`] at most). The hub returns a result only once the progress
    /// its server sent ahead of it is published (`ProgressRoutes::settled`), so
    /// this finds all of it without waiting.
    async fn drain(&mut self) {
        let mut late = Vec::new();
        loop {
            match self.events.try_recv() {
                Ok(event) if is_progress_of(&event, &self.run_id) => late.push(event),
                Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
        if late.is_empty() {
            return;
        }
        let passed = tokio::time::timeout(PROGRESS_DRAIN, async {
            for event in &late {
                if !self.pass_on(event).await {
                    return;
                }
            }
        });
        if passed.await.is_err() {
            tracing::debug!("the last progress of {} was not passed on", self.run_id);
        }
    }

    /// `false` once the client is gone.
    async fn pass_on(&self, event: &McpEvent) -> bool {
        forward(event, &self.run_id, &self.token, &self.peer).await
    }
}

/// How long a finished call waits, at most, for its last progress to be passed on.
const PROGRESS_DRAIN: Duration = Duration::from_millis(200);

/// Whether `event` is progress of the call `run_id`.
fn is_progress_of(event: &McpEvent, run_id: &str) -> bool {
    matches!(event, McpEvent::Progress { run_id: Some(of), .. } if of == run_id)
}

/// Sends `event` to the client when it is progress of `run_id`; `false` once the
/// client is gone.
async fn forward(
    event: &McpEvent,
    run_id: &str,
    token: &ProgressToken,
    peer: &Peer<RoleServer>,
) -> bool {
    let McpEvent::Progress {
        run_id: Some(of),
        progress,
        total,
        message,
        ..
    } = event
    else {
        return true;
    };
    if of != run_id {
        return true;
    }
    let mut param = ProgressNotificationParam::new(token.clone(), *progress);
    if let Some(total) = total {
        param = param.with_total(*total);
    }
    if let Some(message) = message {
        param = param.with_message(message.clone());
    }
    peer.notify_progress(param).await.is_ok()
}
