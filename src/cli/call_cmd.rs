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
use crate::tools::{
    CallOutcome, ContentBlock, Origin, ToolContext, ToolResult, check_schema, same_data,
};

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
    /// (read-only, ask, auto-edit, full-auto, plan).
    #[arg(long, value_name = "MODE")]
    pub approve: Option<Mode>,
    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,
    /// When the server runs the call as a task, print the task (its id) and return
    /// instead of waiting for it (see `switchboard task`).
    #[arg(long)]
    pub no_wait: bool,
    /// Also append this call, with what came back as its expectation, to a collection
    /// of cases (see `switchboard test`).
    #[arg(long, value_name = "FILE")]
    pub save_case: Option<std::path::PathBuf>,
}

fn arguments(args: &CallArgs) -> Result<Map<String, Value>, String> {
    parse_arguments(args.args.as_deref(), &args.arg)
}

/// A tool's arguments from `--args JSON` or `-a KEY=VALUE` pairs.
pub(super) fn parse_arguments(
    json: Option<&str>,
    pairs: &[String],
) -> Result<Map<String, Value>, String> {
    match json {
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err("--args must be a JSON object".into()),
            Err(e) => Err(format!("--args is not valid JSON: {e}")),
        },
        None => key_values(pairs),
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
        let workbench = match open(cli, args.approve, Some(&args.server)).await {
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
        // A server not started whose cached catalog has the tool is started by the
        // call itself, once the gate has admitted it: a refused call spawns nothing.
        let cached = workbench
            .hub
            .snapshot()
            .server(&args.server)
            .is_some_and(|s| {
                s.status.is_idle()
                    && s.catalog.cached_at.is_some()
                    && s.catalog.tool(&args.tool).is_some()
            });
        if cached {
            workbench.sync_now().await;
        } else if let Err(code) = ready_server(workbench, &args.server).await {
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
    // The arguments are checked against the input schema before anything is sent
    // (as the TUI's form does): a missing or mistyped argument is a usage error.
    let spec = workbench
        .registry
        .specs()
        .into_iter()
        .find(|s| s.name == name);
    let has_output_schema = spec.as_ref().is_some_and(|s| s.output_schema.is_some());
    if let Some(input) = spec.map(|s| s.input_schema) {
        let problems = check_schema(&input, &Value::Object(checked_args(&input, &call_args)));
        if !problems.is_empty() {
            for problem in &problems {
                eprintln!("invalid argument {}", safe(problem));
            }
            return exit::USAGE;
        }
    }
    let mut ctx = ToolContext::new(format!("cli-{}", std::process::id()), Origin::Cli);
    if args.no_wait {
        ctx.metadata = std::sync::Arc::new(serde_json::json!({"no_wait": true}));
    }
    let progress = show_progress(&workbench.hub);
    let target = crate::cases::Target::Tool {
        name: args.tool.clone(),
        args: call_args.clone(),
    };
    let invoked = workbench.registry.invoke(&name, call_args, &ctx).await;
    progress.abort();
    match invoked {
        CallOutcome::Ran(result) => {
            let code = report(&result, args.json);
            match &args.save_case {
                Some(file) => {
                    let observed =
                        crate::cases::Observed::from_tool_result(&result, has_output_schema);
                    let saved = super::test_cmd::save_case(file, &args.server, &target, &observed);
                    code.max(saved)
                }
                None => code,
            }
        }
        CallOutcome::Denied { message, .. } => {
            eprintln!("{}", safe(&message));
            exit::DENIED
        }
        other => {
            eprintln!("{}", safe(&other.into_result().text_content()));
            exit::USAGE
        }
    }
}

/// The arguments as the schema check sees them: `null` for an optional argument
/// means "not given" (it is still sent as is; over HTTP in 2026-07-28 it gets no
/// `Mcp-Param-*` header).
fn checked_args(schema: &Value, args: &Map<String, Value>) -> Map<String, Value> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    args.iter()
        .filter(|(k, v)| !v.is_null() || required.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Progress of the call (and the status of a task it became) on stderr.
fn show_progress(hub: &crate::mcp::McpHub) -> tokio::task::JoinHandle<()> {
    let mut events = hub.events();
    tokio::spawn(async move {
        // Without a total, the count says little (a task's is its polls): the
        // message is the line, printed when it changes.
        let mut said: Option<String> = None;
        loop {
            match events.recv().await {
                Ok(crate::mcp::McpEvent::Progress {
                    total: None,
                    message: Some(message),
                    ..
                }) => {
                    if said.as_deref() != Some(message.as_str()) {
                        eprintln!("progress: {}", safe(&message));
                        said = Some(message);
                    }
                }
                Ok(crate::mcp::McpEvent::Progress {
                    progress,
                    total,
                    message,
                    ..
                }) => {
                    let of = total.map(|t| format!("/{t}")).unwrap_or_default();
                    let text = message.map(|m| format!(" {m}")).unwrap_or_default();
                    eprintln!("progress {progress}{of}{}", safe(&text));
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    })
}

fn report(result: &ToolResult, as_json: bool) -> i32 {
    if as_json {
        print(&json(result));
    } else if result.is_error {
        eprint!("{}", render_blocks(&result.content));
    } else {
        print(&human(result));
    }
    for problem in &result.structured_mismatch {
        eprintln!(
            "warning: the structured content does not match the tool's outputSchema: {}",
            safe(problem)
        );
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

/// The text blocks, then the structured content as pretty JSON — once: when the text
/// is that same data as JSON (servers send both for older clients), only the JSON.
fn human(result: &ToolResult) -> String {
    if let Some(whole) = &result.oversized {
        return render_blocks(whole);
    }
    let Some(structured) = &result.structured else {
        return render_blocks(&result.content);
    };
    let same = match result.content.as_slice() {
        [] => true,
        [ContentBlock::Text { text }] => {
            serde_json::from_str::<Value>(text).is_ok_and(|v| same_data(&v, structured))
        }
        _ => false,
    };
    if same {
        return json(structured);
    }
    let mut text = render_blocks(&result.content);
    text.push_str("structured content:\n");
    text.push_str(&json(structured));
    text
}
