//! `switchboard mcp add | add-json | remove | enable | disable`: edit `[servers.NAME]`
//! in the config file in place (comments and layout kept, see `config::edit`), refuse
//! what the config loader would refuse with its `file:line:col` errors, and write the
//! file atomically only when the edited text loads. `list` and `get` are in `list`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};

use crate::cli::Cli;
use crate::cli::mcp_session::{exit, print, safe};
use crate::config::{self, ServerConfig, edit, import};
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
    let secrets = import::secrets::literal_secrets(name, server);
    if !secrets.is_empty() {
        for key in secrets {
            eprintln!(
                "{key}: a secret would be written into the config file; write it as ${{VAR}} (expanded from the environment when the server starts){}",
                if key.contains(".headers.") {
                    ", or use --bearer-env VAR for a bearer token"
                } else {
                    ""
                }
            );
        }
        return exit::USAGE;
    }
    // An entry naming an unset `${VAR}` does not make an Endpoint yet: say its type.
    let kind = crate::mcp::Endpoint::from_config(server).map_or_else(
        |_| match (&server.transport, &server.command) {
            (Some(kind), _) => kind.as_str(),
            (None, Some(_)) => "stdio",
            (None, None) => "http",
        },
        |e| e.kind().as_str(),
    );
    let code = edit_file(cli, dirs, scope, Some(name), |text| {
        edit::add_server(text, name, server)
            .map(|t| (t, format!("added {kind} server {}", safe(name))))
    });
    if code == exit::OK {
        for note in notes {
            eprintln!("note: {}", safe(&note));
        }
        if let Some(var) = &server.bearer_token_env_var
            && std::env::var_os(var).is_none()
        {
            eprintln!("note: {var} is not set now; the server starts once it is");
        }
    }
    code
}

/// Reads the target file, applies `change`, checks the result with the config loader
/// (and, for server `check`, the refusals `config check` reports), and writes it
/// atomically. Returns the exit status; on any refusal the file is left as it was.
fn edit_file(
    cli: &Cli,
    dirs: &Dirs,
    scope: Option<Scope>,
    check: Option<&str>,
    change: impl FnOnce(&str) -> Result<(String, String), edit::EditError>,
) -> i32 {
    let path = target(cli, dirs, scope);
    let (text, existed) = match std::fs::read_to_string(&path) {
        Ok(text) => (text, true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (String::new(), false),
        Err(e) => return usage(&format!("{}: {e}", path.display())),
    };
    if let Err(e) = crate::settings::parse_str(&text, &path) {
        return usage(&format!("{e}\n(the file must load before it is edited)"));
    }
    let (edited, done) = match change(&text) {
        Ok(ok) => ok,
        Err(e) => return usage(&format!("{}: {}", path.display(), safe(&e.to_string()))),
    };
    let checked = crate::settings::parse_str(&edited, &path).map_err(|e| e.to_string());
    if let Err(message) = checked.and_then(|c| refusals(&c, check, &path, &edited)) {
        return usage(&format!("{message}\n{} was not changed", path.display()));
    }
    if let Some(dir) = path.parent()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return usage(&format!("{}: {e}", dir.display()));
    }
    if let Err(e) = crate::paths::write_atomic(&path, &edited) {
        return usage(&format!("{}: {e}", path.display()));
    }
    print(&format!("{done} in {}\n", path.display()));
    if path == dirs.cwd.join(crate::paths::PROJECT_CONFIG_FILE) && cli.config.is_none() {
        project_trust_after_edit(dirs, &path, existed.then_some(text.as_bytes()), &edited);
    }
    exit::OK
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

/// What would make a server be refused before it starts (a shell command, a URL that
/// is not http(s), a bad header), at its key; an unset variable is not: it may be
/// exported later.
fn refusals(
    config: &config::Config,
    check: Option<&str>,
    path: &Path,
    text: &str,
) -> Result<(), String> {
    let (Some(name), Ok(map)) = (check, config::SourceMap::parse(text)) else {
        return Ok(());
    };
    let env = |_: &str| Some(String::new());
    let Some(server) = config.servers.get(name) else {
        return Ok(());
    };
    if let Err(crate::mcp::EndpointError::Reference(key, why)) =
        crate::mcp::Endpoint::from_config(server)
    {
        // A variable may be exported later; the server starts once it is.
        eprintln!("note: servers.{}.{key}: {}", safe(name), safe(&why));
        return Ok(());
    }
    {
        if let Some((key, message)) = crate::mcp::refusal(server, &env) {
            let keys = ["servers", name, key];
            return Err(config::ConfigError::at(
                path,
                text,
                map.nearest_span(&keys),
                config::KeyPath::new(&keys).to_string(),
                safe(&message),
                Some("the server would be refused before start".into()),
            )
            .to_string());
        }
    }
    Ok(())
}
