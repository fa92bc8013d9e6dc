//! `switchboard task get|cancel SERVER ID`: a task a server runs for a call (the MCP
//! tasks extension), e.g. one started with `call --no-wait`.

use clap::Subcommand;
use serde_json::json;

use super::Cli;
use super::mcp_session::{exit, exit_code, json, print, run_to_exit, safe, with_ready_server};

#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Show a task's status (`tasks/get`); its result once completed.
    Get {
        server: String,
        id: String,
        /// Print the whole answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Ask the server to cancel a task (`tasks/cancel`).
    Cancel { server: String, id: String },
}

pub fn run(cli: &Cli, command: &TaskCommand) -> color_eyre::Result<()> {
    run_to_exit(async {
        match command {
            TaskCommand::Get {
                server,
                id,
                json: as_json,
            } => {
                with_ready_server(cli, server, async |workbench| {
                    match workbench.hub.get_task(server, id).await {
                        Ok(view) if *as_json => {
                            print(&json(&json!({
                                "server": view.server,
                                "taskId": view.task_id,
                                "status": view.status,
                                "statusMessage": view.status_message,
                                "ttlMs": view.ttl_ms,
                                "pollIntervalMs": view.poll_interval_ms,
                                "task": view.wire,
                            })));
                            exit::OK
                        }
                        Ok(view) => {
                            let message = view
                                .status_message
                                .map(|m| format!(": {}", safe(&m)))
                                .unwrap_or_default();
                            print(&format!(
                                "task {} {}{message}\n",
                                safe(&view.task_id),
                                view.status
                            ));
                            if let Some(result) = view.wire.get("result") {
                                print(&json(result));
                            }
                            exit::OK
                        }
                        Err(e) => {
                            eprintln!("{}", safe(&e.to_string()));
                            exit_code(&e)
                        }
                    }
                })
                .await
            }
            TaskCommand::Cancel { server, id } => {
                with_ready_server(cli, server, async |workbench| {
                    match workbench.hub.cancel_task(server, id).await {
                        Ok(()) => {
                            print(&format!(
                                "asked {} to cancel task {}\n",
                                safe(server),
                                safe(id)
                            ));
                            exit::OK
                        }
                        Err(e) => {
                            eprintln!("{}", safe(&e.to_string()));
                            exit_code(&e)
                        }
                    }
                })
                .await
            }
        }
    })
}
