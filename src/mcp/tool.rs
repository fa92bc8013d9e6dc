//! [`McpTool`]: one MCP tool as a [`Tool`] the registry gates. Its qualified name is
//! `SERVER__TOOL`; its effect comes from the annotations (unless the server's
//! annotations are ignored); `[policy] effects` overrides are applied by the gate.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::calls::CallContext;
use super::catalog::CatalogTool;
use super::server::ServerHandle;
use crate::config::AnnotationTrust;
use crate::tools::{AnnotationHints, Tool, ToolContext, ToolResult, ToolSpec, effect_from_hints};

pub use crate::tools::{QUALIFIER, qualified_name};

/// The spec of an MCP tool as the registry sees it.
pub fn tool_spec(server: &str, tool: &CatalogTool, trust: AnnotationTrust) -> ToolSpec {
    let hints = tool.annotations.as_ref().map(|a| AnnotationHints {
        read_only: a.read_only,
        destructive: a.destructive,
    });
    let mut builder = ToolSpec::builder(qualified_name(server, &tool.name))
        .description(tool.description.clone())
        .input_schema(tool.input_schema.clone())
        .default_effect(effect_from_hints(hints.as_ref(), trust, None))
        .app_only(tool.app_only())
        .hidden_from_apps(tool.hidden_from_apps());
    if let Some(title) = tool
        .title
        .as_ref()
        .or_else(|| tool.annotations.as_ref()?.title.as_ref())
    {
        builder = builder.title(title.clone());
    }
    if let Some(schema) = &tool.output_schema {
        builder = builder.output_schema(schema.clone());
    }
    builder.build()
}

/// Whether `[servers.NAME] enabled_tools` / `disabled_tools` admit a tool.
pub fn tool_enabled(config: &crate::config::ServerConfig, tool: &str) -> bool {
    let listed = config
        .enabled_tools
        .as_ref()
        .is_none_or(|names| names.iter().any(|n| n == tool));
    listed && !config.disabled_tools.iter().any(|n| n == tool)
}

pub struct McpTool {
    spec: ToolSpec,
    tool: String,
    generation: u64,
    /// From the cached catalog of a server not running: a call starts it, and is
    /// made on whatever connection that gives (no stale check).
    cached: bool,
    server: Arc<ServerHandle>,
}

impl McpTool {
    /// A tool of `server`'s catalog of `generation`.
    pub fn new(server: &Arc<ServerHandle>, tool: &CatalogTool, generation: u64) -> Self {
        let trust = server.config.annotations.unwrap_or(AnnotationTrust::Trust);
        Self {
            spec: tool_spec(&server.name, tool, trust),
            tool: tool.name.clone(),
            generation,
            cached: false,
            server: Arc::clone(server),
        }
    }

    /// A tool of `server`'s cached catalog (the server is not running).
    pub fn cached(server: &Arc<ServerHandle>, tool: &CatalogTool) -> Self {
        Self {
            cached: true,
            ..Self::new(server, tool, 0)
        }
    }

    /// Whether it comes from a cached catalog.
    pub fn is_cached(&self) -> bool {
        self.cached
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }
}

#[async_trait::async_trait]
impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, args: Map<String, Value>, ctx: &ToolContext) -> ToolResult {
        let call = CallContext {
            run_id: Some(ctx.run_id.clone()),
            step_id: ctx.call_id.as_ref().map(|c| c.0.clone()),
            cancel: Some(ctx.cancel.clone()),
            no_wait: ctx.metadata.get("no_wait").and_then(Value::as_bool) == Some(true),
        };
        match self
            .server
            .call_tool(
                &self.tool,
                args,
                (!self.cached).then_some(self.generation),
                call,
            )
            .await
        {
            Ok(mut result) => {
                if let Some(schema) = &self.spec.output_schema {
                    result.check_output_schema(schema);
                }
                result
            }
            Err(e) => ToolResult::error(e.to_string()).with_metadata(json!({
                "server": self.server.name,
                "error": e.kind(),
            })),
        }
    }
}
