//! `switchboard app SERVER TOOL`: a tool's MCP App, opened in the browser through a
//! local host. The tool is called (origin `cli`, through the gate as `call` is), its
//! page is served, and every call the page makes passes the gate with origin `app`
//! (non-interactive: one the policy would ask about is denied, naming the rule to
//! add). The page's address is the first line on stderr; it serves until
//! interrupted.

use std::sync::Arc;

use clap::Args;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::Cli;
use super::call_cmd::parse_arguments;
use super::mcp_session::{exit, exit_code, open_for_app, ready_server, run_to_exit, safe};
use crate::apps::{AppDeps, AppHost, AppNote, AppResource, AppSession, CallState};
use crate::mcp::{CatalogTool, HeadlessAsker, qualified_name};
use crate::policy::Mode;
use crate::tools::{CallOutcome, Origin, ToolContext};
use crate::workbench::Workbench;

#[derive(Debug, Args)]
pub struct AppArgs {
    /// The server.
    pub server: String,
    /// The tool whose app to open (it names a `ui://` resource in `_meta.ui`).
    pub tool: String,
    /// Arguments as one JSON object.
    #[arg(long, value_name = "JSON", conflicts_with = "arg")]
    pub args: Option<String>,
    /// One argument (repeatable); VALUE is parsed as JSON when it can be, else a string.
    #[arg(short = 'a', long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
    /// Decide in this mode instead of the configured one (the app's calls too).
    #[arg(long, value_name = "MODE")]
    pub approve: Option<Mode>,
    /// Only print the page's address; do not start a browser.
    #[arg(long)]
    pub no_browser: bool,
}

pub fn run(cli: &Cli, args: &AppArgs) -> color_eyre::Result<()> {
    run_to_exit(async {
        let call_args = match parse_arguments(args.args.as_deref(), &args.arg) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("{e}");
                return exit::USAGE;
            }
        };
        let workbench = match open_for_app(cli, args.approve, &args.server).await {
            Ok(w) => w,
            Err(code) => return code,
        };
        let code = match open(&workbench, args, call_args).await {
            Ok(host) => serve(&workbench, args, &host).await,
            Err(code) => code,
        };
        workbench.shutdown().await;
        code
    })
}

/// Reads the tool's UI and starts its host; `Err` is the exit status (said why).
async fn open(
    workbench: &Workbench,
    args: &AppArgs,
    arguments: Map<String, Value>,
) -> Result<AppHost, i32> {
    ready_server(workbench, &args.server).await?;
    let tool = app_tool(workbench, &args.server, &args.tool)?;
    let uri = tool.ui_resource().unwrap_or_default().to_owned();
    let read = workbench
        .hub
        .read_app_resource(&args.server, &uri)
        .await
        .map_err(|e| {
            eprintln!(
                "cannot read the app {}: {}",
                safe(&uri),
                safe(&e.to_string())
            );
            exit_code(&e)
        })?;
    let resource = AppResource::from_read(&uri, &read).map_err(|e| {
        eprintln!("{}", safe(&e.to_string()));
        exit::REMOTE
    })?;
    let (notes, heard) = mpsc::unbounded_channel();
    tokio::spawn(print_notes(heard));
    let deps = AppDeps {
        registry: Arc::clone(&workbench.registry),
        hub: workbench.hub.clone(),
        // Nobody to ask here: links the app wants opened are declined (and printed).
        asker: Arc::new(HeadlessAsker::default()),
        notes,
        wire: workbench.wire_capture().cloned(),
        observer: None,
    };
    let session = AppSession::new(&args.server, tool, resource, arguments, deps);
    AppHost::start(Arc::new(session)).await.map_err(|e| {
        eprintln!("cannot start the app's local host: {e}");
        exit::USAGE
    })
}

/// The tool, if it has an app; otherwise says why not.
fn app_tool(workbench: &Workbench, server: &str, tool: &str) -> Result<CatalogTool, i32> {
    let snapshot = workbench.hub.snapshot();
    let found = snapshot
        .server(server)
        .and_then(|s| s.catalog.tool(tool))
        .cloned();
    match found {
        Some(t) if t.ui_resource().is_some() => Ok(t),
        Some(_) => {
            eprintln!(
                "tool {} has no MCP App (no _meta.ui.resourceUri); use `switchboard call`",
                safe(tool)
            );
            Err(exit::USAGE)
        }
        None => {
            eprintln!(
                "no tool {} on server {} (see `switchboard catalog --server {}`)",
                safe(tool),
                safe(server),
                safe(server)
            );
            Err(exit::USAGE)
        }
    }
}

/// Prints the address, opens the browser, makes the call the app shows, and serves
/// until interrupted.
async fn serve(workbench: &Workbench, args: &AppArgs, host: &AppHost) -> i32 {
    eprintln!("app: {}", host.url());
    if !args.no_browser {
        let url = host.url().to_owned();
        tokio::spawn(async move {
            if let Err(e) = crate::mcp::oauth::browser::open(&url).await {
                eprintln!("could not open a browser ({e}); open the address above");
            }
        });
    }
    let session = host.session();
    let name = qualified_name(&args.server, &args.tool);
    let ctx = ToolContext::new(format!("cli-{}", std::process::id()), Origin::Cli);
    let outcome = workbench
        .registry
        .invoke(&name, session.arguments.clone(), &ctx)
        .await;
    let state = match outcome {
        CallOutcome::Ran(result) => {
            eprintln!("{name}: {}", if result.is_error { "error" } else { "ok" });
            CallState::Done(crate::tools::result_wire(&result))
        }
        other => {
            let text = other.into_result().text_content();
            eprintln!("{}", safe(&text));
            CallState::Cancelled(text)
        }
    };
    session.finish(state);
    eprintln!("serving the app until interrupted (Ctrl-C)");
    super::serve_cmd::shutdown_signal().await;
    exit::OK
}

/// What the app did, one sanitised line each on stderr.
async fn print_notes(mut notes: mpsc::UnboundedReceiver<AppNote>) {
    while let Some(note) = notes.recv().await {
        let line = match note {
            AppNote::Message { app, text } => {
                format!("app {app} says (not sent to any model): {text}")
            }
            AppNote::Context { app, text } => {
                format!("app {app} offers model context (not sent): {text}")
            }
            AppNote::Log { app, level, text } => format!("app {app} log {level}: {text}"),
            AppNote::Link {
                app,
                url,
                opened: false,
            } => format!("app {app} asked to open {url}: declined (nobody to ask here)"),
            AppNote::Link { app, url, .. } => format!("app {app} opened {url}"),
        };
        eprintln!("{}", safe(&line));
    }
}
