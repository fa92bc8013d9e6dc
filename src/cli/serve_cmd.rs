//! `switchboard serve --stdio | --http ADDR`: switchboard as one MCP server in front of
//! its servers, every call through the gate (non-interactive: a call the policy would
//! ask about is refused, naming the rule to add).

use std::sync::Arc;

use clap::Args;

use super::Cli;
use super::mcp_session::{exit, load_config, run_to_exit, safe, start_with_login};
use crate::paths::Dirs;
use crate::policy::Mode;
use crate::serve::Gateway;

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
pub struct ServeArgs {
    /// Serve one client on stdin/stdout.
    #[arg(long)]
    pub stdio: bool,
    /// Serve Streamable HTTP on ADDR (path /mcp); port 0 picks a free one. The URL is
    /// the first line on stderr.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// This client is NAME of [serve.clients]: its mode and budget apply. Without it
    /// the name the client declares is only a label (the default policy).
    #[arg(long, value_name = "NAME", requires = "stdio")]
    pub client: Option<String>,
    /// Decide in this mode instead of the configured one
    /// (read-only, ask, auto-edit, full-auto, plan).
    #[arg(long, value_name = "MODE")]
    pub approve: Option<Mode>,
}

pub fn run(cli: &Cli, args: &ServeArgs) -> color_eyre::Result<()> {
    run_to_exit(async {
        let dirs = Dirs::from_env();
        let (config, _) = match load_config(cli, &dirs) {
            Ok(c) => c,
            Err(code) => return code,
        };
        if let Some(name) = &args.client
            && !config.serve.clients.contains_key(name)
        {
            eprintln!(
                "serve: --client {}: there is no [serve.clients.{}] in the config",
                safe(name),
                safe(name)
            );
            return exit::USAGE;
        }
        // Nothing may print on stdout (the protocol's channel): no login pages.
        let workbench = match start_with_login(cli, &config, &dirs, args.approve, None).await {
            Ok(w) => w,
            Err(code) => return code,
        };
        let gateway = Arc::new(Gateway::new(&workbench));
        let code = match &args.http {
            Some(addr) => serve_http(&gateway, addr).await,
            None => serve_stdio(&gateway, args.client.as_deref()).await,
        };
        // The client's calls were cancelled as it left; let them finish first.
        gateway.idle(std::time::Duration::from_secs(3)).await;
        workbench.shutdown().await;
        code
    })
}

async fn serve_stdio(gateway: &Arc<Gateway>, client: Option<&str>) -> i32 {
    warn_unknown(gateway);
    match crate::serve::serve_stdio(Arc::clone(gateway), client).await {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("serve: {}", safe(&e.to_string()));
            exit::USAGE
        }
    }
}

/// Binds, prints the URL as the first line on stderr, serves until Ctrl-C or SIGTERM.
async fn serve_http(gateway: &Arc<Gateway>, addr: &str) -> i32 {
    let server = match crate::serve::HttpServer::bind(gateway, addr).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("serve: {e}");
            return exit::USAGE;
        }
    };
    eprintln!("{}", server.url());
    warn_unknown(gateway);
    let stop = tokio_util::sync::CancellationToken::new();
    let serving = tokio::spawn(server.serve(stop.clone()));
    shutdown_signal().await;
    stop.cancel();
    let _ = serving.await;
    exit::OK
}

pub(super) async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = async {
            match term.as_mut() {
                Some(t) => { t.recv().await; }
                None => std::future::pending::<()>().await,
            }
        } => {}
    }
}

fn warn_unknown(gateway: &Gateway) {
    for name in gateway.unknown_exposed() {
        eprintln!(
            "warning: [serve] expose names no configured server: {}",
            safe(&name)
        );
    }
}
