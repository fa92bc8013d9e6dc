//! `switchboard run "TASK"`: one agent turn without the screen.

use std::io::{IsTerminal, Read, Write};
use std::sync::Arc;

use clap::Args;

use super::Cli;
use crate::agent::headless::{exit, run_headless};
use crate::agent::{ApprovalDecision, ApprovalRequest, Session, session_options};
use crate::llm::{ProviderChoice, RequestOptions, RetryPolicy, provider_from_config};
use crate::paths::Dirs;
use crate::policy::Mode;
use crate::workbench::{Workbench, WorkbenchOptions};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The task for the agent; `-` reads it from stdin.
    pub task: String,
    /// A `[providers.NAME]` (default: `default_provider`, else the offline `scripted`).
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Use this model instead of the provider's.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// Permission mode for this run (read-only, ask, auto-edit, full-auto).
    #[arg(long, value_name = "MODE")]
    pub approve: Option<Mode>,
    /// Model requests before the turn stops (default: `[agent] max_steps`, 25).
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u32>,
    /// Print every event as one JSON line instead of the final answer.
    #[arg(long)]
    pub json: bool,
    /// Never ask: calls that need approval are denied, naming the rule that would
    /// allow them. Implied when stdin is not a terminal.
    #[arg(long)]
    pub non_interactive: bool,
    /// Do not save the session.
    #[arg(long)]
    pub no_save: bool,
}

/// Exit codes: 0 done, 1 bad config or task, 2 provider error, 4 a tool error ended the
/// turn, 5 a required approval was denied, 6 max steps reached.
pub fn run(cli: &Cli, args: &RunArgs) -> color_eyre::Result<()> {
    let dirs = Dirs::from_env();
    let (config, source) =
        super::mcp_session::load_config(cli, &dirs).unwrap_or_else(|code| std::process::exit(code));
    let task = read_task(&args.task)?;
    let choice = ProviderChoice {
        name: args.provider.clone(),
        model: args.model.clone(),
    };
    let env = |name: &str| std::env::var(name).ok();
    let provider = match provider_from_config(&config, &choice, &env, RetryPolicy::default()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(exit::PROVIDER_ERROR);
        }
    };
    let interactive = !args.non_interactive && args.task != "-" && std::io::stdin().is_terminal();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let code = runtime.block_on(async {
        // The same tool world as the TUI: built-in tools and every MCP server, behind
        // the one gate, with `--approve` as the mode.
        let options = WorkbenchOptions {
            interactive,
            mode: args.approve,
            always_file: source,
            asker: Some(super::mcp_session::headless_asker(cli)),
            ..WorkbenchOptions::default()
        };
        let workbench = match Workbench::start(&config, &dirs, options).await {
            Ok(w) => w,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        if !config.servers.is_empty() {
            workbench.settle().await;
            workbench.sync_now().await;
        }
        let registry = Arc::clone(&workbench.registry);
        let mut options =
            session_options(&config, &dirs, &dirs.cwd, provider, registry, !args.no_save)?;
        if let Ok(builtins) = &workbench.builtins {
            options.skills = builtins.visible_skills(config.skills.allow.as_deref());
        }
        if let Some(max) = args.max_steps {
            options.max_steps = max;
        }
        options.request_options = RequestOptions {
            model: args.model.clone(),
            ..RequestOptions::default()
        };
        let handle = Session::spawn(options);
        let mut stdout = std::io::stdout().lock();
        let mut stderr = std::io::stderr();
        let outcome = run_headless(
            handle,
            task,
            args.json,
            &mut stdout,
            &mut stderr,
            &mut ask_on_terminal,
        )
        .await;
        workbench.shutdown().await;
        outcome.map_err(color_eyre::Report::from)
    })?;
    runtime.shutdown_background();
    std::process::exit(code.exit_code)
}

fn read_task(task: &str) -> color_eyre::Result<String> {
    let text = if task == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        text
    } else {
        task.to_owned()
    };
    if text.trim().is_empty() {
        eprintln!("error: the task is empty");
        std::process::exit(1);
    }
    Ok(text)
}

/// Asks on stderr, reads the answer from stdin: y once, s session, n deny, a abort.
fn ask_on_terminal(request: &ApprovalRequest) -> ApprovalDecision {
    let mut stderr = std::io::stderr();
    let _ = write!(
        stderr,
        "\n{} wants to {}: {}\n  because {}\n  [y] once  [s] this session  [n] deny  [a] abort turn > ",
        request.tool, request.effect, request.args, request.reason
    );
    let _ = stderr.flush();
    let mut line = String::new();
    if std::io::stdin().read_line(&mut line).is_err() {
        return ApprovalDecision::Abort;
    }
    match line.trim() {
        "y" | "Y" | "yes" => ApprovalDecision::Once,
        "s" | "S" => ApprovalDecision::Session,
        "a" | "A" => ApprovalDecision::Abort,
        _ => ApprovalDecision::Deny { reason: None },
    }
}
