//! `switchboard run "TASK"`: one agent turn without the screen.

use std::io::{IsTerminal, Read, Write};
use std::sync::Arc;

use clap::Args;

use super::Cli;
use super::mcp_session::safe;
use crate::agent::headless::{exit, run_headless};
use crate::agent::{Session, session_options};
use crate::gate::{ApprovalDecision, ApprovalRequest};
use crate::keymap::{Action, Key, KeyCode, Keymap, Layer};
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
    /// Permission mode for this run (read-only, ask, auto-edit, full-auto, or plan:
    /// read-only, and the model proposes instead of acting).
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
    /// Any failed tool call fails the run (exit 4), even when the model recovered and
    /// answered.
    #[arg(long)]
    pub strict: bool,
    /// Run these `[agents.NAME]` on the task instead of one turn (see `--mode`).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub agents: Vec<String>,
    /// How `--agents` run: sequential, parallel or pipeline.
    #[arg(
        long,
        value_name = "MODE",
        default_value = "sequential",
        requires = "agents"
    )]
    pub mode: crate::agents::RunMode,
    /// With `--agents`: a failed step is recorded and the others go on.
    #[arg(long, requires = "agents")]
    pub resilient: bool,
}

/// Exit codes: 0 the turn completed with an answer, 1 bad config or task, 2 provider
/// error, 4 a tool call failed (only with `--strict`), 5 a required approval was
/// denied, 6 max steps reached, 7 a `user_prompt_submit` hook blocked the task.
pub fn run(cli: &Cli, args: &RunArgs) -> color_eyre::Result<()> {
    let dirs = Dirs::from_env();
    let (config, source) =
        super::mcp_session::load_config_naming(cli, &dirs, None, args.provider.as_deref())
            .unwrap_or_else(|code| std::process::exit(code));
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
        let wire = match super::mcp_session::wire_log(cli, &config, false) {
            Ok(wire) => wire,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let options = WorkbenchOptions {
            interactive,
            mode: args.approve,
            wire,
            always_file: source,
            asker: Some(super::mcp_session::headless_asker(cli)),
            login: super::mcp::headless_login_without_paste(),
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
        if !args.agents.is_empty() {
            let request = super::agents_run::AgentsRequest {
                agents: &args.agents,
                mode: args.mode,
                resilient: args.resilient,
                json: args.json,
                interactive,
            };
            let code = super::agents_run::run_agents(&workbench, &request, &task).await;
            workbench.shutdown().await;
            return Ok(crate::agent::headless::HeadlessOutcome {
                exit_code: code,
                reason: None,
                answer: String::new(),
            });
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
        let keymap = crate::keymap::Keymap::with_overrides(&config.ui.keys).unwrap_or_default();
        let mut ask = |request: &ApprovalRequest| ask_on_terminal(&keymap, request);
        let outcome =
            run_headless(handle, task, args.json, &mut stdout, &mut stderr, &mut ask).await;
        workbench.shutdown().await;
        outcome.map_err(color_eyre::Report::from)
    })?;
    runtime.shutdown_background();
    if !args.agents.is_empty() {
        // A coordinator run fails when a step failed, whatever `--strict` says.
        std::process::exit(code.exit_code);
    }
    std::process::exit(final_code(code.exit_code, args.strict))
}

/// A turn that completed with an answer succeeds although a call failed on the way
/// (the model saw the failure and recovered; `failed_calls` in the `turn_done` event
/// still counts them); `--strict` keeps that a failure.
pub fn final_code(code: i32, strict: bool) -> i32 {
    if code == exit::TOOL_ERROR && !strict {
        exit::DONE
    } else {
        code
    }
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

/// The approval pane's answers: the same keymap, so the same letters and meanings as
/// the TUI (`y` once, `s` this session, `a` always, `n` deny, `N` deny with a reason,
/// Esc aborts the turn; typed as a line, `esc` also stands for Esc). `None` for
/// anything else.
pub fn approval_action(keymap: &Keymap, line: &str) -> Option<Action> {
    let line = line.trim_matches(|c: char| c == '\n' || c == '\r' || c == ' ');
    let key = match line {
        "\u{1b}" => Key::plain(KeyCode::Esc),
        one if one.chars().count() == 1 => Key::char(one.chars().next()?),
        other => Key::parse(other).ok()?,
    };
    let action = keymap.lookup(Layer::Approval, key)?;
    APPROVAL_ACTIONS.contains(&action).then_some(action)
}

const APPROVAL_ACTIONS: [Action; 6] = [
    Action::ApproveOnce,
    Action::ApproveSession,
    Action::ApproveAlways,
    Action::Deny,
    Action::DenyWithReason,
    Action::AbortTurn,
];

/// `[y] once  [s] this session  …` from the keymap.
fn choices(keymap: &Keymap) -> String {
    let label = |action: Action| match action {
        Action::ApproveOnce => "once",
        Action::ApproveSession => "this session",
        Action::ApproveAlways => "always",
        Action::Deny => "deny",
        Action::DenyWithReason => "deny with a reason",
        _ => "abort turn",
    };
    APPROVAL_ACTIONS
        .iter()
        .map(|a| format!("[{}] {}", keymap.hint(Layer::Approval, *a), label(*a)))
        .collect::<Vec<_>>()
        .join("  ")
}

fn read_line() -> Option<String> {
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

/// Asks on stderr, reads the answer from stdin with the TUI's approval keys; anything
/// else denies, end of input aborts.
pub(super) fn ask_on_terminal(keymap: &Keymap, request: &ApprovalRequest) -> ApprovalDecision {
    let mut stderr = std::io::stderr();
    let _ = write!(
        stderr,
        "\n{} wants to {}: {}\n  because {}\n  {} > ",
        safe(&request.tool),
        request.effect,
        safe(&request.args.to_string()),
        safe(&request.reason),
        choices(keymap)
    );
    let _ = stderr.flush();
    let Some(line) = read_line() else {
        return ApprovalDecision::Abort;
    };
    match approval_action(keymap, &line) {
        Some(Action::ApproveOnce) => ApprovalDecision::Once,
        Some(Action::ApproveSession) => ApprovalDecision::Session,
        Some(Action::ApproveAlways) => {
            let _ = write!(
                stderr,
                "  always allow: adds {} to [policy] allow; sure? [y/N] > ",
                safe(&request.always_rule)
            );
            let _ = stderr.flush();
            match read_line().as_deref().map(str::trim) {
                Some("y" | "Y" | "yes") => ApprovalDecision::Always,
                _ => ApprovalDecision::Deny { reason: None },
            }
        }
        Some(Action::DenyWithReason) => {
            let _ = write!(stderr, "  reason > ");
            let _ = stderr.flush();
            let reason = read_line()
                .map(|l| l.trim().to_owned())
                .filter(|l| !l.is_empty());
            ApprovalDecision::Deny { reason }
        }
        Some(Action::AbortTurn) => ApprovalDecision::Abort,
        _ => ApprovalDecision::Deny { reason: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_answers_approvals_with_the_tui_letters() {
        let keymap = Keymap::default();
        let action = |line: &str| approval_action(&keymap, line);
        assert_eq!(action("y\n"), Some(Action::ApproveOnce));
        assert_eq!(action("s\n"), Some(Action::ApproveSession));
        assert_eq!(action("a\n"), Some(Action::ApproveAlways));
        assert_eq!(action("n\n"), Some(Action::Deny));
        assert_eq!(action("N\n"), Some(Action::DenyWithReason));
        assert_eq!(action("\u{1b}\n"), Some(Action::AbortTurn));
        assert_eq!(action("esc\n"), Some(Action::AbortTurn));
        assert_eq!(action("q\n"), None);
        assert!(
            choices(&keymap).contains("[a] always"),
            "{}",
            choices(&keymap)
        );
    }

    #[test]
    fn a_recovered_turn_succeeds_unless_strict() {
        assert_eq!(final_code(exit::TOOL_ERROR, false), exit::DONE);
        assert_eq!(final_code(exit::TOOL_ERROR, true), exit::TOOL_ERROR);
        assert_eq!(
            final_code(exit::APPROVAL_DENIED, false),
            exit::APPROVAL_DENIED
        );
    }
}
