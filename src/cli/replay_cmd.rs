//! `switchboard replay SESSION`: the tool calls, reads and prompts of a saved session
//! made again against today's servers, headless, and compared with what they gave
//! then (`crate::replay`). Tool calls go through the registry's gate with origin
//! `cli`, non-interactive as `switchboard call`: a call the policy would ask about is
//! refused. Nothing is sent to a model.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use clap::Args;
use serde_json::{Value, json};

use super::Cli;
use super::mcp_session::{
    exit, json as pretty_json, load_config_naming, print, ready_server, run_to_exit, safe, start,
};
use crate::agent::SessionStore;
use crate::paths::Dirs;
use crate::policy::Mode;
use crate::replay::{Difference, Pointer, Replayer, Status, Verdict, recorded_calls};

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The session id (see `switchboard sessions`).
    pub id: String,
    /// Replay only the calls of this server (`builtin` for the built-in tools).
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// Leave this field out of both results before comparing: a JSON Pointer
    /// (RFC 6901) such as /timestamp; repeatable.
    #[arg(long, value_name = "POINTER")]
    pub ignore: Vec<Pointer>,
    /// Decide in this mode instead of the configured one
    /// (read-only, ask, auto-edit, full-auto, plan).
    #[arg(long, value_name = "MODE")]
    pub approve: Option<Mode>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Cli, args: &ReplayArgs) -> color_eyre::Result<()> {
    run_to_exit(replay(cli, args))
}

async fn replay(cli: &Cli, args: &ReplayArgs) -> i32 {
    let dirs = Dirs::from_env();
    let loaded = match SessionStore::from_dirs(&dirs).load(&args.id) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("error: {}", safe(&e.to_string()));
            return exit::USAGE;
        }
    };
    if let Some(notice) = &loaded.notice {
        eprintln!("{}", safe(notice));
    }
    let calls: Vec<_> = recorded_calls(loaded.agent_events())
        .into_iter()
        .filter(|c| args.server.as_deref().is_none_or(|s| c.server() == s))
        .collect();
    // The MCP servers the calls to make need; the others are not started.
    let servers: BTreeSet<String> = calls
        .iter()
        .filter(|c| c.skip_reason().is_none())
        .map(|c| c.server().to_owned())
        .filter(|s| !s.is_empty() && s != super::call_cmd::BUILTIN)
        .collect();
    let (mut config, _) = match load_config_naming(cli, &dirs, args.server.as_deref(), None) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    config.servers.retain(|name, _| servers.contains(name));
    let workbench = match start(cli, &config, &dirs, args.approve).await {
        Ok(w) => w,
        Err(code) => return code,
    };
    // A server that does not start is said once; its calls are skipped.
    let mut down: BTreeMap<String, i32> = BTreeMap::new();
    for server in &servers {
        if let Err(code) = ready_server(&workbench, server).await {
            down.insert(server.clone(), code);
        }
    }
    workbench.sync_now().await;
    let replayer = Replayer {
        registry: &workbench.registry,
        hub: &workbench.hub,
        run_id: format!("replay-{}", std::process::id()),
        model_limit: workbench.config.agent.max_tool_result_chars,
        ignore: args.ignore.clone(),
    };
    let mut verdicts = Vec::with_capacity(calls.len());
    for (n, call) in calls.into_iter().enumerate() {
        let verdict = if down.contains_key(call.server()) {
            let reason = format!("server {} did not start", call.server());
            Verdict::skipped(call, reason)
        } else {
            replayer.replay(call, n + 1).await
        };
        if !args.json {
            print(&human(&verdict));
        }
        verdicts.push(verdict);
    }
    workbench.shutdown().await;
    if args.json {
        print(&pretty_json(&report(&args.id, &verdicts)));
    } else {
        print(&summary(&verdicts));
    }
    exit_code(&verdicts, &down)
}

/// A server that did not start wins (its status: 3 unreachable), then a call the
/// policy denied (5), then any difference (1).
fn exit_code(verdicts: &[Verdict], down: &BTreeMap<String, i32>) -> i32 {
    if let Some(code) = down.values().next() {
        return *code;
    }
    if verdicts.iter().any(Verdict::denied) {
        return exit::DENIED;
    }
    if verdicts.iter().any(|v| v.status == Status::Differs) {
        return exit::USAGE;
    }
    exit::OK
}

/// At most this many characters of a value in a field's line.
const VALUE_CHARS: usize = 120;

/// `differs  demo__add  (call-1, model)`, then one indented line per difference.
fn human(verdict: &Verdict) -> String {
    let call = &verdict.call;
    let mut out = format!(
        "{:<8} {}  ({}, {})",
        verdict.status.as_str(),
        safe(&call.label()),
        safe(call.call_id.as_str()),
        call.origin.as_str()
    );
    if let Some(reason) = &verdict.reason {
        let _ = write!(out, ": {}", safe(reason));
    }
    out.push('\n');
    if verdict.denied()
        && let Some(now) = &verdict.now
    {
        let first = now.text.lines().next().unwrap_or_default();
        let _ = writeln!(out, "    denied by policy: {}", safe(first));
    }
    for difference in &verdict.differences {
        out.push_str(&difference_lines(difference));
    }
    out
}

fn difference_lines(difference: &Difference) -> String {
    match difference {
        Difference::Outcome { was, now } => {
            format!("    outcome: {} → {}\n", was.as_str(), now.as_str())
        }
        Difference::Text { diff } => {
            let mut out = String::from("    text:\n");
            for line in diff.lines() {
                let _ = writeln!(out, "      {}", safe(line));
            }
            out
        }
        Difference::Field {
            part,
            pointer,
            was,
            now,
        } => {
            let field = if pointer.is_empty() {
                "(the whole value)"
            } else {
                pointer
            };
            format!(
                "    {} {}: {} → {}\n",
                part.as_str(),
                safe(field),
                shown(was.as_ref()),
                shown(now.as_ref())
            )
        }
        Difference::More { part, count } => {
            format!("    {} … {count} more fields differ\n", part.as_str())
        }
    }
}

/// A value as compact JSON, cut; `(none)` where the field is missing.
fn shown(value: Option<&Value>) -> String {
    let Some(value) = value else {
        return "(none)".into();
    };
    let text = value.to_string();
    let mut cut: String = text.chars().take(VALUE_CHARS).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    safe(&cut)
}

fn counts(verdicts: &[Verdict]) -> (usize, usize, usize, usize) {
    let of = |status| verdicts.iter().filter(|v| v.status == status).count();
    let denied = verdicts.iter().filter(|v| v.denied()).count();
    (
        of(Status::Same),
        of(Status::Differs),
        of(Status::Skipped),
        denied,
    )
}

/// `3 calls: 2 same, 1 differs, 0 skipped` (and how many the policy denied).
fn summary(verdicts: &[Verdict]) -> String {
    let (same, differs, skipped, denied) = counts(verdicts);
    let calls = if verdicts.len() == 1 { "call" } else { "calls" };
    let mut out = format!(
        "{} {calls}: {same} same, {differs} differ{}, {skipped} skipped",
        verdicts.len(),
        if differs == 1 { "s" } else { "" }
    );
    if denied > 0 {
        let _ = write!(out, "; {denied} denied by policy");
    }
    out.push('\n');
    out
}

/// `{session, calls: [{call_id, origin, server, what, status, reason, denied,
/// differences}], same, differs, skipped, denied}`.
fn report(id: &str, verdicts: &[Verdict]) -> Value {
    let calls: Vec<Value> = verdicts
        .iter()
        .map(|v| {
            json!({
                "call_id": v.call.call_id,
                "origin": v.call.origin.as_str(),
                "server": v.call.server(),
                "what": v.call.label(),
                "status": v.status,
                "reason": v.reason,
                "denied": v.denied(),
                "differences": v.differences,
            })
        })
        .collect();
    let (same, differs, skipped, denied) = counts(verdicts);
    json!({
        "session": id,
        "calls": calls,
        "same": same,
        "differs": differs,
        "skipped": skipped,
        "denied": denied,
    })
}
