//! `switchboard catalog`: every tool, resource, template and prompt of the servers.

use std::fmt::Write as _;
use std::sync::Arc;

use clap::Args;
use serde_json::{Value, json};

use super::Cli;
use super::declarations::{DeclarationFormat, declarations};
use super::mcp_session::{exit, json, load_config, print, run_to_exit, safe, start};
use super::servers_cmd::server_json;
use crate::config::{AnnotationTrust, Config};
use crate::mcp::{
    QUALIFIER, ServerSnapshot, ServerStatus, qualified_name, tool_enabled, tool_spec,
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
}

pub fn run(cli: &Cli, args: &CatalogArgs) -> color_eyre::Result<()> {
    run_to_exit(async {
        let dirs = Dirs::from_env();
        let (config, _) = match load_config(cli, &dirs) {
            Ok(c) => c,
            Err(code) => return code,
        };
        if let Some(name) = &args.server
            && !config.servers.contains_key(name)
        {
            eprintln!("no MCP server named {}", safe(name));
            return exit::USAGE;
        }
        let workbench = match start(cli, &config, &dirs, None).await {
            Ok(w) => w,
            Err(code) => return code,
        };
        let snapshot = workbench.settle().await;
        let servers: Vec<&Arc<ServerSnapshot>> = snapshot
            .servers
            .iter()
            .filter(|s| args.server.as_ref().is_none_or(|n| *n == s.name))
            .collect();
        for s in &servers {
            if let ServerStatus::Failed { error, .. } = &s.status {
                eprintln!("{}", safe(&error.to_string()));
            }
        }
        if let Some(format) = args.format {
            let prefix = args.server.as_ref().map(|s| format!("{s}{QUALIFIER}"));
            let specs: Vec<_> = workbench
                .registry
                .specs()
                .into_iter()
                .filter(|s| {
                    prefix
                        .as_ref()
                        .is_none_or(|p| s.name.starts_with(p.as_str()))
                })
                .collect();
            print(&json(&declarations(format, &specs)));
        } else if args.json {
            let all: Vec<Value> = servers.iter().map(|s| catalog_json(&config, s)).collect();
            print(&json(&json!({ "servers": all })));
        } else {
            print(&human(&config, &servers));
        }
        let failed = servers
            .iter()
            .filter(|s| matches!(s.status, ServerStatus::Failed { .. }))
            .count();
        workbench.shutdown().await;
        if failed > 0 && (args.server.is_some() || failed == servers.len()) {
            exit::UNREACHABLE
        } else {
            exit::OK
        }
    })
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
            json!({
                "name": t.name,
                "qualified_name": qualified_name(&s.name, &t.name),
                "title": t.title,
                "description": t.description,
                "effect": effect_of(config, &s.name, t),
                "enabled": server_config.is_none_or(|sc| tool_enabled(sc, &t.name)),
                "input_schema": t.input_schema,
                "output_schema": t.output_schema,
                "annotations": t.annotations,
            })
        })
        .collect();
    let mut out = server_json(s);
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
        if !c.tools.is_empty() {
            out.push_str("  tools:\n");
        }
        // Columns as wide as their longest entry (capped), so long names stay aligned.
        let width = |names: &mut dyn Iterator<Item = String>| {
            names
                .map(|n| n.chars().count())
                .max()
                .unwrap_or(0)
                .clamp(8, 56)
        };
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
                "    {:<w$} {:<8}{} {}",
                safe(&qualified_name(&s.name, &t.name)),
                effect_of(config, &s.name, t),
                if enabled { "" } else { " (disabled)" },
                first_line(&t.description, 80)
            );
        }
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
    }
    if servers.is_empty() {
        out.push_str("no MCP servers configured\n");
    }
    out
}
