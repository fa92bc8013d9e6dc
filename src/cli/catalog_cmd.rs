//! `switchboard catalog`: every tool, resource, template and prompt of the servers.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde_json::{Value, json};

use super::Cli;
use super::declarations::{DeclarationFormat, declarations};
use super::mcp_session::{exit, json, load_config, print, run_to_exit, safe, start};
use super::servers_cmd::server_json;
use crate::config::{AnnotationTrust, Config};
use crate::llm::provider_name;
use crate::mcp::{
    Limits, QUALIFIER, ServerSnapshot, ServerStatus, qualified_name, tool_enabled, tool_spec,
};
use crate::paths::Dirs;
use crate::policy::Policy;

#[derive(Debug, Args)]
pub struct CatalogArgs {
    /// Only this server.
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// Print the callable tools as one provider's tool declarations.
    #[arg(long, value_name = "PROVIDER")]
    pub format: Option<DeclarationFormat>,
    /// Start the servers that start on demand and list them now (which refreshes
    /// their cache); without it they show their cached catalog and stay stopped.
    #[arg(long)]
    pub start: bool,
}

pub fn run(cli: &Cli, args: &CatalogArgs) -> color_eyre::Result<()> {
    run_to_exit(async {
        let dirs = Dirs::from_env();
        let (mut config, _) = match load_config(cli, &dirs) {
            Ok(c) => c,
            Err(code) => return code,
        };
        if let Some(name) = &args.server {
            if !config.servers.contains_key(name) {
                eprintln!("no MCP server named {}", safe(name));
                return exit::USAGE;
            }
            // Only the named server is started: the others can neither delay nor fail it.
            config.servers.retain(|n, _| n == name);
        }
        let workbench = match start(cli, &config, &dirs, None).await {
            Ok(w) => w,
            Err(code) => return code,
        };
        if args.start {
            start_idle(&workbench.hub);
        }
        let listed =
            |s: &ServerSnapshot| s.status.is_settled() && !(args.start && s.status.is_idle());
        // A server that asks for a login gets the time to do it.
        let deadline = tokio::time::Instant::now()
            + startup_deadline(&config)
            + workbench.hub.login_allowance();
        let servers = if args.format.is_none() && !args.json {
            stream_human(&config, &workbench, deadline, &listed).await
        } else {
            let _ = tokio::time::timeout_at(
                deadline,
                workbench
                    .hub
                    .subscribe()
                    .wait_for(|s| s.servers.iter().all(|s| listed(s))),
            )
            .await;
            workbench.sync_now().await;
            let snapshot = workbench.hub.snapshot();
            report_failures(&snapshot.servers);
            if let Some(format) = args.format {
                let prefix = args.server.as_ref().map(|s| format!("{s}{QUALIFIER}"));
                let specs: Vec<_> = workbench
                    .registry
                    .model_specs()
                    .into_iter()
                    .filter(|s| {
                        prefix
                            .as_ref()
                            .is_none_or(|p| s.name.starts_with(p.as_str()))
                    })
                    .collect();
                print(&json(&declarations(format, &specs)));
            } else {
                let all: Vec<Value> = snapshot
                    .servers
                    .iter()
                    .map(|s| catalog_json(&config, s))
                    .collect();
                print(&json(&json!({ "servers": all })));
            }
            snapshot.servers.clone()
        };
        let failed = servers
            .iter()
            .filter(|s| {
                !matches!(
                    s.status,
                    ServerStatus::Ready | ServerStatus::Disabled | ServerStatus::Idle { .. }
                )
            })
            .count();
        workbench.shutdown().await;
        if failed > 0 && (args.server.is_some() || failed == servers.len()) {
            exit::UNREACHABLE
        } else {
            exit::OK
        }
    })
}

/// `--start`: every server waiting to be used is started now.
fn start_idle(hub: &crate::mcp::McpHub) {
    for s in &hub.snapshot().servers {
        if s.status.is_idle() {
            let _ = hub.reconnect(&s.name);
        }
    }
}

/// How long `catalog` waits for the servers: the longest `startup_timeout` (connect
/// and `initialize` end by then) plus [`LIST_GRACE`] to list what they offer.
fn startup_deadline(config: &Config) -> Duration {
    config
        .servers
        .values()
        .map(|s| Limits::for_server(s).startup_timeout)
        .max()
        .unwrap_or_default()
        + LIST_GRACE
}

/// Time after the startup timeout for a server that answered to list its catalog.
const LIST_GRACE: Duration = Duration::from_secs(2);

fn report_failures(servers: &[Arc<ServerSnapshot>]) {
    for s in servers {
        match &s.status {
            ServerStatus::Failed { error, .. } => eprintln!("{}", safe(&error.to_string())),
            ServerStatus::NeedsLogin { reason } => eprintln!(
                "needs login: run `switchboard mcp login {}` ({})",
                safe(&s.name),
                safe(reason)
            ),
            _ => {}
        }
    }
}

/// Prints each server's section as soon as it is ready (or failed), in the order they
/// settle; at the deadline the ones still connecting are reported and skipped.
/// Returns the servers as they were printed.
async fn stream_human(
    config: &Config,
    workbench: &crate::workbench::Workbench,
    deadline: tokio::time::Instant,
    listed: &dyn Fn(&ServerSnapshot) -> bool,
) -> Vec<Arc<ServerSnapshot>> {
    let mut rx = workbench.hub.subscribe();
    let mut done: Vec<Arc<ServerSnapshot>> = Vec::new();
    let total = workbench.hub.names().len();
    if total == 0 {
        print(&human(config, &[]));
        return done;
    }
    loop {
        let snapshot = rx.borrow_and_update().clone();
        for s in &snapshot.servers {
            if listed(s) && !done.iter().any(|d| d.name == s.name) {
                report_failures(std::slice::from_ref(s));
                print(&human(config, &[s]));
                done.push(Arc::clone(s));
            }
        }
        if done.len() >= total {
            return done;
        }
        if tokio::time::timeout_at(deadline, rx.changed())
            .await
            .is_err()
        {
            break;
        }
    }
    for s in &workbench.hub.snapshot().servers {
        if !done.iter().any(|d| d.name == s.name) {
            eprintln!(
                "mcp_handshake_failed: server {} did not answer within its startup_timeout; skipped",
                safe(&s.name)
            );
            done.push(Arc::clone(s));
        }
    }
    done
}

fn effect_of(config: &Config, server: &str, tool: &crate::mcp::CatalogTool) -> String {
    let trust = config
        .servers
        .get(server)
        .and_then(|s| s.annotations)
        .unwrap_or(AnnotationTrust::Trust);
    let spec = tool_spec(server, tool, trust);
    Policy::from_config(&config.policy)
        .ok()
        .and_then(|p| p.effect_override(&spec.name))
        .unwrap_or(spec.default_effect)
        .to_string()
}

fn catalog_json(config: &Config, s: &ServerSnapshot) -> Value {
    let c = &s.catalog;
    let server_config = config.servers.get(&s.name);
    let tools: Vec<Value> = c
        .tools
        .iter()
        .map(|t| {
            let mut tool = json!({
                "name": t.name,
                "qualified_name": qualified_name(&s.name, &t.name),
                "provider_name": provider_name(&qualified_name(&s.name, &t.name)),
                "title": t.title,
                "description": t.description,
                "effect": effect_of(config, &s.name, t),
                "enabled": server_config.is_none_or(|sc| tool_enabled(sc, &t.name)),
                "input_schema": t.input_schema,
                "output_schema": t.output_schema,
                "annotations": t.annotations,
            });
            if let Some(uri) = t.ui_resource() {
                tool["ui"] = json!(uri);
            }
            if t.app_only() {
                tool["app_only"] = json!(true);
            }
            if let Some(task) = t.task {
                tool["task"] = json!(task);
            }
            tool
        })
        .collect();
    let mut out = server_json(s, &crate::agent::exposure::default_budget(config));
    out["tools"] = Value::Array(tools);
    out["resources"] = json!(c.resources);
    out["templates"] = json!(c.templates);
    out["prompts"] = json!(c.prompts);
    out["errors"] = json!(
        c.errors
            .iter()
            .map(|(k, e)| json!({"list": k, "error": e}))
            .collect::<Vec<_>>()
    );
    out
}

fn first_line(text: &str, max: usize) -> String {
    crate::mcp::untrusted(text.lines().next().unwrap_or(""), max)
}

fn human(config: &Config, servers: &[&Arc<ServerSnapshot>]) -> String {
    let mut out = String::new();
    for s in servers {
        let c = &s.catalog;
        let _ = writeln!(
            out,
            "{} ({}, {}): {} tools, {} resources, {} templates, {} prompts",
            safe(&s.name),
            s.status.label(),
            s.transport,
            c.tools.len(),
            c.resources.len(),
            c.templates.len(),
            c.prompts.len()
        );
        if let Some(note) = s.idle_note(std::time::SystemTime::now()) {
            let _ = writeln!(out, "  {}", safe(&note));
        }
        human_tools(&mut out, config, s);
        human_rest(&mut out, s);
    }
    if servers.is_empty() {
        out.push_str("no MCP servers configured\n");
    }
    out
}

/// Columns as wide as their longest entry (capped), so long names stay aligned.
fn column_width(names: &mut dyn Iterator<Item = String>) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(8, 56)
}

/// A server's tools: name, effect, whether disabled, the first line of the
/// description, and the name models see when it differs.
fn human_tools(out: &mut String, config: &Config, s: &ServerSnapshot) {
    let c = &s.catalog;
    if !c.tools.is_empty() {
        out.push_str("  tools:\n");
    }
    let width = column_width;
    let w = width(
        &mut c
            .tools
            .iter()
            .map(|t| safe(&qualified_name(&s.name, &t.name))),
    );
    for t in &c.tools {
        let enabled = config
            .servers
            .get(&s.name)
            .is_none_or(|sc| tool_enabled(sc, &t.name));
        let _ = writeln!(
            out,
            "    {:<w$} {:<8}{}{}{} {}",
            safe(&qualified_name(&s.name, &t.name)),
            effect_of(config, &s.name, t),
            if enabled { "" } else { " (disabled)" },
            match (t.ui_resource(), t.app_only()) {
                (Some(_), true) => " (ui, app only)",
                (Some(_), false) => " (ui)",
                (None, true) => " (app only)",
                (None, false) => "",
            },
            match t.task {
                Some(crate::mcp::TaskMode::Required) => " (task)",
                Some(crate::mcp::TaskMode::Optional) => " (task if --no-wait)",
                None => "",
            },
            first_line(&t.description, 80)
        );
        let qualified = qualified_name(&s.name, &t.name);
        let wire = provider_name(&qualified);
        if wire != qualified && !t.app_only() {
            let _ = writeln!(out, "      declared to models as {}", safe(&wire));
        }
    }
}

/// A server's resources, templates and prompts, then what it failed to list or
/// what was refused.
fn human_rest(out: &mut String, s: &ServerSnapshot) {
    let c = &s.catalog;
    let width = column_width;
    if !c.resources.is_empty() {
        out.push_str("  resources:\n");
    }
    let w = width(&mut c.resources.iter().map(|r| safe(&r.uri)));
    let mw = width(
        &mut c
            .resources
            .iter()
            .map(|r| safe(r.mime_type.as_deref().unwrap_or(""))),
    );
    for r in &c.resources {
        let mime = r.mime_type.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "    {:<w$} {:<mw$} {}",
            safe(&r.uri),
            safe(mime),
            safe(&r.name)
        );
    }
    if !c.templates.is_empty() {
        out.push_str("  templates:\n");
    }
    let w = width(&mut c.templates.iter().map(|t| safe(&t.uri_template)));
    for t in &c.templates {
        let _ = writeln!(out, "    {:<w$} {}", safe(&t.uri_template), safe(&t.name));
    }
    if !c.prompts.is_empty() {
        out.push_str("  prompts:\n");
    }
    let signatures: Vec<String> = c
        .prompts
        .iter()
        .map(|p| {
            let args: Vec<String> = p
                .arguments
                .iter()
                .map(|a| {
                    if a.required {
                        safe(&a.name)
                    } else {
                        format!("[{}]", safe(&a.name))
                    }
                })
                .collect();
            format!("{}({})", safe(&p.name), args.join(", "))
        })
        .collect();
    let w = width(&mut signatures.iter().cloned());
    for (p, signature) in c.prompts.iter().zip(&signatures) {
        let desc = p.description.as_deref().unwrap_or("");
        let _ = writeln!(out, "    {signature:<w$} {}", first_line(desc, 60));
    }
    for (kind, error) in &c.errors {
        let _ = writeln!(out, "  ! {}: {}", kind.as_str(), safe(error));
    }
    for (name, reason) in &c.refused {
        let _ = writeln!(out, "  ! refused: {} — {}", safe(name), safe(reason));
    }
}
