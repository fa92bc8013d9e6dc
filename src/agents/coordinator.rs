//! Running several agents on one task: `sequential` (each on the task, in order),
//! `parallel` (concurrently, bounded, results in the agents' order) and `pipeline`
//! (each output is the next task). Without `resilient` the first failure stops the
//! run; with it a failure is that step's error and the others go on (a pipeline
//! still stops where it failed). Every step is a call of `agent__NAME` through
//! `Registry::invoke`.
//!
//! Traces (`--json`, the audit log) hold the mode, the agents, step counts, failures
//! and durations; the task and the outputs only with `[policy] audit_arguments`.

use std::fmt::Write as _;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::tool::{AgentTool, RunFacts};
use crate::config::AgentDef;
use crate::gate::CallId;
use crate::policy::Origin;
use crate::tools::{CallOutcome, Registry, ToolContext, ToolResult};

/// Agents run at once in `parallel` mode.
pub const PARALLEL_LIMIT: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    Sequential,
    Parallel,
    Pipeline,
}

impl RunMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sequential => "sequential",
            Self::Parallel => "parallel",
            Self::Pipeline => "pipeline",
        }
    }
}

impl FromStr for RunMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "sequential" => Ok(Self::Sequential),
            "parallel" => Ok(Self::Parallel),
            "pipeline" => Ok(Self::Pipeline),
            _ => Err(format!(
                "unknown mode {s:?}: expected sequential, parallel or pipeline"
            )),
        }
    }
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub mode: RunMode,
    pub agents: Vec<String>,
    pub resilient: bool,
}

/// Why a step produced no output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepError {
    /// `agent_error`, `denied`, `unknown_agent`, `cancelled`, `not_run`.
    pub code: String,
    pub retryable: bool,
    pub message: String,
}

/// One step's result, with the agent that produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepOutcome {
    pub index: usize,
    pub agent: String,
    pub output: Option<String>,
    pub error: Option<StepError>,
    /// Model requests the agent made.
    pub steps: u32,
    pub duration_ms: u64,
}

/// Each answer under its agent's name (`== scout ==`), or the step's error; raw text
/// (sanitise it before it reaches a terminal).
pub fn outcomes_text(outcomes: &[StepOutcome]) -> String {
    let mut text = String::new();
    for o in outcomes {
        let _ = writeln!(text, "== {} ==", o.agent);
        match (&o.output, &o.error) {
            (_, Some(e)) => {
                let retry = if e.retryable { ", retryable" } else { "" };
                let _ = writeln!(text, "error ({}{retry}): {}", e.code, e.message);
            }
            (Some(out), None) => {
                text.push_str(out.trim_end());
                text.push('\n');
            }
            (None, None) => {}
        }
    }
    text
}

/// Where trace lines go (besides the audit log).
pub type TraceFn<'a> = dyn Fn(&Map<String, Value>) + Sync + 'a;

/// Runs `plan` on `task`; `base` is the context every step's call starts from.
pub async fn coordinate(
    registry: &Arc<Registry>,
    plan: &Plan,
    task: &str,
    base: &ToolContext,
    trace: &TraceFn<'_>,
) -> Vec<StepOutcome> {
    let started = Instant::now();
    let with_text = registry.audit().records_arguments();
    let emit = |line: Value| {
        if let Value::Object(line) = line {
            trace(&line);
            registry.audit().append_trace(line);
        }
    };
    let mut first = json!({"event": "coordinator_started", "run_id": base.run_id,
        "mode": plan.mode.as_str(), "agents": plan.agents, "agent_count": plan.agents.len(),
        "resilient": plan.resilient});
    if with_text {
        first["task"] = json!(task);
    }
    emit(first);
    let outcomes = steps(
        registry,
        plan,
        task,
        base,
        &|i: usize, o: Option<&StepOutcome>| {
            let line = match o {
                None => json!({"event": "step_started", "run_id": base.run_id, "index": i,
                "agent": plan.agents.get(i)}),
                Some(o) => step_line(&base.run_id, o, with_text),
            };
            emit(line);
        },
    )
    .await;
    let failures = outcomes.iter().filter(|o| o.error.is_some()).count();
    emit(
        json!({"event": "coordinator_finished", "run_id": base.run_id,
        "mode": plan.mode.as_str(), "agent_count": plan.agents.len(),
        "steps_run": outcomes.len(), "failures": failures, "ok": failures == 0,
        "duration_ms": ms(started)}),
    );
    outcomes
}

fn step_line(run_id: &str, o: &StepOutcome, with_text: bool) -> Value {
    let mut line = json!({"event": "step_finished", "run_id": run_id, "index": o.index,
        "agent": o.agent, "ok": o.error.is_none(), "steps": o.steps,
        "duration_ms": o.duration_ms});
    if let Some(e) = &o.error {
        line["error"] = json!({"code": e.code, "retryable": e.retryable});
        if with_text {
            line["error"]["message"] = json!(e.message);
        }
    }
    if with_text && let Some(out) = &o.output {
        line["output"] = json!(out);
    }
    line
}

type StepHook<'a> = dyn Fn(usize, Option<&StepOutcome>) + Sync + 'a;

async fn steps<'a>(
    registry: &'a Arc<Registry>,
    plan: &'a Plan,
    task: &str,
    base: &'a ToolContext,
    hook: &'a StepHook<'_>,
) -> Vec<StepOutcome> {
    let stop = base.cancel.child_token();
    let run = |i: usize, agent: &'a str, task: String| {
        let stop = stop.clone();
        async move {
            if stop.is_cancelled() {
                return not_run(i, agent);
            }
            hook(i, None);
            let outcome = step(registry, i, agent, task, base, &stop).await;
            if outcome.error.is_some() && !plan.resilient {
                stop.cancel();
            }
            hook(i, Some(&outcome));
            outcome
        }
    };
    match plan.mode {
        RunMode::Parallel => {
            // Built first: a stream mapped by a closure over borrowed names is not
            // `Send` for the compiler.
            let calls: Vec<_> = (plan.agents.iter().enumerate())
                .map(|(i, agent)| run(i, agent.as_str(), task.to_owned()))
                .collect();
            futures::stream::iter(calls)
                .buffered(PARALLEL_LIMIT)
                .collect()
                .await
        }
        RunMode::Sequential | RunMode::Pipeline => {
            let mut out: Vec<StepOutcome> = Vec::new();
            let mut next = task.to_owned();
            for (i, agent) in plan.agents.iter().enumerate() {
                if stop.is_cancelled() {
                    break;
                }
                let outcome = run(i, agent, next.clone()).await;
                let failed = outcome.error.is_some();
                if plan.mode == RunMode::Pipeline {
                    next = outcome.output.clone().unwrap_or_default();
                }
                out.push(outcome);
                if failed && plan.mode == RunMode::Pipeline {
                    break;
                }
            }
            out
        }
    }
}

fn not_run(index: usize, agent: &str) -> StepOutcome {
    StepOutcome {
        index,
        agent: agent.to_owned(),
        output: None,
        error: Some(StepError {
            code: "not_run".into(),
            retryable: true,
            message: "not run: an earlier step failed".into(),
        }),
        steps: 0,
        duration_ms: 0,
    }
}

/// One step: `agent__NAME {"task": …}` through the gate.
async fn step(
    registry: &Registry,
    index: usize,
    agent: &str,
    task: String,
    base: &ToolContext,
    stop: &CancellationToken,
) -> StepOutcome {
    let started = Instant::now();
    let prefix = base
        .call_id
        .as_ref()
        .map_or(base.run_id.as_str(), |c| c.as_str());
    let ctx = base
        .clone()
        .with_call_id(CallId(format!("{prefix}/step-{index}")))
        .with_cancel(stop.clone());
    let mut args = Map::new();
    args.insert("task".into(), Value::String(task));
    let outcome = registry
        .invoke(&AgentDef::tool_name(agent), args, &ctx)
        .await;
    let steps = match &outcome {
        CallOutcome::Ran(r) => r.metadata.get("steps").and_then(Value::as_u64).unwrap_or(0),
        _ => 0,
    };
    let (output, error) = match outcome {
        CallOutcome::Ran(r) if !r.is_error => (Some(r.text_content()), None),
        CallOutcome::Ran(r) => {
            let retryable = r
                .metadata
                .get("retryable")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            (
                None,
                Some(error("agent_error", retryable, r.text_content())),
            )
        }
        CallOutcome::Denied { message, .. } => (None, Some(error("denied", false, message))),
        CallOutcome::Aborted | CallOutcome::Cancelled => {
            (None, Some(error("cancelled", true, "cancelled".into())))
        }
        CallOutcome::Failed(e) => (
            None,
            Some(error(
                "unknown_agent",
                false,
                format!("{e}: no [agents.{agent}]"),
            )),
        ),
    };
    StepOutcome {
        index,
        agent: agent.to_owned(),
        output,
        error,
        steps: u32::try_from(steps).unwrap_or(u32::MAX),
        duration_ms: ms(started),
    }
}

fn error(code: &str, retryable: bool, message: String) -> StepError {
    StepError {
        code: code.into(),
        retryable,
        message,
    }
}

fn ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// `kind = "chain"`: its agents as a pipeline, called as the chain (one deeper).
pub(super) async fn run_chain(
    tool: &AgentTool,
    def: &AgentDef,
    registry: &Arc<Registry>,
    task: &str,
    ctx: &ToolContext,
) -> (ToolResult, RunFacts) {
    let prefix = ctx
        .call_id
        .as_ref()
        .map_or(ctx.run_id.as_str(), |c| c.as_str());
    let mut base = ToolContext::new(ctx.run_id.clone(), Origin::Agent)
        .with_agent(tool.name.clone(), ctx.depth + 1)
        .with_scope(ctx.scope)
        .with_cancel(ctx.cancel.clone())
        .with_call_id(CallId(format!("{prefix}/{}", tool.name)));
    base.observer.clone_from(&ctx.observer);
    let plan = Plan {
        mode: RunMode::Pipeline,
        agents: def.agents.clone(),
        resilient: false,
    };
    let outcomes = steps(registry, &plan, task, &base, &|_, _| {}).await;
    let mut facts = RunFacts {
        outcome: "completed",
        steps: outcomes.iter().map(|o| o.steps).sum(),
        tool_calls: u32::try_from(outcomes.len()).unwrap_or(u32::MAX),
        ..RunFacts::default()
    };
    let last = outcomes.last();
    let result = match last.and_then(|o| o.error.as_ref().map(|e| (o, e))) {
        Some((o, e)) => {
            facts.outcome = "failed";
            facts.retryable = e.retryable;
            ToolResult::error(format!(
                "Chain {} stopped at step {} (agent {}): {}",
                tool.name,
                o.index + 1,
                o.agent,
                e.message
            ))
        }
        None => ToolResult::text(last.and_then(|o| o.output.clone()).unwrap_or_default()),
    };
    (result, facts)
}
