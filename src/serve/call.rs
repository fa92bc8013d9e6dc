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
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::Gateway;
use crate::gate::CallId;
use crate::mcp::McpEvent;
use crate::policy::{Origin, RemoteClient};
use crate::tools::{CallOutcome, ToolContext, ToolResult};

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
    let progress = request
        .progress
        .map(|(token, peer)| forward_progress(gateway, run_id, token, peer));
    let outcome = gateway.registry.invoke(name, args, &ctx).await;
    if let Some(progress) = progress {
        progress.finish().await;
    }
    if let CallOutcome::Failed(crate::tools::InvokeError::NotFound { .. }) = outcome {
        return Err(not_exposed(name));
    }
    result_wire(&outcome.into_result())
}

/// MCP's answer to a call of a tool it does not list: invalid params (-32602).
fn not_exposed(name: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown tool: {name}"), None)
}

/// A result as `CallToolResult` JSON: content blocks, structured content, isError.
pub(super) fn result_wire(result: &ToolResult) -> Result<CallToolResult, ErrorData> {
    super::handler::wire(crate::tools::result_wire(result))
}

/// The task passing one call's progress on to its client.
struct Progress {
    task: JoinHandle<()>,
    done: CancellationToken,
}

impl Progress {
    /// Stops forwarding once what the server sent before its result is passed on:
    /// rmcp handles each notification in a task of its own, so the last progress can
    /// still be on its way when the result arrives, and none may follow the result.
    async fn finish(mut self) {
        self.done.cancel();
        if tokio::time::timeout(PROGRESS_DRAIN, &mut self.task)
            .await
            .is_err()
        {
            self.task.abort();
        }
    }
}

/// How long a finished call waits, at most, for its last progress to be passed on.
const PROGRESS_DRAIN: Duration = Duration::from_millis(200);

/// Passes the upstream server's progress for this call on to the client.
fn forward_progress(
    gateway: &Gateway,
    run_id: String,
    token: ProgressToken,
    peer: Peer<RoleServer>,
) -> Progress {
    let mut events = gateway.hub.events();
    let done = CancellationToken::new();
    let finished = done.clone();
    let task = tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                event = events.recv() => match event {
                    Ok(event) => event,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                () = finished.cancelled() => {
                    // Let the notification tasks queued before the result run, then
                    // pass on what they published.
                    for _ in 0..4 {
                        tokio::task::yield_now().await;
                    }
                    while let Ok(event) = events.try_recv() {
                        if !forward(&event, &run_id, &token, &peer).await {
                            break;
                        }
                    }
                    break;
                }
            };
            if !forward(&event, &run_id, &token, &peer).await {
                break;
            }
        }
    });
    Progress { task, done }
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
