//! `switchboard call SERVER TOOL`: one tool call through the registry's gate (origin
//! `cli`, non-interactive: a call the policy would ask about is denied, naming the rule
//! to add).

use clap::Args;
use serde_json::{Map, Value};

use super::Cli;
use super::mcp_session::{
    exit, json, key_values, open, print, ready_server, render_blocks, run_to_exit, safe,
};
use crate::mcp::qualified_name;
use crate::policy::Mode;
use crate::tools::{Origin, ToolContext, ToolResult};

/// `switchboard call builtin TOOL` reaches the built-in tools.
pub const BUILTIN: &str = "builtin";

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The server (`builtin` for the built-in tools).
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// Arguments as one JSON object.
    #[arg(long, value_name = "JSON", conflicts_with = "arg")]
    pub args: Option<String>,
    /// One argument (repeatable); VALUE is parsed as JSON when it can be, else a string.
    #[arg(short = 'a', long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
    /// Decide in this mode instead of the configured one
    /// (read-only, ask, auto-edit, full-auto).
    #[arg(long, value_name = "MODE")]
    pub approve: Option<Mode>,
    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,
}

fn arguments(args: &CallArgs) -> Result<Map<String, Value>, String> {
    match &args.args {
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err("--args must be a JSON object".into()),
            Err(e) => Err(format!("--args is not valid JSON: {e}")),
        },
        None => key_values(&args.arg),
    }
}

pub fn run(cli: &Cli, args: &CallArgs) -> color_eyre::Result<()> {
    run_to_exit(async {
        let call_args = match arguments(args) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("{e}");
                return exit::USAGE;
            }
        };
        let workbench = match open(cli, args.approve).await {
            Ok(w) => w,
            Err(code) => return code,
        };
        let code = call(&workbench, args, call_args).await;
        workbench.shutdown().await;
        code
    })
}

async fn call(
    workbench: &crate::workbench::Workbench,
    args: &CallArgs,
    call_args: Map<String, Value>,
) -> i32 {
    let name = if args.server == BUILTIN {
        workbench.sync_now().await;
        args.tool.clone()
    } else {
        if let Err(code) = ready_server(workbench, &args.server).await {
            return code;
        }
        qualified_name(&args.server, &args.tool)
    };
    if !workbench.registry.names().contains(&name) {
        let snapshot = workbench.hub.snapshot();
        let listed = snapshot
            .server(&args.server)
            .is_some_and(|s| s.catalog.tool(&args.tool).is_some());
        if listed {
            eprintln!(
                "tool {} is turned off by enabled_tools / disabled_tools in [servers.{}]",
                safe(&args.tool),
                safe(&args.server)
            );
        } else {
            eprintln!(
                "no tool {} on server {} (see `switchboard catalog --server {}`)",
                safe(&args.tool),
                safe(&args.server),
                safe(&args.server)
            );
        }
        return exit::USAGE;
    }
    let ctx = ToolContext::new(format!("cli-{}", std::process::id()), Origin::Cli);
    match workbench.registry.invoke(&name, call_args, &ctx).await {
        Ok(result) => report(&result, args.json),
        Err(e) => {
            eprintln!("{}", safe(&e.to_string()));
            exit::USAGE
        }
    }
}

fn report(result: &ToolResult, as_json: bool) -> i32 {
    let denied = result.metadata.get("decision").and_then(Value::as_str) == Some("deny");
    if denied {
        eprintln!("{}", safe(&result.text_content()));
        return exit::DENIED;
    }
    if as_json {
        print(&json(result));
    } else if result.is_error {
        eprint!("{}", render_blocks(&result.content));
    } else {
        let mut text = render_blocks(&result.content);
        if let Some(structured) = &result.structured {
            text.push_str("structured content:\n");
            text.push_str(&json(structured));
        }
        print(&text);
    }
    if !result.is_error {
        return exit::OK;
    }
    match result.metadata.get("error").and_then(Value::as_str) {
        Some("mcp_handshake_failed") => exit::UNREACHABLE,
        Some("config") => exit::USAGE,
        _ => exit::REMOTE,
    }
}
