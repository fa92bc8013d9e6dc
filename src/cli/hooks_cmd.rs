//! `switchboard hooks run EVENT`: runs the configured hooks of one event as the gate
//! does and prints what they decided — for writing and checking hooks.

use std::fmt::Write as _;

use clap::Subcommand;
use serde_json::{Value, json};

use super::Cli;
use super::mcp_session::{exit, json, print, run_to_exit, safe};
use crate::hooks::{HookDecision, HookEvent, HookInput, HookVerdict, Hooks};
use crate::paths::Dirs;

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Run the hooks of EVENT (pre_tool_use, post_tool_use, user_prompt_submit,
    /// session_start, stop, permission_request) and print their verdict.
    Run {
        event: String,
        /// Qualified tool name (tool events).
        #[arg(long)]
        tool: Option<String>,
        /// The call's arguments as a JSON object (tool events).
        #[arg(long, default_value = "{}")]
        args: String,
        /// The call's effect (tool events).
        #[arg(long, default_value = "unknown")]
        effect: String,
        /// The gate's decision so far (tool events).
        #[arg(long, default_value = "allow")]
        decision: String,
        /// The user's message (user_prompt_submit).
        #[arg(long)]
        prompt: Option<String>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cli: &Cli, cmd: &HooksCommand) -> color_eyre::Result<()> {
    let HooksCommand::Run {
        event,
        tool,
        args,
        effect,
        decision,
        prompt,
        json: as_json,
    } = cmd;
    run_to_exit(async move {
        let Some(event) = HookEvent::from_key(event) else {
            let keys: Vec<&str> = HookEvent::ALL.iter().map(|e| e.key()).collect();
            eprintln!(
                "switchboard: unknown event `{event}`; events: {}",
                keys.join(", ")
            );
            return exit::USAGE;
        };
        let Ok(arguments) = serde_json::from_str::<Value>(args) else {
            eprintln!("switchboard: --args must be JSON: {args}");
            return exit::USAGE;
        };
        // A project's hooks run only once the folder is trusted.
        let hooks = match super::mcp_session::load_config(cli, &Dirs::from_env()) {
            Ok((config, _)) => Hooks::from_config(&config.hooks).unwrap_or_default(),
            Err(code) => return code,
        };
        let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
        let mut input = HookInput::new(event, "cli", cwd);
        if let Some(tool) = tool {
            input = input.tool_call(tool, arguments, effect, decision);
        }
        input.prompt.clone_from(prompt);
        let verdict = hooks.run(&input).await;
        print(&if *as_json {
            verdict_json(&verdict)
        } else {
            verdict_text(&verdict)
        });
        if verdict.is_deny() {
            exit::DENIED
        } else {
            exit::OK
        }
    })
}

fn verdict_json(v: &HookVerdict) -> String {
    json(
        &json!({"decision": v.decision.map(HookDecision::as_str), "reason": v.reason,
        "context": v.context, "warnings": v.warnings, "hooks": v.records}),
    )
}

fn verdict_text(v: &HookVerdict) -> String {
    if v.records.is_empty() {
        return "no hook matches\n".into();
    }
    let mut out = String::new();
    for r in &v.records {
        let code = r
            .exit_code
            .map_or_else(|| "-".to_owned(), |c| c.to_string());
        let _ = writeln!(
            out,
            "{:<6} exit {code:<3} {:>5} ms  {}",
            r.outcome,
            r.duration_ms,
            safe(&r.command)
        );
    }
    let decision = v.decision.map_or("none (go on)", HookDecision::as_str);
    let _ = write!(out, "decision: {decision}");
    if let Some(reason) = &v.reason {
        let _ = write!(out, " — {}", safe(reason));
    }
    out.push('\n');
    for c in &v.context {
        let _ = writeln!(out, "context: {}", safe(c));
    }
    for w in &v.warnings {
        let _ = writeln!(out, "warning: {}", safe(w));
    }
    out
}
