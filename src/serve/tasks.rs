//! The tasks extension for `serve`'s clients (SEP-2663, `io.modelcontextprotocol/tasks`,
//! https://modelcontextprotocol.io/seps/2663-tasks-extension).
//!
//! A client that declares the extension — for its session, or on one request in
//! `_meta["io.modelcontextprotocol/clientCapabilities"]` — and calls a tool that is
//! still running after [`TASK_AFTER`] gets a task instead of a wait: a
//! `CreateTaskResult` at once, the call going on behind it. That is most often a call
//! waiting for the person at the approval pane, or a slow upstream tool. `tasks/get`
//! gives its status and, once it is done, its result inlined (a refusal or a tool's
//! error is a completed task with `isError`, as the call's own answer would be);
//! `tasks/cancel` cancels the call. A call that ends sooner is answered as always,
//! and a client without the extension always waits for its answer (rmcp refuses its
//! `tasks/*` with -32021). The state of each task is rmcp's `TaskManager`.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResponse, CallToolResult, CreateTaskResult};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskExit, TaskOptions};
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value};
use tokio::task::JoinError;
use tokio_util::sync::CancellationToken;

use super::Gateway;
use super::call::Request;
use crate::policy::RemoteClient;

/// How long a call runs before it becomes a task.
pub const TASK_AFTER: Duration = Duration::from_secs(1);

/// How long a task (and, once done, its result) is kept: `ttlMs`.
const TTL_MS: u64 = 10 * 60 * 1000;

/// The poll interval suggested to clients: `pollIntervalMs`.
const POLL_MS: u64 = 500;

/// Whether the request's client declared the tasks extension.
pub fn declared(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .is_some_and(|caps| caps.supports_tasks())
}

/// Runs the call; answers with its result if it ends within [`TASK_AFTER`], else
/// with a task that follows it.
pub(super) async fn call_or_task(
    gateway: Arc<Gateway>,
    name: String,
    args: Map<String, Value>,
    client: Arc<RemoteClient>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    // Not the request's own token: the request is answered when the task is made.
    let cancel = CancellationToken::new();
    let request = Request {
        cancel: cancel.clone(),
        progress: Request::progress_of(context),
    };
    let mut running = tokio::spawn({
        let gateway = Arc::clone(&gateway);
        async move { super::call::call(&gateway, &name, args, client, request).await }
    });
    tokio::select! {
        joined = &mut running => return finished(joined).map(CallToolResponse::Complete),
        () = context.ct.cancelled() => {
            cancel.cancel();
            return finished(running.await).map(CallToolResponse::Complete);
        }
        () = tokio::time::sleep(TASK_AFTER) => {}
    }
    let options = TaskOptions::new()
        .with_ttl_ms(TTL_MS)
        .with_poll_interval_ms(POLL_MS)
        .with_status_message("running: it may be waiting for approval");
    let task = gateway.tasks.spawn(options, move |task| {
        Box::pin(async move {
            tokio::select! {
                joined = &mut running => {
                    task.set_status_message("done");
                    finished(joined).map_err(TaskExit::Error)
                }
                () = task.cancelled() => {
                    cancel.cancel();
                    let _ = running.await;
                    task.set_status_message("cancelled");
                    Err(TaskExit::Cancelled)
                }
            }
        })
    });
    Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
}

fn finished(
    joined: Result<Result<CallToolResult, ErrorData>, JoinError>,
) -> Result<CallToolResult, ErrorData> {
    joined.unwrap_or_else(|e| {
        Err(ErrorData::internal_error(
            format!("the call ended abnormally: {e}"),
            None,
        ))
    })
}
