//! `switchboard policy …`

use std::io::Write as _;

use clap::Subcommand;
use serde_json::{Map, Value};

use super::Cli;
use crate::paths::Dirs;
use crate::policy::{CallFacts, Mode, Policy};
use crate::tools::ToolEffect;
use crate::tools::builtin_specs::builtin_spec;

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Print the decision for a tool call and the rule or mode that made it.
    Explain {
        /// Qualified tool name, e.g. `fs` or `everything__echo`.
        tool: String,
        /// Arguments as a JSON object.
        #[arg(default_value = "{}")]
        args: String,
        /// Classify the call as this effect (read, compute, write, delete, unknown)
        /// instead of deriving it from the tool and arguments.
        #[arg(long, value_name = "EFFECT")]
        effect: Option<ToolEffect>,
        /// Decide in this mode instead of the configured one
        /// (read-only, ask, auto-edit, full-auto, plan).
        #[arg(long, value_name = "MODE")]
        approve: Option<Mode>,
    },
}

pub fn run(cli: &Cli, cmd: &PolicyCommand) -> color_eyre::Result<()> {
    match cmd {
        PolicyCommand::Explain {
            tool,
            args,
            effect,
            approve,
        } => {
            let args: Map<String, Value> = serde_json::from_str(args)
                .map_err(|e| color_eyre::eyre::eyre!("ARGS must be a JSON object ({e}): {args}"))?;
            let mut policy = load_policy(cli);
            if let Some(mode) = approve {
                policy = policy.with_mode(*mode);
            }
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{}", explain(&policy, tool, &args, *effect))?;
            stdout.flush()?;
            Ok(())
        }
    }
}

/// The configured policy (the user's, with a trusted project's on top); config
/// errors are printed as `file:line:col` and exit 1.
fn load_policy(cli: &Cli) -> Policy {
    let (config, _) = super::mcp_session::load_config(cli, &Dirs::from_env())
        .unwrap_or_else(|code| std::process::exit(code));
    // Every layer's rules were checked when it was read.
    Policy::from_config(&config.policy).unwrap_or_else(|errors| {
        for e in errors {
            eprintln!("{}: {}", e.key, e.message);
        }
        std::process::exit(1)
    })
}

/// `fs {"operation":"write","path":"docs/a.md"} → write → allow (rule allow = "fs(write:docs/**)")`
///
/// The effect is `effect` when given, else the `[policy] effects` override, else the
/// built-in tool's classification, else `unknown`.
pub fn explain(
    policy: &Policy,
    tool: &str,
    args: &Map<String, Value>,
    effect: Option<ToolEffect>,
) -> String {
    let spec = builtin_spec(tool);
    let effect = effect
        .or_else(|| policy.effect_override(tool))
        .or_else(|| spec.as_ref().map(|s| s.effect_for(args)))
        .unwrap_or(ToolEffect::Unknown);
    let facts = match &spec {
        Some(spec) => spec.facts(args, effect),
        None => CallFacts::new(tool, effect),
    };
    let decision = policy.decide(&facts);
    format!(
        "{tool} {} → {effect} → {} ({})",
        Value::Object(args.clone()),
        decision.verdict,
        decision.reason
    )
}
