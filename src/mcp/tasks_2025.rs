//! Tasks as protocol 2025-11-25 has them
//! (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks):
//! a `tools/call` with `params.task = {ttl}` is answered at once with
//! `{task: {taskId, status, ttl, pollInterval, …}}`; `tasks/get` gives the task's
//! status; once it is `completed`, `failed` or `input_required`, `tasks/result`
//! returns what the call itself would have — and while it waits, the server's
//! questions (elicitation, sampling) come as ordinary requests, answered through the
//! asker; `tasks/cancel` gives up. rmcp 3.11 has types only for the later tasks
//! extension (see `tasks`), so these go out as custom requests and their answers are
//! read as JSON.
//!
//! Which calls become tasks: those to a tool marked `required` (a plain call must
//! fail, -32601), and to one marked `optional` when the caller will not wait
//! (`call --no-wait`); both only if the server declared task-augmented tool calls
//! (see `task_support`). A plain call answered -32601 by a server that declared no
//! tasks — or whose handshake could not be read, as behind JSON HTTP bodies — is
//! tried once more as a task.

use std::time::Duration;

use rmcp::model::{ClientRequest, CustomRequest};
use serde_json::{Map, Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::client::ProgressRoute;
use super::error::{McpError, untrusted};
use super::listing::timed;
use super::result::tool_result;
use super::server::{Live, ServerHandle};
use super::task_support::TaskMode;
use super::tasks::{TaskView, started};
use crate::tools::ToolResult;

/// How long we ask the server to keep a task and its result (`params.task.ttl`).
pub const REQUESTED_TTL: Duration = Duration::from_secs(600);

/// Poll interval when the server names none, and its bounds when it does.
const POLL_DEFAULT: Duration = Duration::from_secs(1);
const POLL_MIN: Duration = Duration::from_millis(20);
const POLL_MAX: Duration = Duration::from_secs(10);

/// JSON-RPC "method not found": what a server must answer a plain call to a tool
/// that runs only as a task.
const METHOD_NOT_FOUND: i32 = -32601;

/// Statuses after which nothing changes.
fn terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

impl ServerHandle {
    /// Whether a call of `tool` on `live` goes out as a 2025-11-25 task.
    pub(super) fn call_as_task_2025(&self, live: &Live, tool: &str, no_wait: bool) -> bool {
        !live.stateless
            && match self.client.task_support.mode(tool) {
                Some(TaskMode::Required) => true,
                Some(TaskMode::Optional) => no_wait,
                None => false,
            }
    }

    /// Whether a plain call's `error` may say the tool runs only as a task: -32601
    /// from a server that declared no tasks (or whose declaration was not seen).
    pub(super) fn wants_task_2025(&self, live: &Live, tool: &str, error: &McpError) -> bool {
        matches!(error, McpError::Remote { code, .. } if *code == METHOD_NOT_FOUND)
            && !live.stateless
            && !self.client.task_support.declared()
            && self.client.task_support.mode(tool).is_none()
    }

    /// Whether task ids of this connection are the server's 2025-11-25 tasks.
    pub(super) fn speaks_tasks_2025(&self, live: &Live) -> bool {
        !live.stateless && self.client.task_support.declared()
    }

    /// A request rmcp has no type for; its answer as JSON.
    async fn raw_request(
        &self,
        live: &Live,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, McpError> {
        let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
        let answer = timed(&self.name, timeout, live.peer.send_request(request)).await?;
        serde_json::to_value(&answer).map_err(|e| McpError::CallFailed {
            server: self.name.clone(),
            reason: format!("unreadable answer to {method}: {e}"),
        })
    }

    /// Calls `tool` as a task and follows it to its result (or, with `no_wait`,
    /// returns the task at once).
    pub(super) async fn call_task_2025(
        &self,
        live: &Live,
        tool: &str,
        args: &Map<String, Value>,
        route: &ProgressRoute,
        cancel: &CancellationToken,
        no_wait: bool,
    ) -> Result<ToolResult, McpError> {
        // The server's questions during the task belong to this call.
        let _open = self.client.in_flight.open();
        let ttl = u64::try_from(REQUESTED_TTL.as_millis()).unwrap_or(u64::MAX);
        let params = json!({"name": tool, "arguments": args, "task": {"ttl": ttl}});
        let answer = tokio::select! {
            answer = self.raw_request(live, "tools/call", params, self.limits.request_timeout) => answer?,
            () = cancel.cancelled() => return Err(self.cancelled_call()),
        };
        let Some(created) = answer.get("task") else {
            // Run as a plain call after all: this is its result.
            return tool_result(&self.name, &answer, &self.limits);
        };
        let view = self.view_2025(created)?;
        // The id as sent (the view's is made safe to show).
        let id = created
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        self.task_seen(&route.request, view.clone());
        if no_wait {
            return Ok(started(&self.name, &id, &view.status));
        }
        self.follow_task_2025(live, &id, view, route, cancel).await
    }

    async fn follow_task_2025(
        &self,
        live: &Live,
        id: &str,
        mut view: TaskView,
        route: &ProgressRoute,
        cancel: &CancellationToken,
    ) -> Result<ToolResult, McpError> {
        let kept = view.ttl_ms.map_or(REQUESTED_TTL, Duration::from_millis);
        let deadline = Instant::now() + kept;
        let mut polls: u32 = 0;
        while !terminal(&view.status) && view.status != "input_required" {
            let wait = view
                .poll_interval_ms
                .map_or(POLL_DEFAULT, Duration::from_millis)
                .clamp(POLL_MIN, POLL_MAX);
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = cancel.cancelled() => return Err(self.give_up_2025(live, id).await),
            }
            let last = std::mem::replace(&mut view, self.task_2025(live, id).await?);
            view.ttl_ms = view.ttl_ms.or(last.ttl_ms);
            view.poll_interval_ms = view.poll_interval_ms.or(last.poll_interval_ms);
            polls += 1;
            self.task_progress(route, &view, polls);
        }
        if view.status == "cancelled" {
            return Err(McpError::CallFailed {
                server: self.name.clone(),
                reason: format!("task {} was cancelled", view.task_id),
            });
        }
        // Blocks until the task ends: the server's questions come meanwhile.
        let left = deadline.saturating_duration_since(Instant::now());
        let result = tokio::select! {
            result = self.raw_request(live, "tasks/result", json!({"taskId": id}), left.max(self.limits.request_timeout)) => result?,
            () = cancel.cancelled() => return Err(self.give_up_2025(live, id).await),
        };
        tool_result(&self.name, &result, &self.limits)
    }

    /// `tasks/get` for one 2025-11-25 task.
    pub(super) async fn task_2025(&self, live: &Live, task_id: &str) -> Result<TaskView, McpError> {
        let answer = self
            .raw_request(
                live,
                "tasks/get",
                json!({"taskId": task_id}),
                self.limits.request_timeout,
            )
            .await?;
        self.view_2025(&answer)
    }

    /// `tasks/cancel` for one 2025-11-25 task.
    pub(super) async fn cancel_task_2025(
        &self,
        live: &Live,
        task_id: &str,
    ) -> Result<(), McpError> {
        self.raw_request(
            live,
            "tasks/cancel",
            json!({"taskId": task_id}),
            self.limits.request_timeout,
        )
        .await
        .map(|_| ())
    }

    async fn give_up_2025(&self, live: &Live, task_id: &str) -> McpError {
        let told = match self.cancel_task_2025(live, task_id).await {
            Ok(()) => "tasks/cancel sent",
            Err(_) => "tasks/cancel could not be sent",
        };
        McpError::CallFailed {
            server: self.name.clone(),
            reason: format!("cancelled ({told} for task {})", untrusted(task_id, 80)),
        }
    }

    fn cancelled_call(&self) -> McpError {
        McpError::CallFailed {
            server: self.name.clone(),
            reason: "cancelled".into(),
        }
    }

    /// A task as the server described it. rmcp reads a `tasks/get` answer for a
    /// working or cancelled task as its own (later) task type, which drops `ttl` and
    /// `pollInterval` (it knows `ttlMs` and `pollIntervalMs`): both spellings are
    /// read, and a task followed keeps the durations it was created with.
    fn view_2025(&self, task: &Value) -> Result<TaskView, McpError> {
        let text = |key: &str| task.get(key).and_then(Value::as_str);
        let millis = |keys: [&str; 2]| keys.iter().find_map(|k| task.get(*k)?.as_u64());
        let Some(task_id) = text("taskId") else {
            return Err(McpError::CallFailed {
                server: self.name.clone(),
                reason: "the server's task has no taskId".into(),
            });
        };
        Ok(TaskView {
            server: self.name.clone(),
            task_id: untrusted(task_id, 200),
            status: untrusted(text("status").unwrap_or("unknown"), 40),
            status_message: text("statusMessage").map(|m| untrusted(m, 500)),
            ttl_ms: millis(["ttl", "ttlMs"]),
            poll_interval_ms: millis(["pollInterval", "pollIntervalMs"]),
            wire: task.clone(),
        })
    }
}
