//! `switchboard mcp add | add-json | remove | enable | disable`: edit `[servers.NAME]`
//! in the config file in place (comments and layout kept, see `config::edit`), refuse
//! what the config loader would refuse with its `file:line:col` errors, and write the
//! file atomically only when the edited text loads. `list` and `get` are in `list`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};

use crate::cli::Cli;
use crate::cli::mcp_session::{exit, print, safe};
use crate::config::{ServerConfig, edit, import};
use crate::config_write;
use crate::paths::Dirs;

#[derive(Debug, Subcommand)]
pub enum ManageCommand {
    /// Add a server: `mcp add NAME -- COMMAND ARGS…` (stdio) or
    /// `mcp add NAME --url URL` (Streamable HTTP; `--transport sse` for legacy SSE).
    Add(AddArgs),
    /// Add a server from a JSON entry as Claude Desktop, Claude Code, VS Code, Cursor
    /// or Codex write it (or a whole file's object holding it).
    AddJson {
        name: String,
        /// The entry, e.g. `{"command":"npx","args":["-y","pkg"]}`.
        json: String,
        #[command(flatten)]
        scope: ScopeArg,
    },
    /// List the configured servers (`switchboard servers` shows their live status).
    List {
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        scope: ScopeArg,
    },
    /// One server's config and its live status.
    Get {
        name: String,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        scope: ScopeArg,
    },
    /// Remove a server from the config file.
    Remove {
        name: String,
        #[command(flatten)]
        scope: ScopeArg,
    },
    /// Set `enabled = true` on a server.
    Enable {
        name: String,
        #[command(flatten)]
        scope: ScopeArg,
    },
    /// Set `enabled = false` on a server (it stays configured, not started).
    Disable {
        name: String,
        #[command(flatten)]
        scope: ScopeArg,
    },
}

/// Which file to edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    /// `$XDG_CONFIG_HOME/switchboard/config.toml`.
    User,
    /// `./switchboard.toml`.
    Project,
}

#[derive(Debug, Clone, Args)]
pub struct ScopeArg {
    /// `user` ($XDG_CONFIG_HOME/switchboard/config.toml) or `project`
    /// (./switchboard.toml); default: the file in use (`--config`, else the first
    /// found in the search order), else the user's.
    #[arg(long, value_enum)]
    pub scope: Option<Scope>,
}

#[derive(Debug, Clone, Args)]
pub struct AddArgs {
    pub name: String,
    /// The server's URL (an HTTP server).
    #[arg(long, conflicts_with = "command")]
    pub url: Option<String>,
    /// `stdio`, `http` or `sse` (default: stdio with a command, http with a URL).
    #[arg(long, value_name = "TYPE")]
    pub transport: Option<String>,
    /// An HTTP header, `K=V` (repeatable); write secrets as `${VAR}`.
    #[arg(long = "header", value_name = "K=V")]
    pub headers: Vec<String>,
    /// Send `Authorization: Bearer $VAR` (the variable's value, read at start).
    #[arg(long, value_name = "VAR")]
    pub bearer_env: Option<String>,
    /// An environment variable for the process, `K=V` (repeatable).
    #[arg(short = 'e', long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    #[command(flatten)]
    pub scope: ScopeArg,
    /// The command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

pub fn run(cli: &Cli, command: &ManageCommand) {
    let dirs = Dirs::from_env();
    let code = match command {
        ManageCommand::Add(args) => match server_of(args) {
            Ok(server) => add(
                cli,
                &dirs,
                &args.name,
                &server,
                args.scope.scope,
                Vec::new(),
            ),
            Err(message) => usage(&message),
        },
        ManageCommand::AddJson { name, json, scope } => {
            let env = |name: &str| std::env::var(name).ok();
            match import::import_entry(name, json, &env, &import::Headless) {
                Ok(entry) => {
                    let note = format!("read as a {} entry", entry.format);
                    let mut warnings = entry.warnings;
                    warnings.retain(|w| !w.contains("a literal secret"));
                    warnings.push(note);
                    add(cli, &dirs, name, &entry.server, scope.scope, warnings)
                }
                Err(e) => usage(&format!(
                    "add-json {}: {}",
                    safe(name),
                    safe(&e.to_string())
                )),
            }
        }
        ManageCommand::Remove { name, scope } => edit_file(cli, &dirs, scope.scope, None, |text| {
            edit::remove_server(text, name).map(|t| (t, format!("removed server {}", safe(name))))
        }),
        ManageCommand::Enable { name, scope } | ManageCommand::Disable { name, scope } => {
            let on = matches!(command, ManageCommand::Enable { .. });
            let check = on.then_some(name.as_str());
            edit_file(cli, &dirs, scope.scope, check, |text| {
                let what = if on { "enabled" } else { "disabled" };
                edit::set_enabled(text, name, on)
                    .map(|t| (t, format!("{what} server {}", safe(name))))
            })
        }
        ManageCommand::List { json, scope } => super::list::list(cli, &dirs, scope.scope, *json),
        ManageCommand::Get { name, json, scope } => {
            super::list::get(cli, &dirs, name, scope.scope, *json)
        }
    };
    if code != exit::OK {
        std::process::exit(code);
    }
}

fn usage(message: &str) -> i32 {
    eprintln!("{message}");
    exit::USAGE
}

/// The file a command edits (or lists with `--scope`).
pub fn target(cli: &Cli, dirs: &Dirs, scope: Option<Scope>) -> PathBuf {
    match scope {
        Some(Scope::User) => dirs.user_config_file(),
        Some(Scope::Project) => dirs.cwd.join(crate::paths::PROJECT_CONFIG_FILE),
        // The person's own file: a project's would need trusting again after the edit.
        None => cli
            .config
            .as_ref()
            .map_or_else(|| dirs.user_config_file(), |path| dirs.cwd.join(path)),
    }
}

/// `mcp add`'s flags as a server entry.
fn server_of(args: &AddArgs) -> Result<ServerConfig, String> {
    let pairs = |items: &[String], flag: &str| -> Result<BTreeMap<String, String>, String> {
        items
            .iter()
            .map(|item| {
                let (k, v) = item
                    .split_once('=')
                    .or_else(|| item.split_once(':').map(|(k, v)| (k, v.trim_start())))
                    .ok_or_else(|| format!("{flag} {}: expected K=V", safe(item)))?;
                Ok((k.trim().to_owned(), v.to_owned()))
            })
            .collect()
    };
    let (command, rest) = match args.command.split_first() {
        Some((c, rest)) => (Some(c.clone()), rest.to_vec()),
        None => (None, Vec::new()),
    };
    if command.is_none() && args.url.is_none() {
        return Err(format!(
            "mcp add {}: give a command after `--` (stdio) or --url URL (HTTP)",
            safe(&args.name)
        ));
    }
    Ok(ServerConfig {
        command,
        args: rest,
        env: pairs(&args.env, "--env")?,
        url: args.url.clone(),
        headers: pairs(&args.headers, "--header")?,
        bearer_token_env_var: args.bearer_env.clone(),
        transport: args.transport.clone(),
        ..ServerConfig::default()
    })
}

/// Writes `server` as `[servers.NAME]` (refusing literal secrets and what the loader
/// would refuse), then prints `notes`. Returns the exit status.
pub(super) fn add(
    cli: &Cli,
    dirs: &Dirs,
    name: &str,
    server: &ServerConfig,
    scope: Option<Scope>,
    notes: Vec<String>,
) -> i32 {
    let path = target(cli, dirs, scope);
    match config_write::add_server(&path, name, server) {
        Ok(added) => {
            let done = format!("added {} server {}", added.kind, safe(name));
            written(cli, dirs, &added.written, &done);
            for note in notes {
                eprintln!("note: {}", safe(&note));
            }
            exit::OK
        }
        Err(e) => usage(&e.to_string()),
    }
}

/// Says what was written (its notes first) and, for this folder's project file,
/// keeps its trust as the person left it.
fn written(cli: &Cli, dirs: &Dirs, written: &config_write::Written, done: &str) {
    for note in &written.notes {
        eprintln!("note: {note}");
    }
    let path = &written.path;
    print(&format!("{done} in {}\n", path.display()));
    if *path == dirs.cwd.join(crate::paths::PROJECT_CONFIG_FILE) && cli.config.is_none() {
        project_trust_after_edit(
            dirs,
            path,
            written.before.as_deref().map(str::as_bytes),
            &written.after,
        );
    }
}

/// Edits the target file with `change` (see `config_write::edit_file`). Returns the
/// exit status; on any refusal the file is left as it was.
fn edit_file(
    cli: &Cli,
    dirs: &Dirs,
    scope: Option<Scope>,
    check: Option<&str>,
    change: impl FnOnce(&str) -> Result<(String, String), edit::EditError>,
) -> i32 {
    let path = target(cli, dirs, scope);
    let mut done = String::new();
    let result = config_write::edit_file(&path, check, |text| {
        change(text).map(|(edited, said)| {
            done = said;
            edited
        })
    });
    match result {
        Ok(w) => {
            written(cli, dirs, &w, &done);
            exit::OK
        }
        Err(e) => usage(&e.to_string()),
    }
}

/// After switchboard edited the folder's project file at the person's command: a file
/// it created, or one trusted before the edit, is trusted as it is now (the person
/// made the change); an untrusted one stays untrusted, and the person is told.
fn project_trust_after_edit(dirs: &Dirs, path: &Path, before: Option<&[u8]>, after: &str) {
    use crate::trust::{Decision, TrustStore};
    let mut store = TrustStore::open(crate::trust::store_path(dirs));
    let trusted_before = before.is_none_or(|bytes| store.state(path, bytes).is_trusted());
    if trusted_before {
        match store.decide(path, &dirs.cwd, after.as_bytes(), Decision::Trusted) {
            Ok(()) => print(
                "this folder's config is trusted as you left it (`switchboard trust --revoke` undoes that)\n",
            ),
            Err(e) => eprintln!("warning: the trust decision was not saved: {e}"),
        }
    } else {
        eprintln!(
            "note: ./{} is not trusted, so nothing in it starts until you review it with `switchboard trust`",
            crate::paths::PROJECT_CONFIG_FILE
        );
    }
}
