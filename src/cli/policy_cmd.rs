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
            // An MCP tool's effect comes from its server's annotations, as at the gate:
            // that server alone is started to read them.
            let asked_server = effect.is_none()
                && policy.effect_override(tool).is_none()
                && builtin_spec(tool).is_none();
            let looked_up = match crate::tools::split_qualified(tool) {
                Some((server, _)) if asked_server => Some((
                    server,
                    super::mcp_session::run_blocking(mcp_spec(cli, server, tool)),
                )),
                _ => None,
            };
            let spec = looked_up
                .as_ref()
                .and_then(|(_, found)| found.as_ref().ok());
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{}", explain(&policy, tool, &args, *effect, spec))?;
            if let Some((server, Err(why))) = &looked_up {
                writeln!(
                    stdout,
                    "note: could not read {tool}'s annotations from server {} ({}); its \
                     effect was taken as unknown (--effect EFFECT says what to assume)",
                    super::mcp_session::safe(server),
                    super::mcp_session::safe(why)
                )?;
            }
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
/// built-in tool's classification or the MCP tool's (`mcp`, from its server's
/// annotations, as the gate classifies it), else `unknown`.
pub fn explain(
    policy: &Policy,
    tool: &str,
    args: &Map<String, Value>,
    effect: Option<ToolEffect>,
    mcp: Option<&crate::tools::ToolSpec>,
) -> String {
    let spec = builtin_spec(tool).or_else(|| mcp.cloned());
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

/// The spec of MCP tool `tool` as the gate sees it, from its server alone (started,
/// listed, shut down); why not when it cannot be had.
async fn mcp_spec(cli: &Cli, server: &str, tool: &str) -> Result<crate::tools::ToolSpec, String> {
    let workbench = super::mcp_session::open_servers(cli, None, &[server])
        .await
        .map_err(|_| "the config could not be loaded".to_owned())?;
    let ready = super::mcp_session::readiness(&workbench, server).await;
    let spec = workbench
        .registry
        .specs()
        .into_iter()
        .find(|s| s.name == tool);
    workbench.shutdown().await;
    ready.map_err(|(_, why)| why)?;
    spec.ok_or_else(|| "it has no such tool".to_owned())
}
