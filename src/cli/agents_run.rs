//! `switchboard run --agents a,b --mode sequential|parallel|pipeline [--resilient]
//! TASK`: the coordinator, headless. Each step is a call of `agent__NAME` through the
//! gate; `--json` prints the trace (no task text or outputs unless `[policy]
//! audit_arguments = true`) and then one `results` line with each step's answer,
//! otherwise each agent's answer under its name.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

use super::mcp_session::safe;
use crate::agent::headless::exit;
use crate::agents::{Plan, RunMode, StepOutcome, coordinate, outcomes_text};
use crate::gate::{ApprovalBroker, GateEvent, GateObserver};
use crate::keymap::Keymap;
use crate::policy::Origin;
use crate::tools::ToolContext;
use crate::workbench::Workbench;

/// What `run` was asked to coordinate.
#[derive(Debug, Clone)]
pub struct AgentsRequest<'a> {
    pub agents: &'a [String],
    pub mode: RunMode,
    pub resilient: bool,
    pub json: bool,
    pub interactive: bool,
}

/// Runs the agents; the exit code: 0 every step succeeded, 4 a step failed, 1 an
/// unknown agent.
pub async fn run_agents(workbench: &Workbench, request: &AgentsRequest<'_>, task: &str) -> i32 {
    let known = &workbench.config.agents;
    if let Some(unknown) = request.agents.iter().find(|a| !known.contains_key(*a)) {
        let names: Vec<&str> = known.keys().map(String::as_str).collect();
        eprintln!(
            "error: no [agents.{}] in the config; configured: {}",
            safe(unknown),
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        );
        return 1;
    }
    let plan = Plan {
        mode: request.mode,
        agents: request.agents.to_vec(),
        resilient: request.resilient,
    };
    let mut base = ToolContext::new(format!("agents-{}", std::process::id()), Origin::Cli);
    if request.interactive {
        let keymap = Keymap::with_overrides(&workbench.config.ui.keys).unwrap_or_default();
        base = base.with_observer(Arc::new(TerminalApprover {
            broker: Arc::clone(&workbench.broker),
            keymap,
            one_at_a_time: Arc::new(Mutex::new(())),
        }));
    }
    let json = request.json;
    let trace = |line: &Map<String, Value>| {
        if json {
            println!("{}", Value::Object(line.clone()));
        }
    };
    let outcomes = coordinate(&workbench.registry, &plan, task, &base, &trace).await;
    if json {
        // The trace (also the audit log's) carries no text; the answers come last,
        // for the script that asked for them.
        print!("{}", results_line(&outcomes));
    } else {
        print_outcomes(&outcomes);
    }
    if outcomes.iter().any(|o| o.error.is_some()) {
        exit::TOOL_ERROR
    } else {
        exit::DONE
    }
}

/// `{"event": "results", "steps": [{index, agent, output, error, steps, duration_ms}]}`
/// on one line, in the agents' order.
fn results_line(outcomes: &[StepOutcome]) -> String {
    super::mcp_session::json_line(&serde_json::json!({"event": "results", "steps": outcomes}))
}

fn print_outcomes(outcomes: &[StepOutcome]) {
    print!("{}", crate::sanitize::sanitize(&outcomes_text(outcomes)));
}

/// Asks on the terminal for the agents' calls that need approval, one at a time.
struct TerminalApprover {
    broker: Arc<ApprovalBroker>,
    keymap: Keymap,
    one_at_a_time: Arc<Mutex<()>>,
}

impl GateObserver for TerminalApprover {
    fn event(&self, event: GateEvent) {
        let GateEvent::ApprovalRequested(request) = event else {
            return;
        };
        let broker = Arc::clone(&self.broker);
        let keymap = self.keymap.clone();
        let lock = Arc::clone(&self.one_at_a_time);
        tokio::spawn(async move {
            let id = request.id;
            let asked = tokio::task::spawn_blocking(move || {
                let _turn = lock.lock().unwrap_or_else(PoisonError::into_inner);
                super::run_cmd::ask_on_terminal(&keymap, &request)
            })
            .await;
            if let Ok(decision) = asked {
                broker.decide(id, decision);
            }
        });
    }
}
