//! The test server's MCP behaviour: catalogs, tools, resources, prompts, completion,
//! logging and progress.

#![allow(deprecated)] // logging is deprecated in 2026-07-28 but what servers in the wild use

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    LoggingMessageNotificationParam, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerConfig,
    SetLevelRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::data;

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
    /// The protocol versions spoken; every version rmcp knows when empty.
    pub versions: Vec<rmcp::model::ProtocolVersion>,
    /// The `--misbehave` mode the handler acts on (`bad-structured`, `long-name`,
    /// `stderr-flood`); empty for a well-behaved server.
    pub misbehave: Arc<str>,
}

fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

fn cursor(request: Option<&PaginatedRequestParams>) -> Option<&str> {
    request.and_then(|r| r.cursor.as_deref())
}

fn arg<'a>(request: &'a CallToolRequestParams, name: &str) -> Option<&'a Value> {
    request.arguments.as_ref().and_then(|a| a.get(name))
}

impl TestServer {
    async fn run_tool(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let name: &str = &request.name;
        if &*self.misbehave == "stderr-flood" {
            flood_stderr();
        }
        Ok(match name {
            "echo" => {
                let text = arg(request, "text").and_then(Value::as_str).unwrap_or("");
                json!({"content": [{"type": "text", "text": text}]})
            }
            "add" => {
                let a = arg(request, "a").and_then(Value::as_f64).unwrap_or(0.0);
                let b = arg(request, "b").and_then(Value::as_f64).unwrap_or(0.0);
                let sum = a + b;
                if &*self.misbehave == "bad-structured" {
                    // Not what the outputSchema promises: `sum` as a string.
                    return Ok(
                        json!({"content": [{"type": "text", "text": format!("{sum}")}],
                        "structuredContent": {"sum": format!("{sum}")}}),
                    );
                }
                json!({"content": [{"type": "text", "text": format!("{{\"sum\":{sum}}}")}],
                    "structuredContent": {"sum": sum}})
            }
            "slow" => return crate::slow::slow(request, context).await,
            "big" => {
                let chars = arg(request, "chars")
                    .and_then(Value::as_u64)
                    .unwrap_or(1000);
                let blocks = arg(request, "blocks")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .max(1);
                let per = usize::try_from(chars / blocks).unwrap_or(0);
                let content: Vec<Value> = (0..blocks)
                    .map(|_| json!({"type": "text", "text": "x".repeat(per)}))
                    .collect();
                json!({ "content": content })
            }
            "fail" => {
                json!({"content": [{"type": "text", "text": "the tool failed"}], "isError": true})
            }
            "remote_error" => {
                return Err(ErrorData::invalid_params("remote says no", None));
            }
            "add_tool" => {
                self.extra_tool.store(true, Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                json!({"content": [{"type": "text", "text": "added extra"}]})
            }
            "delete_thing" => json!({"content": [{"type": "text", "text": "deleted"}]}),
            "write_thing" => json!({"content": [{"type": "text", "text": "written"}]}),
            "mixed" => json!({"content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "audio", "data": "aGVsbG8=", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "test://text/1", "name": "text-1", "mimeType": "text/plain"},
                {"type": "resource", "resource": {"uri": "test://text/2", "mimeType": "text/plain", "text": "embedded"}}
            ]}),
            "log" => {
                // 2026-07-28 carries the level in each request's `_meta`.
                let least = context
                    .meta
                    .log_level()
                    .map_or_else(|| self.log_level.load(Ordering::SeqCst), rank);
                for (rank, level) in ["debug", "info", "warning", "error"]
                    .into_iter()
                    .enumerate()
                {
                    if rank < usize::from(least) {
                        continue;
                    }
                    let param: LoggingMessageNotificationParam = from_json(
                        json!({"level": level, "logger": "test", "data": format!("a {level} message")}),
                    )?;
                    #[allow(deprecated)]
                    let _ = context.peer.notify_logging_message(param).await;
                }
                json!({"content": [{"type": "text", "text": "logged"}]})
            }
            "plain" => {
                if arg(request, "exit").and_then(Value::as_bool) == Some(true) {
                    std::process::exit(9);
                }
                // `roots: true` asks the client for its roots (roots/list) and lists them.
                if arg(request, "roots").and_then(Value::as_bool) == Some(true) {
                    let declared = context
                        .peer
                        .peer_info()
                        .is_some_and(|info| info.capabilities.roots.is_some());
                    if !declared {
                        return from_json(json!({"content": [{"type": "text",
                            "text": "the client does not declare roots"}], "isError": true}));
                    }
                    let roots = context
                        .peer
                        .list_roots()
                        .await
                        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    let uris: Vec<String> = roots.roots.into_iter().map(|r| r.uri).collect();
                    return from_json(
                        json!({"content": [{"type": "text", "text": uris.join("\n")}]}),
                    );
                }
                json!({"content": [{"type": "text", "text": "plain ok"}]})
            }
            n if n == data::LONG_NAME || n == data::ODD_NAME => {
                json!({"content": [{"type": "text", "text": format!("called {n}")}]})
            }
            "extra" if self.extra_tool.load(Ordering::SeqCst) => {
                json!({"content": [{"type": "text", "text": "extra ok"}]})
            }
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        })
    }
}

/// 20 000 stderr lines at once, as a chatty server does on every call.
fn flood_stderr() {
    use std::io::Write as _;
    let mut err = std::io::stderr().lock();
    for i in 0..20_000 {
        let _ = writeln!(err, "flood line {i}: {}", "x".repeat(100));
    }
    let _ = err.flush();
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
                "resources": {"listChanged": true},
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
        let mut tools = data::tools(self.extra_tool.load(Ordering::SeqCst));
        if self.asking {
            tools.extend(crate::asking::tools());
        }
        if &*self.misbehave == "long-name" {
            tools.extend(data::unsafe_names());
        }
        from_json(data::page("tools", tools, cursor(request.as_ref())))
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
        let value = self.run_tool(&request, &context).await?;
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
        let contents = if uri.starts_with("test://blob/") {
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
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.store(rank(request.level), Ordering::SeqCst);
        Ok(())
    }
}

/// A level's rank for `log` (0 debug, 1 info, 2 warning, 3 error).
fn rank(level: rmcp::model::LoggingLevel) -> u8 {
    let wire = serde_json::to_value(level).unwrap_or_default();
    match wire.as_str().unwrap_or("debug") {
        "debug" => 0,
        "info" | "notice" => 1,
        "warning" => 2,
        _ => 3,
    }
}
