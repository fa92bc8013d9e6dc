//! What the MCP subcommands share: loading the config plus `--mcp-config` files,
//! starting a non-interactive [`Workbench`], exit codes, `-a key=value` arguments and
//! safe printing of untrusted text.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::Cli;
use crate::config::Config;
use crate::config::import::{self, InputSpec};
use crate::mcp::McpError;
use crate::paths::Dirs;
use crate::policy::Mode;
use crate::trust;
use crate::workbench::{Workbench, WorkbenchOptions};

/// Process exit statuses of the MCP subcommands.
pub mod exit {
    pub const OK: i32 = 0;
    /// Usage or config error.
    pub const USAGE: i32 = 1;
    /// Server unreachable or handshake failed.
    pub const UNREACHABLE: i32 = 3;
    /// The server answered with an error, or the tool reported one.
    pub const REMOTE: i32 = 4;
    /// Denied by policy.
    pub const DENIED: i32 = 5;
}

/// The exit status for an MCP error.
pub fn exit_code(error: &McpError) -> i32 {
    match error {
        McpError::Handshake { .. }
        | McpError::NotConnected { .. }
        | McpError::NeedsLogin { .. } => exit::UNREACHABLE,
        McpError::UnknownServer(_) | McpError::Config { .. } => exit::USAGE,
        McpError::Remote { .. }
        | McpError::CallFailed { .. }
        | McpError::Limit { .. }
        | McpError::Stale { .. } => exit::REMOTE,
    }
}

/// What the person answered when a `--mcp-config` file needed `${input:…}` values.
pub enum Asked {
    Answers(BTreeMap<String, String>),
    /// Go on without that file's servers.
    Skip,
    /// Leave switchboard.
    Quit,
}

/// Asks for the inputs a file needs (the TUI's input prompt).
pub type AskInputs<'a> = &'a mut dyn FnMut(&Path, &[InputSpec]) -> Asked;

/// The exit status when the person quits at the input prompt.
pub const QUIT_AT_PROMPT: i32 = 130;

/// The config of a headless command: the user's file with a trusted project's on top
/// (or the `--config` file), plus the servers of every trusted `--mcp-config` file.
/// Project files that are not trusted are left out with one line on stderr.
/// Problems are printed; `Err` carries the exit status.
pub fn load_config(cli: &Cli, dirs: &Dirs) -> Result<(Config, Option<PathBuf>), i32> {
    load_config_naming(cli, dirs, None, None)
}

/// As [`load_config`], for a command that names a server or a provider: naming one
/// that only a left-out project file defines fails (exit 1) saying so.
pub fn load_config_naming(
    cli: &Cli,
    dirs: &Dirs,
    server: Option<&str>,
    provider: Option<&str>,
) -> Result<(Config, Option<PathBuf>), i32> {
    let loaded = load_trust(cli, dirs)?;
    if let Some(notice) = loaded.headless_notice() {
        eprintln!("{notice}");
    }
    let mut config = config_of(&loaded)?;
    for warning in add_imports(cli, dirs, &mut config, None, &loaded)? {
        eprintln!("warning: {warning}");
    }
    apply_protocol(cli, &mut config);
    named_ones_apply(&loaded, &config, server, provider)?;
    Ok((config, Some(source_of(&loaded, dirs))))
}

/// Fails (exit 1) when `server` or `provider` is defined only by a project file that
/// does not apply this run.
pub fn named_ones_apply(
    loaded: &trust::Loaded,
    config: &Config,
    server: Option<&str>,
    provider: Option<&str>,
) -> Result<(), i32> {
    let server = server.filter(|n| !config.servers.contains_key(*n));
    let provider = provider.filter(|n| !config.providers.contains_key(*n));
    if server.is_none() && provider.is_none() {
        // Everything named is configured: no need to read the left-out files again.
        return Ok(());
    }
    let withheld = loaded.withheld();
    if let Some(name) = server
        && let Some(file) = withheld.server(name)
    {
        eprintln!("{}", trust::withheld_error("server", name, file));
        return Err(exit::USAGE);
    }
    if let Some(name) = provider
        && let Some(file) = withheld.provider(name)
    {
        eprintln!("{}", trust::withheld_error("provider", name, file));
        return Err(exit::USAGE);
    }
    Ok(())
}

/// The config layers and project files of this start, and where each stands; a config
/// error is printed and `Err` carries the exit status.
pub fn load_trust(cli: &Cli, dirs: &Dirs) -> Result<trust::Loaded, i32> {
    let loaded =
        trust::Loaded::read(dirs, cli.config.as_deref(), &cli.mcp_config).map_err(|e| {
            eprintln!("{e}");
            exit::USAGE
        })?;
    if let Some(problem) = &loaded.store.problem {
        eprintln!("warning: {}", safe(problem));
    }
    Ok(loaded)
}

/// The configuration `loaded` makes as its files apply now.
pub fn config_of(loaded: &trust::Loaded) -> Result<Config, i32> {
    loaded.config().map_err(|e| {
        eprintln!("{e}");
        exit::USAGE
    })
}

/// The file "always" rules are saved to: the `--config` file, else the user's own
/// config file — never a project's, which would then need trusting again.
pub fn source_of(loaded: &trust::Loaded, dirs: &Dirs) -> PathBuf {
    loaded
        .layers
        .explicit
        .as_ref()
        .map_or_else(|| dirs.user_config_file(), |l| l.path.clone())
}

/// `--protocol` wins over every server's `protocol`.
pub fn apply_protocol(cli: &Cli, config: &mut Config) {
    if let Some(protocol) = cli.protocol {
        for server in config.servers.values_mut() {
            server.protocol = Some(protocol.choice());
        }
    }
}

/// The headless answerer of servers' questions: `--elicit`, sampling refused; a
/// default decline is explained on stderr.
pub fn headless_asker(cli: &Cli) -> std::sync::Arc<dyn crate::mcp::Asker> {
    fn notice(line: &str) {
        eprintln!("note: {line}");
    }
    std::sync::Arc::new(crate::mcp::HeadlessAsker {
        mode: cli.elicit.mode(),
        notice: Some(notice),
    })
}

/// Adds the servers of every `--mcp-config` file to `config`, except the project
/// files `loaded` leaves out (a file inside the folder that is not trusted); servers
/// of a trusted one are marked as the project's. With `ask`, a file's `${input:…}`
/// placeholders are asked for; without, they fail clearly (headless). Returns the
/// warnings (unsupported keys, name clashes, skipped files); errors are printed and
/// `Err` carries the exit status.
pub fn add_imports(
    cli: &Cli,
    dirs: &Dirs,
    config: &mut Config,
    mut ask: Option<AskInputs<'_>>,
    loaded: &trust::Loaded,
) -> Result<Vec<String>, i32> {
    let mut warnings = Vec::new();
    for path in &cli.mcp_config {
        if loaded.leaves_out(dirs, path) {
            continue;
        }
        let full = dirs.cwd.join(path);
        let from_project = loaded.is_project_file(&full);
        let shown = path.display();
        let fail = |e: &dyn std::fmt::Display| {
            eprintln!("{shown}: {}", safe(&e.to_string()));
            exit::USAGE
        };
        // A project file is imported from the very bytes that were trusted.
        let text = match loaded.project_bytes(&full) {
            Some(bytes) => String::from_utf8(bytes.to_vec()).map_err(|e| fail(&e))?,
            None => std::fs::read_to_string(&full).map_err(|e| fail(&e))?,
        };
        let needed = import::inputs_needed(&full, &text);
        let answers = match ask.as_mut() {
            Some(ask) if !needed.is_empty() => match ask(path, &needed) {
                Asked::Answers(answers) => Some(import::Answers(answers)),
                Asked::Skip => {
                    warnings.push(format!(
                        "{shown}: skipped; its servers need input that was not given"
                    ));
                    continue;
                }
                Asked::Quit => return Err(QUIT_AT_PROMPT),
            },
            _ => None,
        };
        let resolver: &dyn import::InputResolver = match &answers {
            Some(answers) => answers,
            None => &import::Headless,
        };
        let imported = import::import_str(&full, &text, &|name| std::env::var(name).ok(), resolver)
            .map_err(|e| fail(&e))?;
        for warning in &imported.warnings {
            warnings.push(format!("{shown}: {}", safe(warning)));
        }
        for (name, mut server) in imported.servers {
            server.from_project = from_project;
            if config.servers.contains_key(&name) {
                warnings.push(format!(
                    "{shown}: server {} is already configured; the config file's wins",
                    safe(&name)
                ));
                continue;
            }
            config.servers.insert(name, server);
        }
    }
    Ok(warnings)
}

/// The wire capture of one command: with `--trace FILE` (every message also goes to
/// FILE as a JSON line), or when `always` (the TUI); none otherwise, to stay lean.
/// A trace file that cannot be created is the error, naming its path.
pub fn wire_log(
    cli: &Cli,
    config: &Config,
    always: bool,
) -> Result<Option<std::sync::Arc<crate::mcp::WireLog>>, crate::mcp::wire::TraceError> {
    let log = crate::mcp::WireLog::new(config.mcp.wire_capacity);
    match &cli.trace {
        Some(path) => Ok(Some(std::sync::Arc::new(log.with_trace(path)?))),
        None => Ok(always.then(|| std::sync::Arc::new(log))),
    }
}

/// A non-interactive workbench for one CLI command.
pub async fn start(
    cli: &Cli,
    config: &Config,
    dirs: &Dirs,
    mode: Option<Mode>,
) -> Result<Workbench, i32> {
    start_with_login(cli, config, dirs, mode, super::mcp::headless_login()).await
}

/// As [`start`], with the given login prompt (none: servers that ask for a login
/// show `needs login`; `servers` only reports).
pub async fn start_with_login(
    cli: &Cli,
    config: &Config,
    dirs: &Dirs,
    mode: Option<Mode>,
    login: Option<std::sync::Arc<dyn crate::mcp::oauth::LoginPrompt>>,
) -> Result<Workbench, i32> {
    start_headless(cli, config, dirs, mode, login, false).await
}

/// A non-interactive workbench; `apps`: MCP Apps can be opened (`switchboard app`),
/// so servers are told the host renders them.
async fn start_headless(
    cli: &Cli,
    config: &Config,
    dirs: &Dirs,
    mode: Option<Mode>,
    login: Option<std::sync::Arc<dyn crate::mcp::oauth::LoginPrompt>>,
    apps: bool,
) -> Result<Workbench, i32> {
    let wire = wire_log(cli, config, false).map_err(|e| {
        eprintln!("{e}");
        exit::USAGE
    })?;
    let options = WorkbenchOptions {
        interactive: false,
        mode,
        asker: Some(headless_asker(cli)),
        login,
        wire,
        apps,
        ..WorkbenchOptions::default()
    };
    Workbench::start(config, dirs, options).await.map_err(|e| {
        eprintln!("{e}");
        exit::USAGE
    })
}

/// The config (with `--mcp-config` files) and a started non-interactive workbench;
/// problems are printed and `Err` carries the exit status. With `only`, that server
/// alone is started (a command that names a server neither waits for nor is slowed
/// by the others); `Some("builtin")` (no such server) starts none.
pub async fn open(cli: &Cli, mode: Option<Mode>, only: Option<&str>) -> Result<Workbench, i32> {
    let dirs = Dirs::from_env();
    let (mut config, _) = load_config_naming(cli, &dirs, only, None)?;
    if let Some(name) = only {
        config.servers.retain(|n, _| n == name);
    }
    start(cli, &config, &dirs, mode).await
}

/// As [`open`] for `switchboard app`: only `server` is started, told that this
/// host opens MCP Apps.
pub async fn open_for_app(cli: &Cli, mode: Option<Mode>, server: &str) -> Result<Workbench, i32> {
    let dirs = Dirs::from_env();
    let (mut config, _) = load_config_naming(cli, &dirs, Some(server), None)?;
    config.servers.retain(|n, _| n == server);
    let login = super::mcp::headless_login();
    start_headless(cli, &config, &dirs, mode, login, true).await
}

/// As [`open`], starting only the servers in `names` (none: built-ins only).
pub async fn open_servers(cli: &Cli, mode: Option<Mode>, names: &[&str]) -> Result<Workbench, i32> {
    let dirs = Dirs::from_env();
    let (mut config, _) = load_config(cli, &dirs)?;
    config.servers.retain(|n, _| names.contains(&n.as_str()));
    start(cli, &config, &dirs, mode).await
}

/// A current-thread-free runtime for one command.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// One line of untrusted text, safe for the terminal.
pub fn safe(text: &str) -> String {
    crate::sanitize::sanitize_line(text)
}

/// `key=value` pairs; a value that parses as JSON is taken as JSON, else as a string.
pub fn key_values(pairs: &[String]) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for pair in pairs {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("-a {pair:?}: expected KEY=VALUE"))?;
        out.insert(key.to_owned(), crate::tools::parse_value(value));
    }
    Ok(out)
}

/// Asks `prompt` on stderr and reads one line from stdin (trimmed); `None` when
/// stdin is not a terminal, is at its end or cannot be read.
pub fn ask(prompt: &str) -> Option<String> {
    use std::io::{BufRead as _, IsTerminal as _};
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return None;
    }
    let mut stderr = std::io::stderr();
    let _ = write!(stderr, "{prompt}");
    let _ = stderr.flush();
    let mut line = String::new();
    match stdin.lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim().to_owned()),
    }
}

/// Writes `text` to stdout; a closed pipe is not an error worth a panic.
pub fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Pretty JSON (never fails for values built from serde types). Control characters
/// serde leaves raw (DEL, C1) and bidi controls are written as `\uXXXX` escapes, so the
/// output is the same JSON and safe on a terminal.
pub fn json(value: &impl serde::Serialize) -> String {
    terminal_safe_json(&serde_json::to_string_pretty(value).unwrap_or_default())
}

/// As [`json`], on one line (a JSON Lines record).
pub fn json_line(value: &impl serde::Serialize) -> String {
    terminal_safe_json(&serde_json::to_string(value).unwrap_or_default())
}

/// JSON text with the control and bidi characters serde leaves raw written as
/// `\uXXXX` escapes (the same JSON, safe on a terminal), and a final newline.
fn terminal_safe_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if (c.is_control() && c != '\n') || bidi {
            let _ = std::fmt::Write::write_fmt(&mut out, format_args!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out.push('\n');
    out
}

/// Waits for `name` and checks it is usable; prints why not and returns the exit status.
pub async fn ready_server(workbench: &Workbench, name: &str) -> Result<(), i32> {
    readiness(workbench, name).await.map_err(|(code, why)| {
        eprintln!("{why}");
        code
    })
}

/// Waits for `name` and checks it is usable; `Err` has the exit status and why not
/// (sanitised, one line).
pub async fn readiness(workbench: &Workbench, name: &str) -> Result<(), (i32, String)> {
    use crate::mcp::ServerStatus;
    if !workbench.config.servers.contains_key(name) {
        return Err((exit::USAGE, format!("no MCP server named {}", safe(name))));
    }
    // A server that starts on demand is started: the command needs it.
    let _ = workbench.hub.start_server(name).await;
    workbench.settle_server(name).await;
    let snapshot = workbench.hub.snapshot();
    let Some(server) = snapshot.server(name) else {
        return Err((exit::USAGE, format!("no MCP server named {}", safe(name))));
    };
    match &server.status {
        ServerStatus::Ready => Ok(()),
        ServerStatus::Disabled => Err((
            exit::USAGE,
            format!("server {} is disabled (enabled = false)", safe(name)),
        )),
        ServerStatus::Failed { error, .. } => {
            Err((exit_code(error).max(exit::USAGE), safe(&error.to_string())))
        }
        ServerStatus::NeedsLogin { reason } => Err((
            exit::UNREACHABLE,
            format!(
                "needs login: run `switchboard mcp login {}` ({})",
                safe(name),
                safe(reason)
            ),
        )),
        other => Err((
            exit::UNREACHABLE,
            format!(
                "mcp_handshake_failed: server {} is {}",
                safe(name),
                other.label()
            ),
        )),
    }
}

/// Opens the workbench, waits for `server` to be ready, runs `body` on it and shuts
/// the workbench down: the frame of every one-server command. Returns the exit status.
pub async fn with_ready_server(
    cli: &Cli,
    server: &str,
    body: impl AsyncFnOnce(&Workbench) -> i32,
) -> i32 {
    let workbench = match open(cli, None, Some(server)).await {
        Ok(w) => w,
        Err(code) => return code,
    };
    let code = match ready_server(&workbench, server).await {
        Err(code) => code,
        Ok(()) => body(&workbench).await,
    };
    workbench.shutdown().await;
    code
}

pub use crate::tools::render_blocks_for_stream as render_blocks;

/// Runs `body` on a fresh runtime and returns what it gives (`Err`: no runtime).
pub fn run_blocking<T>(
    body: impl std::future::Future<Output = Result<T, String>>,
) -> Result<T, String> {
    runtime()
        .map_err(|e| e.to_string())
        .and_then(|runtime| runtime.block_on(body))
}

/// Runs `body` on a fresh runtime and returns its exit status.
pub fn run_to_exit_code(body: impl std::future::Future<Output = i32>) -> i32 {
    match runtime() {
        Ok(runtime) => runtime.block_on(body),
        Err(e) => {
            eprintln!("{e}");
            exit::USAGE
        }
    }
}

/// Runs `body` on a fresh runtime and exits with its status when it is not 0.
pub fn run_to_exit(body: impl std::future::Future<Output = i32>) -> color_eyre::Result<()> {
    let code = runtime()?.block_on(body);
    if code != exit::OK {
        std::process::exit(code);
    }
    Ok(())
}
