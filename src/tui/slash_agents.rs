//! `/agents a,b [--mode sequential|parallel|pipeline] [--resilient] TASK`: the
//! coordinator from the composer (the palette's "Run agents…" starts the line).

use crate::agents::{Plan, RunMode};
use crate::config::{AGENT_TOOL_PREFIX, suggest};

use super::msg::{CallCmd, Cmd};
use super::state::{Pane, State};

const USAGE: &str = "usage: /agents a,b [--mode sequential|parallel|pipeline] [--resilient] TASK";

/// The agents the catalog lists (`[agents.NAME]`), by name.
pub fn agent_names(state: &State) -> Vec<String> {
    (state.catalog.items.agents.iter())
        .filter_map(|e| e.name.strip_prefix(AGENT_TOOL_PREFIX))
        .map(str::to_owned)
        .collect()
}

pub fn command(state: &mut State, rest: &str) -> Result<Cmd, String> {
    let mut words = rest.split_whitespace().peekable();
    let list = words.next().ok_or_else(|| USAGE.to_owned())?;
    let known = agent_names(state);
    let mut agents = Vec::new();
    for name in list.split(',').filter(|n| !n.is_empty()) {
        if !known.iter().any(|k| k == name) {
            let names: Vec<&str> = known.iter().map(String::as_str).collect();
            let hint = suggest::hint(name, &names, "agents")
                .unwrap_or_else(|| "no [agents.NAME] is configured".into());
            return Err(format!("/agents: there is no agent named {name}; {hint}"));
        }
        agents.push(name.to_owned());
    }
    let (mut mode, mut resilient) = (RunMode::Sequential, false);
    while let Some(word) = words.peek() {
        match *word {
            "--resilient" => resilient = true,
            "--mode" => {
                words.next();
                let m = words.peek().ok_or_else(|| USAGE.to_owned())?;
                mode = m.parse().map_err(|e| format!("/agents: {e}"))?;
            }
            _ => break,
        }
        words.next();
    }
    let task = words.collect::<Vec<_>>().join(" ");
    if agents.is_empty() || task.is_empty() {
        return Err(USAGE.to_owned());
    }
    Ok(CallCmd::RunAgents {
        call_id: state.next_manual_call(),
        plan: Plan {
            mode,
            agents,
            resilient,
        },
        task,
    }
    .into())
}

/// The palette's "Run agents…": the composer gets the command with every agent,
/// ready for the mode and the task.
pub fn start(state: &mut State) {
    let line = format!(
        "/agents {} --mode sequential ",
        agent_names(state).join(",")
    );
    state.composer.set_text(&line);
    state.focus = Pane::Composer;
}
