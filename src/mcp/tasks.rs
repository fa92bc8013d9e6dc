//! Tasks (the MCP tasks extension, SEP-2663; the 2025-11-25 tasks are in
//! `tasks_2025`): a `tools/call` the server turns into a
//! task is followed with `tasks/get` at the server's poll interval — status as
//! progress, input requests answered with `tasks/update` through the asker — until it
//! completes, fails or is cancelled (`tasks/cancel` when the caller gives up). rmcp
//! does not poll by itself. A task outlives the connection it started on: following
//! it goes on over the server's next connection (see [`REJOIN_WAIT`]).

use std::time::Duration;

use rmcp::model::{CancelTaskParams, GetTaskParams, TaskPayload, TaskStatus, UpdateTaskParams};
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::client::ProgressRoute;
use super::error::{McpError, untrusted};
use super::listing::timed;
use super::result::tool_result;
use super::server::{Live, ServerHandle};
use super::snapshot::McpEvent;
use crate::tools::ToolResult;

/// Default and bounds of the poll interval (the server's `pollIntervalMs` wins).
const POLL_DEFAULT: Duration = Duration::from_millis(500);
const POLL_MIN: Duration = Duration::from_millis(20);
const POLL_MAX: Duration = Duration::from_secs(10);

/// The longest a call waits for its server to be ready again after the connection
/// its task was followed on ended.
pub const REJOIN_WAIT: Duration = Duration::from_secs(120);

/// What the server said about a task when it created it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TaskStart {
    pub poll_interval_ms: Option<u64>,
    pub ttl_ms: Option<u64>,
}

/// A task as `tasks/get` last described it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskView {
    pub server: String,
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed`, `cancelled`.
    pub status: String,
    pub status_message: Option<String>,
    pub ttl_ms: Option<u64>,
    pub poll_interval_ms: Option<u64>,
    /// The wire JSON of the whole answer (the result, when completed).
    pub wire: Value,
}

pub(super) fn status_name(status: TaskStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

impl ServerHandle {
    /// `tasks/get` for one task.
    pub async fn get_task(&self, task_id: &str) -> Result<TaskView, McpError> {
        let live = self.started().await?;
        if self.speaks_tasks_2025(&live) {
            return self.task_2025(&live, task_id).await;
        }
        self.task_once(&live, task_id).await.map(|(view, _)| view)
    }

    /// `tasks/cancel` for one task (cooperative: its status may lag).
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), McpError> {
        let live = self.started().await?;
        if self.speaks_tasks_2025(&live) {
            return self.cancel_task_2025(&live, task_id).await;
        }
        timed(
            &self.name,
            self.limits.request_timeout,
            live.peer.cancel_task(CancelTaskParams::new(task_id)),
        )
        .await
    }

    async fn task_once(
        &self,
        live: &Live,
        task_id: &str,
    ) -> Result<(TaskView, TaskPayload), McpError> {
        let got = timed(
            &self.name,
            self.limits.request_timeout,
            live.peer.get_task(GetTaskParams::new(task_id)),
        )
        .await?;
        let wire = serde_json::to_value(&got).unwrap_or(Value::Null);
        let task = &got.task.task;
        let view = TaskView {
            server: self.name.clone(),
            task_id: untrusted(&task.task_id, 200),
            status: status_name(task.status),
            status_message: task.status_message.clone(),
            ttl_ms: task.ttl_ms,
            poll_interval_ms: task.poll_interval_ms,
            wire,
        };
        Ok((view, got.task.payload))
    }

    /// Follows a task to its end and returns its tool result. Each poll goes over the
    /// server's connection of the moment: when that one ends, the task (which the
    /// server may keep running) is followed again on the next connection, once the
    /// server is ready — for at most [`REJOIN_WAIT`] per loss, and not past its TTL.
    pub(super) async fn follow_task(
        &self,
        started: &Live,
        task_id: &str,
        first: TaskStart,
        route: &ProgressRoute,
        cancel: &CancellationToken,
    ) -> Result<ToolResult, McpError> {
        let mut live = started.clone();
        let mut interval = first.poll_interval_ms;
        let mut ttl_ms = first.ttl_ms;
        let begun = Instant::now();
        let mut polls: u32 = 0;
        loop {
            let wait = interval
                .map_or(POLL_DEFAULT, Duration::from_millis)
                .clamp(POLL_MIN, POLL_MAX);
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = cancel.cancelled() => return Err(self.give_up_task(task_id).await),
            }
            let (view, payload) = match self.task_once(&live, task_id).await {
                Ok(seen) => seen,
                Err(error) => {
                    live = self
                        .rejoin(&live, error, task_id, begun, ttl_ms, cancel)
                        .await?;
                    continue;
                }
            };
            interval = view.poll_interval_ms;
            ttl_ms = view.ttl_ms.or(ttl_ms);
            polls += 1;
            self.task_progress(route, &view, polls);
            match payload {
                TaskPayload::Completed { result } => {
                    return tool_result(&self.name, &Value::Object(result), &self.limits);
                }
                TaskPayload::InputRequired { input_requests } => {
                    let responses = self.client.fulfil(input_requests).await?;
                    // The answer is given once, on whichever connection takes it.
                    loop {
                        let update = UpdateTaskParams::new(task_id, responses.clone());
                        let sent = timed(
                            &self.name,
                            self.limits.request_timeout,
                            live.peer.update_task(update),
                        )
                        .await;
                        match sent {
                            Ok(()) => break,
                            Err(error) => {
                                live = self
                                    .rejoin(&live, error, task_id, begun, ttl_ms, cancel)
                                    .await?;
                            }
                        }
                    }
                }
                TaskPayload::Working => {}
                other => return Err(self.task_ended(&view, &other)),
            }
        }
    }

    /// The connection to go on with after `error` on `live`, or the error to end with:
    /// the server's own answers end the call; a lost connection waits for the next one.
    async fn rejoin(
        &self,
        live: &Live,
        error: McpError,
        task_id: &str,
        begun: Instant,
        ttl_ms: Option<u64>,
        cancel: &CancellationToken,
    ) -> Result<Live, McpError> {
        if matches!(
            error,
            McpError::Remote { .. } | McpError::Limit { .. } | McpError::NeedsLogin { .. }
        ) {
            return Err(error);
        }
        let mut deadline = Instant::now() + REJOIN_WAIT;
        if let Some(ttl) = ttl_ms {
            deadline = deadline.min(begun + Duration::from_millis(ttl));
        }
        tracing::info!(
            server = self.name,
            "following task {task_id}: {error}; waiting for the server"
        );
        match self.next_live(live.generation, deadline, cancel).await {
            Some(next) => {
                tracing::info!(
                    server = self.name,
                    "following task {task_id} on the new connection"
                );
                Ok(next)
            }
            None if cancel.is_cancelled() => Err(self.give_up_task(task_id).await),
            None => Err(McpError::CallFailed {
                server: self.name.clone(),
                reason: format!(
                    "lost the connection while following task {} and the server was not ready again in time ({error})",
                    untrusted(task_id, 80)
                ),
            }),
        }
    }

    /// The caller gave up: `tasks/cancel` over the connection there is now, if any.
    async fn give_up_task(&self, task_id: &str) -> McpError {
        let sent = match self.live() {
            Ok(live) => live
                .peer
                .cancel_task(CancelTaskParams::new(task_id))
                .await
                .is_ok(),
            Err(_) => false,
        };
        let told = if sent {
            "tasks/cancel sent"
        } else {
            "tasks/cancel could not be sent"
        };
        McpError::CallFailed {
            server: self.name.clone(),
            reason: format!("cancelled ({told} for task {})", untrusted(task_id, 80)),
        }
    }

    /// Tells listeners (the TUI's Tasks view) what a task looks like now.
    pub(super) fn task_seen(&self, tool: &str, view: TaskView) {
        let events = &self.client.events;
        if events.receiver_count() > 0 {
            let _ = events.send(McpEvent::Task {
                tool: tool.to_owned(),
                view: Box::new(view),
            });
        }
    }

    pub(super) fn task_progress(&self, route: &ProgressRoute, view: &TaskView, polls: u32) {
        let events = &self.client.events;
        if events.receiver_count() == 0 {
            return;
        }
        let mut seen = view.clone();
        seen.wire = Value::Null;
        self.task_seen(&route.request, seen);
        let message = match &view.status_message {
            Some(m) => format!("task {} — {}", view.status, m),
            None => format!("task {}", view.status),
        };
        let _ = events.send(McpEvent::Progress {
            server: self.name.clone(),
            run_id: route.run_id.clone(),
            step_id: route.step_id.clone(),
            request: route.request.clone(),
            progress: f64::from(polls),
            total: None,
            message: Some(message),
        });
    }

    fn task_ended(&self, view: &TaskView, payload: &TaskPayload) -> McpError {
        match payload {
            TaskPayload::Failed { error } => McpError::Remote {
                server: self.name.clone(),
                code: error
                    .get("code")
                    .and_then(Value::as_i64)
                    .and_then(|c| i32::try_from(c).ok())
                    .unwrap_or(0),
                message: untrusted(
                    &format!(
                        "task {} failed: {}",
                        view.task_id,
                        error.get("message").and_then(Value::as_str).unwrap_or("")
                    ),
                    super::listing::MAX_REMOTE_TEXT,
                ),
            },
            _ => McpError::CallFailed {
                server: self.name.clone(),
                reason: format!("task {} ended {}", view.task_id, view.status),
            },
        }
    }
}

/// What `call --no-wait` gets back: the task, not its result.
pub fn started(server: &str, task_id: &str, status: &str) -> ToolResult {
    let text = format!(
        "task {} on {}: {status} (follow it with `switchboard task get {} {}`)",
        untrusted(task_id, 200),
        untrusted(server, 80),
        untrusted(server, 80),
        untrusted(task_id, 200),
    );
    let mut result = ToolResult::text(text);
    result.structured = Some(json!({"taskId": task_id, "status": status}));
    result
}
