//! Command-line interface: one file per subcommand.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

mod a2a_cmd;
mod agents_run;
mod app_cmd;
mod call_cmd;
mod catalog_cmd;
mod completions;
mod config_cmd;
mod declarations;
mod hooks_cmd;
mod mcp;
mod mcp_session;
mod policy_cmd;
mod prompt_cmd;
mod read_cmd;
mod replay_cmd;
pub mod run_cmd;
mod sandbox_exec_cmd;
mod serve_cmd;
mod servers_cmd;
mod sessions_cmd;
mod task_cmd;
mod test_cmd;
mod trust_cmd;
mod tui_cmd;

pub use declarations::{DeclarationFormat, declarations};
pub use mcp_session::exit;

/// A full-screen terminal workbench for AI agents and MCP servers.
#[derive(Debug, Parser)]
#[command(name = "switchboard", version, about)]
pub struct Cli {
    /// Use this config file instead of searching for one.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Colour theme (built-in: default, light, high-contrast).
    #[arg(long, global = true, value_name = "NAME")]
    pub theme: Option<String>,
    /// Also load the MCP servers of this file (Claude Desktop, Claude Code, VS Code,
    /// Cursor or Codex format); repeatable.
    #[arg(long = "mcp-config", global = true, value_name = "FILE")]
    pub mcp_config: Vec<PathBuf>,
    /// Write logs here instead of the state directory.
    #[arg(long, global = true, value_name = "PATH")]
    pub log_file: Option<PathBuf>,
    /// Disable colours (also honoured: the NO_COLOR environment variable).
    #[arg(long, global = true)]
    pub no_color: bool,
    /// Write every JSON-RPC message with the MCP servers (and `serve`'s clients) to
    /// FILE, one JSON line each, secrets masked.
    #[arg(long, global = true, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Speak this MCP protocol generation to every server (auto, 2025-11-25 or
    /// 2026-07-28), overriding each server's `protocol`.
    #[arg(long, global = true, value_name = "VERSION")]
    pub protocol: Option<ProtocolArg>,
    /// Answer servers that ask for input (elicitation) without a person: decline,
    /// cancel, or accept-defaults (the form's defaults, when every required field has
    /// one).
    #[arg(long, global = true, value_name = "ANSWER", default_value = "decline")]
    pub elicit: ElicitArg,
    /// Pause before every model request and tool run (toggle with Ctrl+T).
    #[arg(long)]
    pub step: bool,
    /// Provider for the TUI's session (a `[providers.NAME]`, or `scripted`).
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Model for that provider.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// Reopen a saved session (see `switchboard sessions`); without an id, pick one of
    /// this workspace's.
    #[arg(
        long,
        value_name = "ID",
        conflicts_with = "continue_last",
        num_args = 0..=1,
        default_missing_value = ""
    )]
    pub resume: Option<String>,
    /// Reopen the most recent session of this workspace.
    #[arg(long = "continue")]
    pub continue_last: bool,
    /// Run the MCP gateway (as `serve --http ADDR`) inside the TUI: a serve client's
    /// call that needs approval waits in the approval pane.
    #[arg(long, value_name = "ADDR")]
    pub serve: Option<String>,
    /// Draw the first frame, then exit (start-up measurement).
    #[arg(long, hide = true)]
    pub exit_after_first_frame: bool,
    /// Panic after the first frame (tests that the terminal is restored).
    #[arg(long, hide = true)]
    pub debug_panic: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `--protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProtocolArg {
    Auto,
    #[value(name = "2025-11-25")]
    V2025,
    #[value(name = "2026-07-28")]
    V2026,
}

impl ProtocolArg {
    pub fn choice(self) -> crate::config::ProtocolChoice {
        use crate::config::ProtocolChoice;
        match self {
            Self::Auto => ProtocolChoice::Auto,
            Self::V2025 => ProtocolChoice::V2025,
            Self::V2026 => ProtocolChoice::V2026,
        }
    }
}

/// `--elicit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ElicitArg {
    Decline,
    Cancel,
    AcceptDefaults,
}

impl ElicitArg {
    pub fn mode(self) -> crate::mcp::ElicitMode {
        use crate::mcp::ElicitMode;
        match self {
            Self::Decline => ElicitMode::Decline,
            Self::Cancel => ElicitMode::Cancel,
            Self::AcceptDefaults => ElicitMode::AcceptDefaults,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect and validate configuration.
    #[command(subcommand)]
    Config(config_cmd::ConfigCommand),
    /// Explain permission decisions.
    #[command(subcommand)]
    Policy(policy_cmd::PolicyCommand),
    /// Run one agent turn without the screen and print the answer (or JSONL events).
    Run(run_cmd::RunArgs),
    /// List saved sessions, newest first.
    Sessions {
        /// Every workspace's sessions, with their workspace (default: this one's).
        #[arg(long)]
        all: bool,
    },
    /// Print a saved session as Markdown, JSON or one self-contained HTML page.
    Export {
        /// The session id (see `switchboard sessions`).
        id: String,
        #[arg(long, value_enum, default_value = "md")]
        format: sessions_cmd::ExportFormat,
    },
    /// Make a saved session's tool calls, reads and prompts again against today's
    /// servers (never its model) and compare the results: exit 0 all the same, 1 one
    /// differs, 3 a server did not start, 5 the policy denied a call.
    Replay(replay_cmd::ReplayArgs),
    /// List the MCP servers and their status.
    Servers {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Show every tool, resource, template and prompt of the MCP servers.
    Catalog(catalog_cmd::CatalogArgs),
    /// Call a tool through the permission gate.
    Call(call_cmd::CallArgs),
    /// Read a resource.
    Read(read_cmd::ReadArgs),
    /// Open a tool's MCP App in the browser, its calls through the gate.
    App(app_cmd::AppArgs),
    /// Get a prompt.
    Prompt(prompt_cmd::PromptArgs),
    /// Run saved calls as tests (`[[case]]` collections): exit 0 when all pass.
    Test(test_cmd::TestArgs),
    /// Run the configured hooks of one event and print their verdict.
    #[command(subcommand)]
    Hooks(hooks_cmd::HooksCommand),
    /// Inspect or cancel a task a server runs for a call (`call --no-wait`).
    #[command(subcommand)]
    Task(task_cmd::TaskCommand),
    /// Show a remote A2A agent's card, or run one task on it.
    A2a(a2a_cmd::A2aArgs),
    /// Be one MCP server in front of every configured server, each call gated.
    Serve(serve_cmd::ServeArgs),
    /// Show what this folder's config would do, and trust it (or `--list`,
    /// `--revoke`).
    Trust(trust_cmd::TrustArgs),
    /// Manage the configured MCP servers (add, add-json, list, get, remove, enable,
    /// disable) and their OAuth logins (login, logout, auth-status).
    #[command(subcommand)]
    Mcp(mcp::McpCommand),
    /// Print shell completions.
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
    /// Run a stdio MCP server under its sandbox policy (what switchboard spawns for a
    /// sandboxed server; not for people).
    #[command(name = "__sandbox-exec", hide = true)]
    SandboxExec(sandbox_exec_cmd::SandboxExecArgs),
}

/// Entry point of the binary.
pub fn main() -> color_eyre::Result<()> {
    let cli = Cli::parse();
    // The sandbox launcher opens nothing (no log file) before it restricts itself.
    if let Some(Command::SandboxExec(ref args)) = cli.command {
        sandbox_exec_cmd::run(args);
    }
    if cli.command.is_some() {
        start_headless_logging(&cli);
    }
    match cli.command {
        None => tui_cmd::run(&cli),
        Some(Command::Config(ref cmd)) => config_cmd::run(&cli, cmd),
        Some(Command::Policy(ref cmd)) => policy_cmd::run(&cli, cmd),
        Some(Command::Run(ref args)) => run_cmd::run(&cli, args),
        Some(Command::Sessions { all }) => sessions_cmd::list(all),
        Some(Command::Export { ref id, format }) => sessions_cmd::export(id, format),
        Some(Command::Replay(ref args)) => replay_cmd::run(&cli, args),
        Some(Command::Servers { json }) => servers_cmd::run(&cli, json),
        Some(Command::Catalog(ref args)) => catalog_cmd::run(&cli, args),
        Some(Command::Call(ref args)) => call_cmd::run(&cli, args),
        Some(Command::Read(ref args)) => read_cmd::run(&cli, args),
        Some(Command::App(ref args)) => app_cmd::run(&cli, args),
        Some(Command::Prompt(ref args)) => prompt_cmd::run(&cli, args),
        Some(Command::Test(ref args)) => test_cmd::run(&cli, args),
        Some(Command::Task(ref cmd)) => task_cmd::run(&cli, cmd),
        Some(Command::A2a(ref args)) => a2a_cmd::run(args),
        Some(Command::Hooks(ref cmd)) => hooks_cmd::run(&cli, cmd),
        Some(Command::Mcp(ref cmd)) => mcp::run(&cli, cmd),
        Some(Command::Trust(ref args)) => {
            trust_cmd::run(&cli, args);
            Ok(())
        }
        Some(Command::Serve(ref args)) => serve_cmd::run(&cli, args),
        Some(Command::Completions { shell }) => {
            completions::run(shell);
            Ok(())
        }
        Some(Command::SandboxExec(ref args)) => sandbox_exec_cmd::run(args),
    }
}

/// Headless commands log like the TUI: to `--log-file` (or the state directory's
/// log), filtered by `SWITCHBOARD_LOG`, never to the terminal. A log that cannot be
/// opened is said once on stderr and the command goes on.
fn start_headless_logging(cli: &Cli) {
    if matches!(cli.command, Some(Command::Completions { .. })) {
        return;
    }
    let file = cli
        .log_file
        .clone()
        .unwrap_or_else(|| crate::paths::Dirs::from_env().default_log_file());
    if let Err(e) = crate::logging::init(&file, None) {
        eprintln!("warning: no log file ({}): {e}", file.display());
    }
}
