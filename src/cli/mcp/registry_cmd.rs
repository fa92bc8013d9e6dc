//! `switchboard mcp search QUERY` and `switchboard mcp install NAME`: the MCP
//! Registry (`crate::registry`) from the command line. Install asks for what the entry
//! needs, shows what it will write, and writes through `mcp add`'s editor.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::SystemTime;

use clap::Args;

use super::manage::{self, Scope};
use crate::cli::Cli;
use crate::cli::mcp_session::{ask, exit, json, load_config, print, safe};
use crate::paths::Dirs;
use crate::registry::search::cut;
use crate::registry::{self, Answers, Client, Flag, Plan, Question, RegistryError, Status};

/// The longest description or title a result line shows.
const SHOWN_CHARS: usize = 70;

#[derive(Debug, Clone, Args)]
pub struct RegistryArg {
    /// The registry to read (default: `[mcp] registry`, else the official one).
    #[arg(long, value_name = "URL")]
    pub registry: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct SearchArgs {
    /// Words to look for in names, titles and descriptions (none: everything).
    #[arg(value_name = "QUERY")]
    pub query: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Show at most this many servers.
    #[arg(long, default_value_t = 30)]
    pub limit: usize,
    #[command(flatten)]
    pub registry: RegistryArg,
}

#[derive(Debug, Clone, Args)]
pub struct InstallArgs {
    /// The server's registry name, `namespace/name` (as `mcp search` shows it).
    pub name: String,
    /// The `[servers.NAME]` key (default: the part of the name after `/`).
    #[arg(long = "name", value_name = "KEY")]
    pub key: Option<String>,
    /// The file to write: `user` ($XDG_CONFIG_HOME/switchboard/config.toml) or
    /// `project` (./switchboard.toml).
    #[arg(long, value_enum, default_value = "user")]
    pub scope: Scope,
    /// Write without asking; a required value with no default must then be given.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// An environment variable the entry asks for, `NAME=VALUE` (repeatable).
    #[arg(short = 'e', long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// An argument, header or variable the entry asks for, `NAME=VALUE` (repeatable).
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub args: Vec<String>,
    /// Run a package locally even when the server is also hosted (a remote).
    #[arg(long)]
    pub package: bool,
    #[command(flatten)]
    pub registry: RegistryArg,
}

/// The registry to use, or the exit status when the config does not load.
fn client(cli: &Cli, dirs: &Dirs, given: &RegistryArg) -> Result<Client, i32> {
    let url = match &given.registry {
        Some(url) => url.clone(),
        None => load_config(cli, dirs)?.0.mcp.registry,
    };
    Client::new(&url).map_err(|e| {
        eprintln!("{}", safe(&e.to_string()));
        exit::USAGE
    })
}

fn registry_failed(e: &RegistryError) -> i32 {
    eprintln!("{}", safe(&e.to_string()));
    match e {
        RegistryError::Unreachable { .. }
        | RegistryError::Status { .. }
        | RegistryError::Decode { .. }
        | RegistryError::TooManyPages { .. } => exit::UNREACHABLE,
        RegistryError::BadUrl { .. }
        | RegistryError::NotFound { .. }
        | RegistryError::Cache { .. } => exit::USAGE,
    }
}

pub async fn search(cli: &Cli, args: &SearchArgs) -> i32 {
    let dirs = Dirs::from_env();
    let client = match client(cli, &dirs, &args.registry) {
        Ok(client) => client,
        Err(code) => return code,
    };
    let query = args.query.join(" ");
    let now = SystemTime::now();
    let found = match registry::find(&client, &dirs.registry_cache_dir(), &query, now).await {
        Ok(found) => found,
        Err(e) => return registry_failed(&e),
    };
    let cached = found.stale.as_ref().map(|(age, error)| {
        let age = registry::cache::age_text(*age);
        eprintln!("{}", safe(&error.to_string()));
        eprintln!("note: these results are from the list cached {age} ago");
        (age, error.to_string())
    });
    let shown = found.servers.iter().take(args.limit);
    if args.json {
        let servers: Vec<serde_json::Value> = shown.map(summary).collect();
        let cached = cached.map(|(age, error)| serde_json::json!({"age": age, "error": error}));
        print(&json(&serde_json::json!({
            "registry": client.url(),
            "cached": cached,
            "servers": servers,
        })));
        return exit::OK;
    }
    if found.servers.is_empty() {
        eprintln!(
            "no server in the registry at {} matches {}",
            client.url(),
            safe(&query)
        );
        return exit::OK;
    }
    print(&lines(shown));
    if found.servers.len() > args.limit {
        eprintln!(
            "{} more; narrow the query or pass --limit",
            found.servers.len() - args.limit
        );
    }
    exit::OK
}

/// One entry as `search --json` prints it.
fn summary(entry: &registry::ServerResponse) -> serde_json::Value {
    let server = &entry.server;
    serde_json::json!({
        "name": server.name,
        "version": server.version,
        "title": server.title,
        "description": server.description,
        "status": entry.status(),
        "installs_as": registry::search::installs_as(entry),
        "website_url": server.website_url,
    })
}

/// A line per server: name, version, what it installs as, `deprecated`, and its
/// title or description cut to fit; every field sanitized.
fn lines<'a>(entries: impl Iterator<Item = &'a registry::ServerResponse>) -> String {
    let rows: Vec<[String; 4]> = entries
        .map(|entry| {
            let server = &entry.server;
            let mut about = registry::search::about(server);
            about = cut(&safe(&about), SHOWN_CHARS);
            if entry.status() == Status::Deprecated {
                about = format!("(deprecated) {about}");
            }
            [
                safe(&server.name),
                safe(&server.version),
                registry::search::installs_as(entry).to_owned(),
                about,
            ]
        })
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0).min(60), width(1).min(16), width(2));
    let mut out = String::new();
    for [name, version, kind, about] in &rows {
        let line = format!("{name:<w0$}  {version:<w1$}  {kind:<w2$}  {about}");
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

pub async fn install(cli: &Cli, args: &InstallArgs) -> i32 {
    let dirs = Dirs::from_env();
    let client = match client(cli, &dirs, &args.registry) {
        Ok(client) => client,
        Err(code) => return code,
    };
    let entry = match client.latest(&args.name).await {
        Ok(entry) => entry,
        Err(e) => {
            let code = registry_failed(&e);
            if matches!(e, RegistryError::NotFound { .. }) && !args.name.contains('/') {
                eprintln!(
                    "hint: give the full name, `namespace/name`, as `switchboard mcp search` shows it"
                );
            }
            return code;
        }
    };
    match entry.status() {
        Status::Deleted => {
            eprintln!(
                "{} was deleted from the registry; it is not installed",
                safe(&args.name)
            );
            return exit::USAGE;
        }
        Status::Deprecated => eprintln!("note: {} is deprecated in the registry", safe(&args.name)),
        Status::Active | Status::Other => {}
    }
    let key = args
        .key
        .clone()
        .unwrap_or_else(|| registry::plan::config_name(&entry.server.name));
    let path = manage::target(cli, &dirs, Some(args.scope));
    if crate::config_write::configured(&path, &key) {
        eprintln!(
            "a server named `{}` is already configured in {}; pick another name with --name KEY",
            safe(&key),
            path.display()
        );
        return exit::USAGE;
    }
    let plan = match plan_for(&entry.server, args) {
        Ok(plan) => plan,
        Err(message) => {
            eprintln!("mcp install {}: {}", safe(&args.name), safe(&message));
            return exit::USAGE;
        }
    };
    let shown = describe(&entry.server, &plan, client.url());
    print(&format!(
        "{shown}writes [servers.{}] in {}\n",
        safe(&key),
        path.display()
    ));
    if !args.yes && !confirm() {
        return exit::USAGE;
    }
    // `mcp add` notes each `${VAR}` not set now.
    manage::add(cli, &dirs, &key, &plan.server, Some(args.scope), Vec::new())
}

/// `Write it? [y/N]` on a terminal; without one, `--yes` is needed.
fn confirm() -> bool {
    let Some(answer) = ask("Write it? [y/N] ") else {
        eprintln!("no terminal to ask on: pass --yes to install without asking");
        return false;
    };
    matches!(answer.as_str(), "y" | "Y" | "yes" | "Yes")
}

/// The entry's plan with the values given as flags, asked on a terminal (unless
/// `--yes`), or their defaults. The error is the message to print.
fn plan_for(server: &registry::ServerJson, args: &InstallArgs) -> Result<Plan, String> {
    let choice = registry::plan::choose(server, args.package).map_err(|e| e.to_string())?;
    let mut answers = given(&args.env, Flag::Env)?;
    answers.extend(given(&args.args, Flag::Arg)?);
    let questions = registry::plan::questions(choice).map_err(|e| e.to_string())?;
    let asked: BTreeSet<(Flag, String)> =
        questions.iter().map(|q| (q.flag, q.key.clone())).collect();
    for (flag, key) in answers.keys() {
        if !asked.contains(&(*flag, key.clone())) {
            return Err(format!(
                "{} {key}: the entry does not ask for it (a secret is never written: export it instead)",
                flag.as_str()
            ));
        }
    }
    if !args.yes {
        for question in &questions {
            let at = (question.flag, question.key.clone());
            if answers.contains_key(&at) {
                continue;
            }
            if let Some(value) = prompt(question) {
                answers.insert(at, value);
            }
        }
    }
    registry::plan::build(choice, &answers).map_err(|e| e.to_string())
}

/// `NAME=VALUE` flags as answers.
fn given(items: &[String], flag: Flag) -> Result<Answers, String> {
    items
        .iter()
        .map(|item| {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| format!("{} {}: expected NAME=VALUE", flag.as_str(), safe(item)))?;
            Ok(((flag, k.trim().to_owned()), v.to_owned()))
        })
        .collect()
}

/// Asks one question on the terminal; a required one without a default is asked
/// until answered. `None`: take the default (or leave it out).
fn prompt(question: &Question) -> Option<String> {
    let mut text = safe(&question.what);
    if let Some(description) = &question.description {
        let _ = write!(text, " ({})", cut(&safe(description), SHOWN_CHARS));
    }
    if !question.choices.is_empty() {
        let choices: Vec<String> = question.choices.iter().map(|c| safe(c)).collect();
        let _ = write!(text, ", one of {}", choices.join(", "));
    }
    match &question.default {
        Some(default) => {
            let _ = write!(text, " [{}]", safe(default));
        }
        None if question.required => text.push_str(" (required)"),
        None => text.push_str(" (optional)"),
    }
    text.push_str(": ");
    loop {
        let answer = ask(&text)?;
        if !answer.is_empty() {
            return Some(answer);
        }
        if !question.required || question.default.is_some() {
            return None;
        }
    }
}

/// What will be written: the command line (or URL), its environment or headers, and
/// the secrets to export.
fn describe(server: &registry::ServerJson, plan: &Plan, registry: &str) -> String {
    let mut out = format!(
        "{} {} ({}) from the registry at {registry}:\n",
        safe(&server.name),
        safe(&server.version),
        plan.source,
    );
    for line in plan.shown() {
        let _ = writeln!(out, "  {}", safe(&line));
    }
    for secret in &plan.secrets {
        let set = if std::env::var_os(&secret.var).is_some() {
            "set now"
        } else {
            "not set now"
        };
        let about = secret
            .description
            .as_deref()
            .map(|d| format!(": {}", cut(&safe(d), SHOWN_CHARS)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  secret: ${{{}}} is read from the environment when the server starts ({set}){about}",
            secret.var
        );
    }
    out
}
