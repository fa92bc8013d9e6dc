//! One `tools/call` from a client: through the gate with origin `serve`, progress
//! passed back to the client, cancellation (the client's `notifications/cancelled`
//! or its going away) passed on to the tool, and every outcome a `CallToolResult` —
//! a refusal is a tool error (`isError: true`) naming why, never a protocol error.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer};
use serde_json::{Map, Value, json};
use tokio::task::JoinHandle;

use super::Gateway;
use super::expose::block_wire;
use crate::gate::CallId;
use crate::mcp::McpEvent;
use crate::policy::{Origin, RemoteClient};
use crate::tools::{CallOutcome, ToolContext, ToolResult};

/// Runs the call and answers with its result.
pub(super) async fn call(
    gateway: &Gateway,
    name: &str,
    args: Map<String, Value>,
    client: Arc<RemoteClient>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    if !gateway.exposes_tool(name) {
        return Err(not_exposed(name));
    }
    if gateway.must_wait(name) {
        // A server still connecting, or reconnecting after a crash: its tools are
        // registered once it is ready.
        gateway.reconnected(name, &context.ct).await;
    }
    let _running = gateway.running();
    let n = gateway.next_call();
    let run_id = format!("serve-{n}");
    let mut ctx = ToolContext::new(run_id.clone(), Origin::Serve)
        .with_call_id(CallId::new(run_id.clone()))
        .with_cancel(context.ct.child_token())
        .with_remote(client);
    if let Some(observer) = &gateway.observer {
        ctx = ctx.with_observer(Arc::clone(observer));
    }
    let progress = context
        .meta
        .get_progress_token()
        .map(|token| forward_progress(gateway, run_id, token, context.peer.clone()));
    let outcome = gateway.registry.invoke(name, args, &ctx).await;
    if let Some(task) = progress {
        task.abort();
    }
    if let CallOutcome::Failed(crate::tools::InvokeError::NotFound { .. }) = outcome {
        return Err(not_exposed(name));
    }
    result_wire(outcome.into_result())
}

/// MCP's answer to a call of a tool it does not list: invalid params (-32602).
fn not_exposed(name: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown tool: {name}"), None)
}

/// A result as `CallToolResult` JSON: content blocks, structured content, isError.
pub(super) fn result_wire(result: ToolResult) -> Result<CallToolResult, ErrorData> {
    let content: Vec<Value> = result.content.iter().map(block_wire).collect();
    let mut wire = json!({"content": content, "isError": result.is_error});
    if let Some(structured) = result.structured {
        wire["structuredContent"] = structured;
    }
    super::handler::wire(wire)
}

/// Passes the upstream server's progress for this call on to the client.
fn forward_progress(
    gateway: &Gateway,
    run_id: String,
    token: ProgressToken,
    peer: Peer<RoleServer>,
) -> JoinHandle<()> {
    let mut events = gateway.hub.events();
    tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            };
            let McpEvent::Progress {
                run_id: Some(of),
                progress,
                total,
                message,
                ..
            } = event
            else {
                continue;
            };
            if of != run_id {
                continue;
            }
            let mut param = ProgressNotificationParam::new(token.clone(), progress);
            if let Some(total) = total {
                param = param.with_total(total);
            }
            if let Some(message) = message {
                param = param.with_message(message);
            }
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    })
}
