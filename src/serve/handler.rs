//! [`GatewayHandler`]: rmcp's `ServerHandler` for one client connection. Lists come
//! from the registry and the hub's catalogs (`expose.rs`); `tools/call` goes through
//! the gate (`call.rs`); reads and prompts are passed to the server that owns them.

use std::sync::{Arc, Mutex, PoisonError};

use crate::mcp::CompletionRef;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, ErrorCode, GetPromptRequestParams, GetPromptResponse, GetTaskParams,
    GetTaskResult, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, Reference, RequestMetaObject, ServerConfig,
    SubscriptionFilter, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::clients::Connection;
use super::identity::Proven;
use super::notify::{self, LogLevel};
use super::{Gateway, expose};
use crate::policy::RemoteClient;

/// The longest client name kept (from `clientInfo`).
const MAX_CLIENT_NAME: usize = 64;

/// One connection's handler. Cheap to clone; the connection is unlisted (and its
/// notifications stop) when the last clone drops.
#[derive(Clone)]
pub struct GatewayHandler {
    inner: Arc<Inner>,
}

/// The client of a connection as first seen.
struct Known {
    proven: Option<Arc<str>>,
    remote: Arc<RemoteClient>,
    connection: Connection,
}

struct Inner {
    gateway: Arc<Gateway>,
    /// Names this connection among the gateway's (for its log level).
    id: u64,
    transport: &'static str,
    /// The client this connection was started as (`serve --stdio --client NAME`).
    started_as: Option<Arc<str>>,
    /// Its client, with the name it was proven as (none: declared).
    client: Mutex<Option<Known>>,
    log_level: LogLevel,
    stop: CancellationToken,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.cancel();
        self.gateway.forget_resources(self.id);
        let asked = self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some();
        // Its level no longer counts upstream.
        if asked && let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (gateway, id) = (Arc::clone(&self.gateway), self.id);
            runtime.spawn(async move { gateway.log_levels.set(&gateway.hub, id, None).await });
        }
    }
}

impl GatewayHandler {
    /// `started_as`: the client every request of this connection is (stdio's
    /// `--client NAME`); none: each request's proof decides (HTTP), else its label.
    pub(super) fn new(
        gateway: Arc<Gateway>,
        transport: &'static str,
        started_as: Option<Arc<str>>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                id: gateway.next_connection(),
                gateway,
                transport,
                started_as,
                client: Mutex::default(),
                log_level: Arc::default(),
                stop: CancellationToken::new(),
            }),
        }
    }

    fn gateway(&self) -> &Gateway {
        &self.inner.gateway
    }

    /// The client of a request. Proven (started as it, or an HTTP request carrying its
    /// token): that `[serve.clients.NAME]`. Else the name from `initialize`, or the
    /// request's `clientInfo` metadata (2026-07-28), is only a label with the default
    /// policy. The connection is listed on first sight; a later request of a session
    /// that proves otherwise is judged by its own proof.
    fn client(&self, context: &RequestContext<RoleServer>) -> Arc<RemoteClient> {
        let proven = self.inner.started_as.clone().or_else(|| {
            let parts = context.extensions.get::<hyper::http::request::Parts>()?;
            parts.extensions.get::<Proven>().map(|p| Arc::clone(&p.0))
        });
        let mut slot = self
            .inner
            .client
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = slot.as_ref()
            && known.proven == proven
        {
            return Arc::clone(&known.remote);
        }
        let name = match &proven {
            Some(name) => name.to_string(),
            None => declared_name(&context.meta, &context.peer),
        };
        let clients = self.gateway().clients();
        let remote = clients.remote(&name, proven.is_some());
        if slot.is_none() {
            let connection = clients.connect(&name, proven.is_some(), self.inner.transport);
            *slot = Some(Known {
                proven,
                remote: Arc::clone(&remote),
                connection,
            });
        }
        remote
    }

    fn count_call(&self) {
        let slot = self
            .inner
            .client
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = slot.as_ref() {
            known.connection.called();
        }
    }
}

/// The name a client gives itself: from the request's `clientInfo` metadata
/// (2026-07-28), else from `initialize`.
fn declared_name(meta: &RequestMetaObject, peer: &Peer<RoleServer>) -> String {
    let name = meta
        .client_info()
        .map(|i| i.name)
        .or_else(|| peer.peer_info().map(|p| p.client_info.name.clone()));
    client_name(name.as_deref())
}

/// A usable name: trimmed, at most 64 characters, `unnamed client` when empty.
pub(super) fn client_name(name: Option<&str>) -> String {
    let name: String = name
        .unwrap_or("")
        .trim()
        .chars()
        .take(MAX_CLIENT_NAME)
        .collect();
    if name.is_empty() {
        "unnamed client".to_owned()
    } else {
        name
    }
}

/// An rmcp model value from wire JSON we built, marked `resultType: complete`
/// (2026-07-28 clients require it; rmcp strips it for older ones).
pub(super) fn wire<T: DeserializeOwned>(mut value: Value) -> Result<T, ErrorData> {
    if let Some(object) = value.as_object_mut() {
        object
            .entry("resultType")
            .or_insert_with(|| Value::from("complete"));
    }
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// What a completion is for, owned until the server is asked.
enum Owned {
    Prompt(String),
    Template(String),
}

impl Owned {
    fn as_ref(&self) -> CompletionRef<'_> {
        match self {
            Owned::Prompt(name) => CompletionRef::Prompt(name),
            Owned::Template(uri) => CompletionRef::Template(uri),
        }
    }
}

fn upstream(e: &crate::mcp::McpError) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

impl GatewayHandler {
    async fn completion(
        &self,
        request: CompleteRequestParams,
    ) -> Result<CompleteResult, ErrorData> {
        let gateway = self.gateway();
        // As for a listing: the servers still connecting are waited for (a template
        // is found in their catalogs).
        gateway.readiness.settled().await;
        let (server, reference) = match &request.r#ref {
            Reference::Prompt(p) => {
                let found = expose::server_of(&p.name, &gateway.servers)
                    .filter(|(server, _)| gateway.expose.server(server));
                let Some((server, prompt)) = found else {
                    return Err(ErrorData::invalid_params(
                        format!("unknown prompt: {}", p.name),
                        None,
                    ));
                };
                (server.to_owned(), Owned::Prompt(prompt))
            }
            Reference::Resource(r) => {
                let snapshot = gateway.hub.snapshot();
                let Some(server) = expose::resource_server(&snapshot, &gateway.expose, &r.uri)
                else {
                    return Err(expose::resource_not_found(
                        format!("no exposed server serves {}", r.uri),
                        &r.uri,
                    ));
                };
                (server, Owned::Template(r.uri.clone()))
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown completion reference: {other:?}"),
                    None,
                ));
            }
        };
        // A server that said it has no completions is not asked (one not started
        // yet, on demand, has not said).
        let snapshot = gateway.hub.snapshot();
        let lacks = (snapshot.server(&server).and_then(|s| s.info.as_ref()))
            .is_some_and(|info| !info.supports("completions"));
        let handle = gateway.hub.server(&server).map_err(|e| upstream(&e))?;
        let chosen: std::collections::BTreeMap<String, String> = request
            .context
            .and_then(|c| c.arguments)
            .map(|a| a.into_iter().collect())
            .unwrap_or_default();
        let values = if lacks {
            Vec::new()
        } else {
            let asked = handle
                .complete(
                    reference.as_ref(),
                    &request.argument.name,
                    &request.argument.value,
                    &chosen,
                )
                .await;
            match asked {
                Ok(values) => values,
                Err(crate::mcp::McpError::Remote { code, .. })
                    if code == ErrorCode::METHOD_NOT_FOUND.0 =>
                {
                    Vec::new()
                }
                Err(e) => return Err(upstream(&e)),
            }
        };
        wire(json!({"completion": {"values": values, "hasMore": false}}))
    }
}

impl ServerHandler for GatewayHandler {
    fn get_info(&self) -> ServerConfig {
        let info = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "tools": {"listChanged": true},
                "resources": {"listChanged": true},
                "prompts": {"listChanged": true},
                "logging": {},
                "extensions": {rmcp::model::TASKS_EXTENSION_ID: {}}
            },
            "serverInfo": {"name": "switchboard", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "switchboard: the tools, resources and prompts of the MCP servers it \
                is connected to. Every tool call passes switchboard's permission gate; a refused \
                call returns a tool error that says why and which rule would allow it."
        });
        let mut info = info;
        let (snapshot, exposed) = (self.gateway().hub.snapshot(), &self.gateway().expose);
        if expose::offered(&snapshot, exposed, "/completions") {
            info["capabilities"]["completions"] = json!({});
        }
        if expose::offered(&snapshot, exposed, "/resources/subscribe") {
            info["capabilities"]["resources"]["subscribe"] = json!(true);
        }
        serde_json::from_value(info).unwrap_or_default()
    }

    /// `completion/complete` for an exposed prompt (`SERVER__PROMPT`) or resource
    /// template, asked of the server that owns it under its own name.
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.client(&context);
        // Boxed: its wait on the upstream server would grow every connection's future.
        Box::pin(self.completion(request)).await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.client(&context);
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        notify::spawn_session(
            Arc::clone(&self.inner.gateway),
            self.inner.id,
            context.peer,
            Arc::clone(&self.inner.log_level),
            self.inner.stop.clone(),
        );
    }

    /// The client's level filters what it is sent; the most verbose level of all
    /// clients goes upstream (`levels.rs`) before the answer.
    #[allow(deprecated)] // logging/setLevel: deprecated in 2026-07-28, used by sessions
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = serde_json::to_value(request.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned));
        let ranked = level.as_deref().map(notify::rank);
        *self
            .inner
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = level;
        let gateway = self.gateway();
        gateway
            .log_levels
            .set(&gateway.hub, self.inner.id, ranked)
            .await;
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.client(&context);
        self.gateway().readiness.settled().await;
        wire(json!({"tools": self.gateway().tools_wire()}))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let client = self.client(&context);
        self.count_call();
        let args = request.arguments.unwrap_or_default();
        if super::tasks::declared(&context) {
            let gateway = Arc::clone(&self.inner.gateway);
            let name = request.name.to_string();
            return Box::pin(super::tasks::call_or_task(
                gateway, name, args, client, &context,
            ))
            .await;
        }
        let request_io = super::call::Request::of(&context);
        // Boxed, as the reads and prompts below: rmcp spawns every request's future
        // (moving it whole), which is as large as the largest method's.
        let call = super::call::call(self.gateway(), &request.name, args, client, request_io);
        let result = Box::pin(call).await?;
        Ok(CallToolResponse::Complete(result))
    }

    /// `tasks/get` for a call that became a task (rmcp has checked the client
    /// declared the extension).
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.client(&context);
        self.gateway()
            .tasks
            .get_task(&request.task_id)
            .map(GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.client(&context);
        self.gateway()
            .tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.client(&context);
        self.gateway().tasks.cancel_task(&request.task_id)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.client(&context);
        self.gateway().readiness.settled().await;
        let snapshot = self.gateway().hub.snapshot();
        wire(json!({"resources": expose::resources_wire(&snapshot, &self.gateway().expose)}))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.client(&context);
        let snapshot = self.gateway().hub.snapshot();
        let templates = expose::templates_wire(&snapshot, &self.gateway().expose);
        wire(json!({"resourceTemplates": templates}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.client(&context);
        let gateway = self.gateway();
        // The servers still connecting are waited for, as for a listing: the URI may be
        // in their catalogs.
        gateway.readiness.settled().await;
        let snapshot = gateway.hub.snapshot();
        let Some(server) = expose::resource_server(&snapshot, &gateway.expose, &request.uri) else {
            return Err(expose::resource_not_found(
                format!("no exposed server serves {}", request.uri),
                &request.uri,
            ));
        };
        let read = Box::pin(gateway.hub.read_resource(&server, &request.uri))
            .await
            .map_err(|e| match e {
                // The upstream server's own not-found stays one, with the URI
                // (2026-07-28 servers send it as -32602, SEP-2164).
                crate::mcp::McpError::Remote { code, .. }
                    if code == ErrorCode::RESOURCE_NOT_FOUND.0
                        || code == ErrorCode::INVALID_PARAMS.0 =>
                {
                    expose::resource_not_found(e.to_string(), &request.uri)
                }
                e => upstream(&e),
            })?;
        let contents: Vec<Value> = read
            .contents
            .iter()
            .map(expose::resource_contents)
            .collect();
        Ok(ReadResourceResponse::Complete(wire(
            json!({"contents": contents}),
        )?))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.client(&context);
        let snapshot = self.gateway().hub.snapshot();
        wire(json!({"prompts": expose::prompts_wire(&snapshot, &self.gateway().expose)}))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.client(&context);
        let gateway = self.gateway();
        let found = expose::server_of(&request.name, &gateway.servers)
            .filter(|(server, _)| gateway.expose.server(server));
        let Some((server, prompt)) = found else {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt: {}", request.name),
                None,
            ));
        };
        let asked = gateway
            .hub
            .get_prompt(server, &prompt, request.arguments.unwrap_or_default());
        let view = Box::pin(asked).await.map_err(|e| upstream(&e))?;
        let messages: Vec<Value> = view
            .messages
            .iter()
            .map(|m| json!({"role": m.role, "content": expose::block_wire(&m.content)}))
            .collect();
        let mut result = json!({"messages": messages});
        if let Some(d) = view.description {
            result["description"] = json!(d);
        }
        Ok(GetPromptResponse::Complete(wire(result)?))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        Box::pin(notify::listen(&self.inner.gateway, &context)).await;
        Ok(())
    }

    /// A session's `resources/subscribe`: updates of `uri` come to this client.
    #[allow(deprecated)] // resources/subscribe: what 2025-11-25 sessions use
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.client(&context);
        Box::pin(
            self.gateway()
                .subscribe_resource(self.inner.id, &request.uri),
        )
        .await
    }

    #[allow(deprecated)] // resources/unsubscribe: what 2025-11-25 sessions use
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.client(&context);
        Box::pin(
            self.gateway()
                .unsubscribe_resource(self.inner.id, &request.uri),
        )
        .await;
        Ok(())
    }
}
