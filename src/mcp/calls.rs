//! Requests on a live connection: `tools/call` (with progress, timeout reset on progress
//! and `notifications/cancelled` when the caller gives up), `resources/read`,
//! `prompts/get` and `completion/complete`.

use rmcp::model::{
    CallToolRequestParams, ClientRequest, GetPromptRequestParams, ProgressToken,
    ReadResourceRequestParams, Request, RequestId, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleClient};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::client::{ProgressRoute, ProgressRoutes};
use super::error::McpError;
use super::listing::{service_error, timed};
use super::result::{PromptView, ResourceRead, prompt_view, resource_read, tool_result};
use super::server::ServerHandle;
use crate::tools::ToolResult;

/// Who is calling (for progress events) and how they cancel.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    pub run_id: Option<String>,
    pub step_id: Option<String>,
    /// Cancelling it sends `notifications/cancelled` and fails the call.
    pub cancel: Option<CancellationToken>,
}

/// Sends `notifications/cancelled` unless finished normally; forgets the progress token.
struct InFlight<'a> {
    peer: Peer<RoleClient>,
    id: RequestId,
    token: ProgressToken,
    routes: &'a ProgressRoutes,
    armed: bool,
}

impl InFlight<'_> {
    fn cancelled_params(&self, reason: &str) -> Option<rmcp::model::CancelledNotificationParam> {
        serde_json::from_value(json!({"requestId": self.id, "reason": reason})).ok()
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.routes.remove(&self.token);
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

impl ServerHandle {
    /// Calls a tool. `generation` is the catalog generation the caller looked the tool
    /// up in; a different current generation fails as stale.
    pub async fn call_tool(
        &self,
        tool: &str,
        args: Map<String, Value>,
        generation: Option<u64>,
        ctx: CallContext,
    ) -> Result<ToolResult, McpError> {
        let live = self.live()?;
        if let Some(used) = generation
            && used != live.generation
        {
            return Err(McpError::Stale {
                server: self.name.clone(),
                used,
                current: live.generation,
            });
        }
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        let request = ClientRequest::CallToolRequest(Request::new(params));
        let options = PeerRequestOptions::with_timeout(self.limits.request_timeout)
            .reset_timeout_on_progress();
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
        self.routes.insert(
            &in_flight.token,
            ProgressRoute {
                run_id: ctx.run_id,
                step_id: ctx.step_id,
                request: tool.to_owned(),
            },
        );
        let cancel = ctx.cancel.unwrap_or_default();
        let response = tokio::select! {
            response = handle.await_response() => response,
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
        // A timeout leaves the request armed: the server hears it was cancelled.
        in_flight.armed = matches!(response, Err(rmcp::service::ServiceError::Timeout { .. }));
        drop(in_flight);
        match response {
            Ok(ServerResult::CallToolResult(result)) => {
                let wire = serde_json::to_value(&result).unwrap_or(Value::Null);
                tool_result(&self.name, &wire, &self.limits)
            }
            Ok(_) => Err(McpError::CallFailed {
                server: self.name.clone(),
                reason: "unexpected response to tools/call".into(),
            }),
            Err(e) => Err(service_error(&self.name, e)),
        }
    }

    pub async fn read_resource(&self, uri: &str) -> Result<ResourceRead, McpError> {
        let live = self.live()?;
        let params = ReadResourceRequestParams::new(uri);
        let result = timed(
            &self.name,
            self.limits.request_timeout,
            live.peer.read_resource(params),
        )
        .await?;
        let wire = serde_json::to_value(&result).unwrap_or(Value::Null);
        resource_read(&self.name, &wire, &self.limits)
    }

    pub async fn get_prompt(
        &self,
        name: &str,
        args: Map<String, Value>,
    ) -> Result<PromptView, McpError> {
        let live = self.live()?;
        let mut params = GetPromptRequestParams::new(name);
        if !args.is_empty() {
            params.arguments = Some(args);
        }
        let result = timed(
            &self.name,
            self.limits.request_timeout,
            live.peer.get_prompt(params),
        )
        .await?;
        let wire = serde_json::to_value(&result).unwrap_or(Value::Null);
        prompt_view(&self.name, &wire, &self.limits)
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
        let live = self.live()?;
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

/// What a completion is for.
#[derive(Debug, Clone, Copy)]
pub enum CompletionRef<'a> {
    Template(&'a str),
    Prompt(&'a str),
}
