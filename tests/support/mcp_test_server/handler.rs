//! The test server's MCP behaviour: catalogs, resources, prompts, completion,
//! logging, tasks and subscriptions (its tools are in `tools`).

#![allow(deprecated)] // logging is deprecated in 2026-07-28 but what servers in the wild use

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerConfig, SetLevelRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::data;
use crate::tools::rank;

/// One session's state.
#[derive(Clone, Default)]
pub struct TestServer {
    pub extra_tool: Arc<AtomicBool>,
    /// The least severe level `log` sends (0 debug, 1 info, 2 warning, 3 error), as
    /// set by `logging/setLevel`; everything until a client sets one.
    pub log_level: Arc<std::sync::atomic::AtomicU8>,
    /// Exit the process when `initialize` arrives.
    pub exit_on_initialize: bool,
    /// Also offer the tools that ask the client (see `asking`).
    pub asking: bool,
    /// Also offer the MCP Apps tools (see `apps`).
    pub apps: bool,
    /// The protocol versions spoken; every version rmcp knows when empty.
    pub versions: Vec<rmcp::model::ProtocolVersion>,
    /// The `--misbehave` mode the handler acts on (`bad-structured`, `long-name`,
    /// `stderr-flood`); empty for a well-behaved server.
    pub misbehave: Arc<str>,
}

pub fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

fn cursor(request: Option<&PaginatedRequestParams>) -> Option<&str> {
    request.and_then(|r| r.cursor.as_deref())
}

pub fn arg<'a>(request: &'a CallToolRequestParams, name: &str) -> Option<&'a Value> {
    request.arguments.as_ref().and_then(|a| a.get(name))
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let newest = self
            .versions
            .last()
            .map_or("2025-11-25", ProtocolVersion::as_str);
        serde_json::from_value(json!({
            "protocolVersion": newest,
            "capabilities": {
                "tools": {"listChanged": true},
                "resources": {"listChanged": true, "subscribe": true},
                "prompts": {"listChanged": true},
                "logging": {},
                "completions": {},
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
            "serverInfo": {"name": "switchboard-test", "version": "1.2.3"},
            "instructions": "A server for switchboard's tests."
        }))
        .unwrap_or_default()
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::DiscoverResult, ErrorData> {
        if self.exit_on_initialize {
            std::process::exit(7);
        }
        Ok(rmcp::model::DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, ErrorData> {
        if self.exit_on_initialize {
            std::process::exit(7);
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        if self.versions.is_empty() {
            std::borrow::Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        } else {
            std::borrow::Cow::Owned(self.versions.clone())
        }
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(crate::subs::accepted(requested))
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        crate::subs::listen(context).await
    }

    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::subs::subscribe(&request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::subs::unsubscribe(&request.uri);
        Ok(())
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        crate::tasks::get(&request)
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::tasks::update(&request)
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::tasks::cancel(&request)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // One line per listing: its first page.
        if let (Ok(path), None) = (
            std::env::var("SWITCHBOARD_TEST_LISTED"),
            cursor(request.as_ref()),
        ) {
            use std::io::Write as _;
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path);
            let _ = file.and_then(|mut f| f.write_all(b"tools/list\n"));
        }
        let mut tools = data::tools(self.extra_tool.load(Ordering::SeqCst));
        if self.asking {
            tools.extend(crate::asking::tools());
        }
        if self.apps {
            tools.extend(crate::apps::tools());
        }
        if &*self.misbehave == "long-name" {
            tools.extend(data::unsafe_names());
        }
        if &*self.misbehave == "x-mcp-header" {
            tools.extend(data::header_tools());
        }
        if &*self.misbehave == "probes" {
            tools.extend(crate::probes::tools());
        }
        let mut page = data::page("tools", tools, cursor(request.as_ref()));
        if &*self.misbehave == "ttl" {
            page["ttlMs"] = serde_json::json!(600_000);
            page["cacheScope"] = serde_json::json!("private");
        }
        from_json(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.asking
            && let Some(response) = crate::asking::run(&request, &context).await
        {
            return response;
        }
        if let Some(response) = crate::asking::plain_roots(&request, &context).await {
            return response;
        }
        let probe = (&*self.misbehave == "probes")
            .then(|| crate::probes::run(&request))
            .flatten();
        let probe = probe.or_else(|| {
            self.apps
                .then(|| crate::apps::run(&request.name, crate::apps::ui_declared(&context)))
                .flatten()
        });
        let value = match probe {
            Some(value) => value,
            None => self.run_tool(&request, &context).await?,
        };
        let result: CallToolResult = from_json(value)?;
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        from_json(data::page(
            "resources",
            data::resources(),
            cursor(request.as_ref()),
        ))
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        from_json(data::page(
            "resourceTemplates",
            data::templates(),
            cursor(request.as_ref()),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        // `…/missing` under a template is routed here and not found (a gateway test).
        let contents = if uri.ends_with("/missing") {
            return Err(ErrorData::resource_not_found(
                format!("no resource {uri}"),
                None,
            ));
        } else if let Some(ui) = crate::apps::read(&uri) {
            // Served though not listed: a host reads it by the URI a tool names.
            ui
        } else if uri.starts_with("test://blob/") {
            json!({"uri": uri, "mimeType": "application/octet-stream", "blob": "AAEC"})
        } else if uri.starts_with("test://text/") || uri.starts_with("test://tpl") {
            json!({"uri": uri, "mimeType": "text/plain", "text": format!("contents of {uri}")})
        } else {
            return Err(ErrorData::resource_not_found(
                format!("no resource {uri}"),
                None,
            ));
        };
        let result: ReadResourceResult = from_json(json!({"contents": [contents]}))?;
        Ok(ReadResourceResponse::Complete(result))
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        from_json(data::page(
            "prompts",
            data::prompts(),
            cursor(request.as_ref()),
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let text = if request.name == "greet" {
            let Some(name) = args.get("name").and_then(Value::as_str) else {
                return Err(ErrorData::invalid_params(
                    "argument `name` is required",
                    None,
                ));
            };
            let style = args
                .get("style")
                .and_then(Value::as_str)
                .unwrap_or("casual");
            if style == "formal" {
                format!("Good day, {name}.")
            } else {
                format!("Hi {name}!")
            }
        } else {
            format!("This is {}.", request.name)
        };
        let result: GetPromptResult = from_json(json!({
            "description": "A greeting",
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}]
        }))?;
        Ok(GetPromptResponse::Complete(result))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let prefix = request.argument.value;
        let mut values: Vec<String> = ["alpha", "beta", "gamma"]
            .iter()
            .filter(|v| v.starts_with(prefix.as_str()))
            .map(|v| (*v).to_owned())
            .collect();
        // Echo the context (the other arguments' values) so clients can test it.
        let mut context: Vec<(String, String)> = request
            .context
            .and_then(|c| c.arguments)
            .map(|a| a.into_iter().collect())
            .unwrap_or_default();
        context.sort();
        values.extend(context.into_iter().map(|(k, v)| format!("{k}={v}")));
        from_json(
            json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}),
        )
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.store(rank(request.level), Ordering::SeqCst);
        // Like server-everything registering tools as the session begins: the change
        // and its burst of announcements go out before this answer, so before the
        // client's first listing.
        if &*self.misbehave == "announce-early" {
            self.extra_tool.store(true, Ordering::SeqCst);
            for _ in 0..5 {
                let _ = context.peer.notify_tool_list_changed().await;
            }
        }
        Ok(())
    }
}
