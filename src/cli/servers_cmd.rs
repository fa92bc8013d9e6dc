//! `switchboard servers`: every configured MCP server, its status and catalog size;
//! exit 3 when any enabled server failed to start.

use std::fmt::Write as _;

use serde_json::json;

use super::Cli;
use super::mcp_session::{exit, json, load_config, print, run_to_exit, safe, start_with_login};
use crate::agent::exposure::{ToolBudget, catalog_size, default_budget};
use crate::llm::DeclarationShape;
use crate::mcp::{ServerSnapshot, ServerStatus};
use crate::paths::Dirs;

pub fn run(cli: &Cli, as_json: bool) -> color_eyre::Result<()> {
    run_to_exit(async {
        // A status report: servers that want a login show `needs login`, no browser.
        let dirs = Dirs::from_env();
        let workbench = match load_config(cli, &dirs) {
            Ok((config, _)) => start_with_login(cli, &config, &dirs, None, None).await,
            Err(code) => Err(code),
        };
        let workbench = match workbench {
            Ok(w) => w,
            Err(code) => return code,
        };
        let snapshot = workbench.settle().await;
        let budget = default_budget(&workbench.config);
        if as_json {
            let servers: Vec<_> = snapshot
                .servers
                .iter()
                .map(|s| server_json(s, &budget))
                .collect();
            print(&json(&json!({ "servers": servers })));
        } else if snapshot.servers.is_empty() {
            print("no MCP servers configured (add [servers.NAME] or use --mcp-config FILE)\n");
        } else {
            print(&table(&snapshot.servers, &budget));
        }
        workbench.shutdown().await;
        // Scripts check the status: any server that could not start (or was lost) is
        // a failure; a disabled one is not.
        let failed = snapshot.servers.iter().any(|s| {
            matches!(
                s.status,
                ServerStatus::Failed { .. } | ServerStatus::Disconnected { .. }
            )
        });
        if failed { exit::UNREACHABLE } else { exit::OK }
    })
}

pub fn status_detail(server: &ServerSnapshot) -> String {
    match &server.status {
        ServerStatus::Ready => server.info.as_ref().map_or_else(String::new, |i| {
            format!(
                "{} {} (protocol {}, {})",
                i.name,
                i.version,
                i.protocol_version,
                era_label(i.era)
            )
        }),
        ServerStatus::Failed { error, .. } => error.to_string(),
        ServerStatus::Disconnected { reason } => reason.clone(),
        ServerStatus::Connecting { attempt } => format!("attempt {attempt}"),
        ServerStatus::Disabled => "enabled = false".into(),
        ServerStatus::NeedsLogin { reason } => {
            format!("{reason}; run `switchboard mcp login {}`", server.name)
        }
        ServerStatus::Idle { .. } => server
            .idle_note(std::time::SystemTime::now())
            .unwrap_or_default(),
    }
}

/// How the era reads in the table: the 2026-07-28 generation has no session.
pub fn era_label(era: &str) -> &'static str {
    if era == "2026-07-28" {
        "stateless"
    } else {
        "session"
    }
}

fn table(servers: &[std::sync::Arc<ServerSnapshot>], budget: &ToolBudget) -> String {
    // As wide as the longest status (`on demand (not started)`), so columns line up.
    let w = servers
        .iter()
        .map(|s| s.status.label().chars().count())
        .max()
        .unwrap_or(0)
        .max(12);
    let mut out = format!(
        "{:<16} {:<w$} {:<6} {:>5} {:>6} {:>5} {:>5} {:>5}  {}\n",
        "SERVER", "STATUS", "TYPE", "TOOLS", "TOK", "RES", "TPL", "PROMPT", "DETAIL"
    );
    for s in servers {
        let c = &s.catalog;
        let _ = writeln!(
            out,
            "{:<16} {:<w$} {:<6} {:>5} {:>6} {:>5} {:>5} {:>5}  {}",
            safe(&s.name),
            s.status.label(),
            s.transport.as_str(),
            c.tools.len(),
            crate::llm::token_estimate::short(tool_tokens(s, budget) as u64),
            c.resources.len(),
            c.templates.len(),
            c.prompts.len(),
            safe(&status_detail(s))
        );
    }
    out
}

/// Estimated tokens of the server's tool declarations as `budget`'s provider gets
/// them.
fn tool_tokens(s: &ServerSnapshot, budget: &ToolBudget) -> usize {
    catalog_size(&s.name, &s.catalog.tools).tokens(DeclarationShape::of_kind(&budget.kind))
}

/// A server's status as JSON; `tool_tokens` weighs its tool declarations for the
/// provider of `budget` (the default provider).
pub fn server_json(s: &ServerSnapshot, budget: &ToolBudget) -> serde_json::Value {
    json!({
        "name": s.name,
        "status": s.status.label(),
        "transport": s.transport,
        "target": s.target,
        "sandboxed": s.sandboxed,
        "detail": status_detail(s),
        "era": s.info.as_ref().map(|i| i.era),
        "info": s.info.as_deref(),
        "generation": s.generation,
        "counts": {
            "tools": s.catalog.tools.len(),
            "resources": s.catalog.resources.len(),
            "templates": s.catalog.templates.len(),
            "prompts": s.catalog.prompts.len(),
        },
        "tool_tokens": tool_tokens(s, budget),
        "tool_tokens_for": budget.kind,
        "refused": s.catalog.refused.iter()
            .map(|(name, reason)| json!({"name": name, "reason": reason}))
            .collect::<Vec<_>>(),
        "cached": s.catalog.cached_summary(std::time::SystemTime::now()),
        "catalog_cached_at_ms": s.catalog.cached_at.and_then(|at| {
            at.duration_since(std::time::UNIX_EPOCH).ok().map(|d| d.as_millis())
        }),
        "error": s.last_error.as_ref().map(ToString::to_string),
        "stderr_tail": s.stderr_tail.as_slice(),
    })
}
