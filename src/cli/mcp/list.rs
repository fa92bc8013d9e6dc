//! `switchboard mcp list` (the configured servers) and `mcp get NAME` (one server's
//! config and its live status, as `switchboard servers` reports it).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::json;

use super::manage::{Scope, target};
use crate::cli::Cli;
use crate::cli::mcp_session::{self, exit, print, run_to_exit_code, safe};
use crate::cli::servers_cmd::{server_json, status_detail};
use crate::config::{self, Config, ServerConfig, import};
use crate::mcp::{Endpoint, ServerStatus};
use crate::paths::Dirs;

/// The servers to show and the file they come from: with `--scope` that file alone,
/// else what every command loads (the config file and `--mcp-config` files).
fn servers(
    cli: &Cli,
    dirs: &Dirs,
    scope: Option<Scope>,
    named: Option<&str>,
) -> Result<(Config, Option<PathBuf>), i32> {
    let Some(scope) = scope else {
        return mcp_session::load_config_naming(cli, dirs, named, None);
    };
    let path = target(cli, dirs, Some(scope));
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            return Err(exit::USAGE);
        }
    };
    match crate::settings::parse_str(&text, &path) {
        Ok(config) => Ok((config, Some(path))),
        Err(e) => {
            eprintln!("{e}");
            Err(exit::USAGE)
        }
    }
}

fn kind(server: &ServerConfig) -> &str {
    Endpoint::from_config(server).map_or_else(
        |_| server.transport.as_deref().unwrap_or("?"),
        |e| e.kind().as_str(),
    )
}

/// The command line or the URL.
fn target_of(server: &ServerConfig) -> String {
    if let Some(url) = &server.url {
        return url.clone();
    }
    let words = server
        .command
        .iter()
        .chain(&server.args)
        .map(String::as_str);
    shlex::try_join(words).unwrap_or_default()
}

pub fn list(cli: &Cli, dirs: &Dirs, scope: Option<Scope>, as_json: bool) -> i32 {
    let (config, file) = match servers(cli, dirs, scope, None) {
        Ok(found) => found,
        Err(code) => return code,
    };
    if as_json {
        let servers: Vec<_> = config
            .servers
            .iter()
            .map(|(name, s)| {
                json!({
                    "name": name,
                    "type": kind(s),
                    "enabled": s.enabled.unwrap_or(true),
                    "target": target_of(s),
                })
            })
            .collect();
        print(&mcp_session::json(
            &json!({ "file": file, "servers": servers }),
        ));
        return exit::OK;
    }
    let from = file.map_or_else(|| "no config file".to_owned(), |f| f.display().to_string());
    if config.servers.is_empty() {
        print(&format!("no MCP servers configured ({from})\n"));
        return exit::OK;
    }
    let mut out = format!(
        "# {from}\n{:<16} {:<6} {:<8} TARGET\n",
        "SERVER", "TYPE", "ENABLED"
    );
    for (name, s) in &config.servers {
        let enabled = if s.enabled == Some(false) {
            "no"
        } else {
            "yes"
        };
        let _ = writeln!(
            out,
            "{:<16} {:<6} {:<8} {}",
            safe(name),
            safe(kind(s)),
            enabled,
            safe(&target_of(s))
        );
    }
    print(&out);
    exit::OK
}

/// `server` with literal secrets in headers and `env` shown as `****`.
fn masked(name: &str, server: &ServerConfig) -> ServerConfig {
    let secrets = import::secrets::literal_secrets(name, server);
    let mask = |table: &str, values: &BTreeMap<String, String>| {
        values
            .iter()
            .map(|(k, v)| {
                let secret = secrets.contains(&format!("servers.{name}.{table}.{k}"));
                (k.clone(), if secret { "****".into() } else { v.clone() })
            })
            .collect()
    };
    ServerConfig {
        headers: mask("headers", &server.headers),
        env: mask("env", &server.env),
        ..server.clone()
    }
}

pub fn get(cli: &Cli, dirs: &Dirs, name: &str, scope: Option<Scope>, as_json: bool) -> i32 {
    let (mut config, file) = match servers(cli, dirs, scope, Some(name)) {
        Ok(found) => found,
        Err(code) => return code,
    };
    let Some(server) = config.servers.get(name).map(|s| masked(name, s)) else {
        eprintln!("no MCP server named {}", safe(name));
        return exit::USAGE;
    };
    config.servers.retain(|n, _| n == name);
    run_to_exit_code(async move {
        // A status report: a server that wants a login shows `needs login`.
        let workbench = match mcp_session::start_with_login(cli, &config, dirs, None, None).await {
            Ok(w) => w,
            Err(code) => return code,
        };
        workbench.settle_server(name).await;
        let snapshot = workbench.hub.snapshot();
        workbench.shutdown().await;
        let Some(live) = snapshot.server(name) else {
            return exit::USAGE;
        };
        if as_json {
            print(&mcp_session::json(&json!({
                "name": name,
                "file": file,
                "config": server,
                "status": server_json(live, &crate::agent::exposure::default_budget(&config)),
            })));
        } else {
            let entry = config::edit::add_server("", name, &server).unwrap_or_default();
            let from = file.map_or_else(String::new, |f| format!("# {}\n", f.display()));
            let c = &live.catalog;
            print(&format!(
                "{from}{}\nstatus: {} {}\ncatalog: {} tools, {} resources, {} templates, {} prompts\n",
                crate::sanitize::sanitize_keep_tabs(&entry),
                live.status.label(),
                safe(&status_detail(live)),
                c.tools.len(),
                c.resources.len(),
                c.templates.len(),
                c.prompts.len(),
            ));
        }
        match live.status {
            ServerStatus::Failed { .. } | ServerStatus::Disconnected { .. } => exit::UNREACHABLE,
            _ => exit::OK,
        }
    })
}
