//! Requests on a live connection: `tools/call`, `resources/read`, `prompts/get` (each
//! through [`ServerHandle::drive`]: progress, cancellation, input rounds) and
//! `completion/complete`.

use rmcp::model::{
    CallToolRequestParams, ClientRequest, GetPromptRequestParams, ReadResourceRequestParams,
    Request, ServerResult,
};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::client::ProgressRoute;
use super::error::McpError;
use super::limits::Limits;
use super::listing::timed;
use super::result::{PromptView, ResourceRead, call_tool_result, prompt_view, resource_read};
use super::rounds::Round;
use super::server::ServerHandle;
use crate::tools::ToolResult;

/// The most text an MCP App's page may have (16 Mi characters).
pub const APP_MAX_CHARS: usize = 16 * 1024 * 1024;

/// Who is calling (for progress events) and how they cancel.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    pub run_id: Option<String>,
    pub step_id: Option<String>,
    /// Cancelling it sends `notifications/cancelled` and fails the call.
    pub cancel: Option<CancellationToken>,
    /// A call that becomes a task returns the task at once instead of following it.
    pub no_wait: bool,
}

impl ServerHandle {
    /// Calls a tool once (see `call_tool`, which adds the step-up login).
    pub(super) async fn call_tool_once(
        &self,
        tool: &str,
        args: &Map<String, Value>,
        generation: Option<u64>,
        ctx: CallContext,
    ) -> Result<ToolResult, McpError> {
        let live = self.started().await?;
        if let Some(used) = generation
            && used != live.generation
        {
            return Err(McpError::Stale {
                server: self.name.clone(),
                used,
                current: live.generation,
            });
        }
        let build = |round: Round| {
            let mut params =
                CallToolRequestParams::new(tool.to_owned()).with_arguments(args.clone());
            params.input_responses = round.input_responses;
            params.request_state = round.request_state;
            ClientRequest::CallToolRequest(Request::new(params))
        };
        let route = ProgressRoute {
            run_id: ctx.run_id,
            step_id: ctx.step_id,
            request: tool.to_owned(),
        };
        let cancel = ctx.cancel.unwrap_or_default();
        if self.call_as_task_2025(&live, tool, ctx.no_wait) {
            return Box::pin(self.call_task_2025(&live, tool, args, &route, &cancel, ctx.no_wait))
                .await;
        }
        let answer = match self.drive(&live, build, route.clone(), &cancel).await {
            Err(error) if self.wants_task_2025(&live, tool, &error) => {
                tracing::info!(
                    server = self.name,
                    "{tool} answered -32601: trying it as a task (MCP 2025-11-25)"
                );
                return Box::pin(self.call_task_2025(
                    &live,
                    tool,
                    args,
                    &route,
                    &cancel,
                    ctx.no_wait,
                ))
                .await
                // Refused again: the first answer says more.
                .map_err(|retry| match retry {
                    McpError::Remote { .. } => error,
                    other => other,
                });
            }
            answer => answer?,
        };
        match answer {
            ServerResult::CallToolResult(result) => {
                call_tool_result(&self.name, result, &self.limits)
            }
            ServerResult::CreateTaskResult(created) => {
                let task = &created.task;
                self.task_seen(
                    &route.request,
                    super::tasks::TaskView {
                        server: self.name.clone(),
                        task_id: super::error::untrusted(&task.task_id, 200),
                        status: super::tasks::status_name(task.status),
                        status_message: task.status_message.clone(),
                        ttl_ms: task.ttl_ms,
                        poll_interval_ms: task.poll_interval_ms,
                        wire: Value::Null,
                    },
                );
                if ctx.no_wait {
                    let status = super::tasks::status_name(task.status);
                    return Ok(super::tasks::started(&self.name, &task.task_id, &status));
                }
                let start = super::tasks::TaskStart {
                    poll_interval_ms: task.poll_interval_ms,
                    ttl_ms: task.ttl_ms,
                };
                // Boxed: a task's polling state would otherwise be part of every
                // call's future (moved and copied whether or not a task comes).
                Box::pin(self.follow_task(&live, &task.task_id, start, &route, &cancel)).await
            }
            _ => Err(McpError::CallFailed {
                server: self.name.clone(),
                reason: "unexpected response to tools/call".into(),
            }),
        }
    }

    pub async fn read_resource(&self, uri: &str) -> Result<ResourceRead, McpError> {
        self.read_within(uri, &self.limits).await
    }

    /// An MCP App's `ui://` page: HTML bundled into one file is often larger than a
    /// result a model should read, and no model reads it, so it may be up to
    /// [`APP_MAX_CHARS`] (the other limits hold).
    pub async fn read_app_resource(&self, uri: &str) -> Result<ResourceRead, McpError> {
        let mut limits = self.limits;
        limits.max_result_chars = limits.max_result_chars.max(APP_MAX_CHARS);
        self.read_within(uri, &limits).await
    }

    async fn read_within(&self, uri: &str, limits: &Limits) -> Result<ResourceRead, McpError> {
        let live = self.started().await?;
        let build = |round: Round| {
            let mut params = ReadResourceRequestParams::new(uri);
            params.input_responses = round.input_responses;
            params.request_state = round.request_state;
            ClientRequest::ReadResourceRequest(Request::new(params))
        };
        let answer = self
            .drive(&live, build, untimed_route(uri), &CancellationToken::new())
            .await?;
        let ServerResult::ReadResourceResult(result) = answer else {
            return Err(self.unexpected("resources/read"));
        };
        let wire = serde_json::to_value(&result).unwrap_or(Value::Null);
        resource_read(&self.name, &wire, limits)
    }

    pub async fn get_prompt(
        &self,
        name: &str,
        args: Map<String, Value>,
    ) -> Result<PromptView, McpError> {
        let live = self.started().await?;
        let build = |round: Round| {
            let mut params = GetPromptRequestParams::new(name);
            if !args.is_empty() {
                params.arguments = Some(args.clone());
            }
            params.input_responses = round.input_responses;
            params.request_state = round.request_state;
            ClientRequest::GetPromptRequest(Request::new(params))
        };
        let answer = self
            .drive(&live, build, untimed_route(name), &CancellationToken::new())
            .await?;
        let ServerResult::GetPromptResult(result) = answer else {
            return Err(self.unexpected("prompts/get"));
        };
        let wire = serde_json::to_value(&result).unwrap_or(Value::Null);
        prompt_view(&self.name, &wire, &self.limits)
    }

    fn unexpected(&self, method: &str) -> McpError {
        McpError::CallFailed {
            server: self.name.clone(),
            reason: format!("unexpected response to {method}"),
        }
    }

    /// Completion values for one argument of a resource template (`uri_template`) or a
    /// prompt (`prompt`), given what has been typed so far.
    pub async fn complete(
        &self,
        reference: CompletionRef<'_>,
        argument: &str,
        value: &str,
        context: &std::collections::BTreeMap<String, String>,
    ) -> Result<Vec<String>, McpError> {
        let live = self.started().await?;
        let reference = match reference {
            CompletionRef::Template(uri) => json!({"type": "ref/resource", "uri": uri}),
            CompletionRef::Prompt(name) => json!({"type": "ref/prompt", "name": name}),
        };
        let mut params = json!({
            "ref": reference,
            "argument": {"name": argument, "value": value}
        });
        // The values already chosen, so a server can narrow its suggestions
        // (`completable-prompt`: the department decides the names).
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        let params: rmcp::model::CompleteRequestParams =
            serde_json::from_value(params).map_err(|e| McpError::CallFailed {
                server: self.name.clone(),
                reason: e.to_string(),
            })?;
        let result = timed(
            &self.name,
            self.limits.request_timeout,
            live.peer.complete(params),
        )
        .await?;
        let wire = serde_json::to_value(&result).unwrap_or(Value::Null);
        Ok(wire["completion"]["values"]
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(Value::as_str)
                    .take(100)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default())
    }
}

/// Progress of a read or prompt: not part of a run.
fn untimed_route(request: &str) -> ProgressRoute {
    ProgressRoute {
        run_id: None,
        step_id: None,
        request: request.to_owned(),
    }
}

/// What a completion is for.
#[derive(Debug, Clone, Copy)]
pub enum CompletionRef<'a> {
    Template(&'a str),
    Prompt(&'a str),
}
