//! Reads of one model response that the gate admits without asking run together;
//! their results still reach the model in call order. Everything else (a write that
//! asks, a read an ask rule catches, step mode) stays one at a time. Overlap is
//! shown by the order of events, never by timing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::support::final_text;
use serde_json::{Map, Value};
use switchboard::agent::{
    AgentEvent, Op, Session, SessionHandle, SessionOptions, StepPause, TurnEnd,
};
use switchboard::gate::{ApprovalBroker, ApprovalDecision, CallEnd, CallId, GateEvent};
use switchboard::llm::ScriptedProvider;
use switchboard::policy::{Mode, Policy, RuleList};
use switchboard::tools::builtin_specs::fs_spec;
use switchboard::tools::{Registry, Tool, ToolContext, ToolResult, ToolSpec};
use tokio::sync::Semaphore;

/// `fs` that answers `read PATH` and, for a held path, waits for a permit first.
struct SlowFs {
    spec: ToolSpec,
    holds: HashMap<String, Arc<Semaphore>>,
}

#[async_trait::async_trait]
impl Tool for SlowFs {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, args: Map<String, Value>, _ctx: &ToolContext) -> ToolResult {
        let path = args.get("path").and_then(Value::as_str).unwrap_or_default();
        if let Some(hold) = self.holds.get(path) {
            hold.acquire().await.unwrap().forget();
        }
        let op = args.get("operation").and_then(Value::as_str).unwrap();
        ToolResult::text(format!("{op} {path}"))
    }
}

/// A registry in ask mode whose `fs` holds the paths given (each until released).
async fn setup(policy: Policy, held: &[&str]) -> (Arc<Registry>, HashMap<String, Arc<Semaphore>>) {
    let holds: HashMap<String, Arc<Semaphore>> = held
        .iter()
        .map(|p| ((*p).to_owned(), Arc::new(Semaphore::new(0))))
        .collect();
    let broker = Arc::new(ApprovalBroker::new(true));
    let registry = Arc::new(Registry::new(policy, broker));
    let tool = SlowFs {
        spec: fs_spec(),
        holds: holds.clone(),
    };
    registry.register(Arc::new(tool)).await.unwrap();
    (registry, holds)
}

fn start(registry: &Arc<Registry>, text: &str) -> SessionHandle {
    let options = SessionOptions::new(Arc::new(ScriptedProvider::new()), Arc::clone(registry));
    let h = Session::spawn(options);
    h.send(Op::UserTurn { text: text.into() });
    h
}

fn read(path: &str) -> String {
    format!(r#"fs {{"operation":"read","path":"{path}"}}"#)
}

/// Events until `stop` matches (inclusive), appended to `seen`; 30 s hang guard.
async fn until(
    h: &mut SessionHandle,
    seen: &mut Vec<AgentEvent>,
    stop: impl Fn(&AgentEvent) -> bool,
) {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), h.next_event())
            .await
            .expect("no event within 30 s")
            .expect("session ended");
        let done = stop(&event);
        seen.push(event);
        if done {
            return;
        }
    }
}

fn started(e: &AgentEvent, id: &str) -> bool {
    matches!(e, AgentEvent::Gate(GateEvent::ToolCallStarted { call_id, .. }) if call_id.0 == id)
}

fn finished(e: &AgentEvent, id: &str) -> bool {
    matches!(e, AgentEvent::Gate(GateEvent::ToolCallFinished { call_id, .. }) if call_id.0 == id)
}

/// `(kind, call id)` of the call events, in the order they came.
fn call_events(events: &[AgentEvent]) -> Vec<(&'static str, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallRequested { call_id, .. } => Some(("requested", call_id.0.clone())),
            AgentEvent::Gate(g @ GateEvent::ToolCallStarted { .. }) => {
                Some(("started", g.call_id().0.clone()))
            }
            AgentEvent::Gate(g @ GateEvent::ApprovalRequested(_)) => {
                Some(("asked", g.call_id().0.clone()))
            }
            AgentEvent::Gate(g @ GateEvent::ToolCallFinished { .. }) => {
                Some(("finished", g.call_id().0.clone()))
            }
            AgentEvent::ToolResult { call_id, .. } => Some(("result", call_id.0.clone())),
            _ => None,
        })
        .collect()
}

fn position(events: &[(&str, String)], kind: &str, id: &str) -> usize {
    events
        .iter()
        .position(|(k, i)| *k == kind && i == id)
        .unwrap_or_else(|| panic!("no {kind} for {id} in {events:?}"))
}

fn results(events: &[AgentEvent]) -> Vec<(CallId, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult {
                call_id, content, ..
            } => Some((call_id.clone(), content.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn two_reads_overlap_and_their_results_reach_the_model_in_call_order() {
    let (registry, holds) = setup(Policy::new(Mode::Ask), &["a.txt", "b.txt"]).await;
    let mut h = start(&registry, &format!("{}\n{}", read("a.txt"), read("b.txt")));
    let mut events = Vec::new();
    // Both calls are inside the tool at once: neither can finish before its permit.
    for id in ["call_1", "call_2"] {
        if !events.iter().any(|e| started(e, id)) {
            until(&mut h, &mut events, |e| started(e, id)).await;
        }
    }
    // The second finishes first; its answer still comes after the first's.
    holds["b.txt"].add_permits(1);
    until(&mut h, &mut events, |e| finished(e, "call_2")).await;
    holds["a.txt"].add_permits(1);
    until(&mut h, &mut events, |e| {
        matches!(e, AgentEvent::TurnDone { .. })
    })
    .await;

    let order = call_events(&events);
    assert!(position(&order, "started", "call_2") < position(&order, "finished", "call_1"));
    assert!(position(&order, "finished", "call_2") < position(&order, "finished", "call_1"));
    assert!(position(&order, "requested", "call_1") < position(&order, "requested", "call_2"));
    let results = results(&events);
    assert_eq!(
        results,
        [
            (CallId::new("call_1"), "read a.txt".to_owned()),
            (CallId::new("call_2"), "read b.txt".to_owned()),
        ]
    );
    // The model got them in the order it asked.
    let answer = final_text(&events);
    let (a, b) = (
        answer.find("read a.txt").unwrap(),
        answer.find("read b.txt").unwrap(),
    );
    assert!(a < b, "{answer}");
    assert!(matches!(
        events.last(),
        Some(AgentEvent::TurnDone {
            reason: TurnEnd::Completed,
            ..
        })
    ));
}

#[tokio::test]
async fn a_write_between_reads_keeps_the_round_in_order_and_asks_alone() {
    let (registry, _holds) = setup(Policy::new(Mode::Ask), &[]).await;
    let write = r#"fs {"operation":"write","path":"w.txt","content":"hi"}"#;
    let text = format!("{}\n{write}\n{}", read("a.txt"), read("b.txt"));
    let mut h = start(&registry, &text);
    let mut events = Vec::new();
    until(&mut h, &mut events, |e| {
        matches!(e, AgentEvent::Gate(GateEvent::ApprovalRequested(_)))
    })
    .await;
    let Some(AgentEvent::Gate(GateEvent::ApprovalRequested(request))) = events.last().cloned()
    else {
        unreachable!()
    };
    h.send(Op::Decide {
        id: request.id,
        decision: ApprovalDecision::Once,
    });
    until(&mut h, &mut events, |e| {
        matches!(e, AgentEvent::TurnDone { .. })
    })
    .await;
    let order = call_events(&events);
    // The write is asked for only after the read before it answered, and the read
    // after it is not even announced until the write answered.
    assert!(position(&order, "result", "call_1") < position(&order, "requested", "call_2"));
    assert!(position(&order, "result", "call_2") < position(&order, "requested", "call_3"));
    let asked: Vec<_> = order.iter().filter(|(k, _)| *k == "asked").collect();
    assert_eq!(asked.len(), 1, "{order:?}");
    let ids: Vec<String> = results(&events).into_iter().map(|(id, _)| id.0).collect();
    assert_eq!(ids, ["call_1", "call_2", "call_3"]);
}

#[tokio::test]
async fn reads_an_ask_rule_catches_are_asked_for_one_at_a_time_in_order() {
    let policy = Policy::new(Mode::Ask)
        .with_rule(RuleList::Ask, "fs(read:*)")
        .unwrap();
    let (registry, _holds) = setup(policy, &[]).await;
    let mut h = start(&registry, &format!("{}\n{}", read("a.txt"), read("b.txt")));
    let mut events = Vec::new();
    for _ in 0..2 {
        until(&mut h, &mut events, |e| {
            matches!(e, AgentEvent::Gate(GateEvent::ApprovalRequested(_)))
        })
        .await;
        let Some(AgentEvent::Gate(GateEvent::ApprovalRequested(request))) = events.last().cloned()
        else {
            unreachable!()
        };
        h.send(Op::Decide {
            id: request.id,
            decision: ApprovalDecision::Once,
        });
    }
    until(&mut h, &mut events, |e| {
        matches!(e, AgentEvent::TurnDone { .. })
    })
    .await;
    let order = call_events(&events);
    assert!(position(&order, "asked", "call_1") < position(&order, "finished", "call_1"));
    assert!(position(&order, "finished", "call_1") < position(&order, "requested", "call_2"));
    let ends: Vec<CallEnd> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Gate(GateEvent::ToolCallFinished { outcome, .. }) => Some(*outcome),
            _ => None,
        })
        .collect();
    assert_eq!(ends, [CallEnd::Ok, CallEnd::Ok]);
}

#[tokio::test]
async fn step_mode_still_pauses_before_each_read() {
    let (registry, _holds) = setup(Policy::new(Mode::Ask), &[]).await;
    let mut options = SessionOptions::new(Arc::new(ScriptedProvider::new()), registry);
    options.step_mode = true;
    let h = Session::spawn(options);
    h.send(Op::UserTurn {
        text: format!("{}\n{}", read("a.txt"), read("b.txt")),
    });
    let mut h = h;
    let mut events = Vec::new();
    let mut paused_before = Vec::new();
    loop {
        until(&mut h, &mut events, |e| {
            matches!(
                e,
                AgentEvent::StepPaused { .. } | AgentEvent::TurnDone { .. }
            )
        })
        .await;
        match events.last().unwrap() {
            AgentEvent::StepPaused {
                pause: StepPause::ToolCall { tool_call_id, .. },
                ..
            } => {
                // Nothing of this call ran before its pause.
                let order = call_events(&events);
                assert!(
                    !order
                        .iter()
                        .any(|(k, id)| *k == "started" && id == tool_call_id)
                );
                paused_before.push(tool_call_id.clone());
                h.send(Op::StepNext);
            }
            AgentEvent::StepPaused { .. } => {
                h.send(Op::StepNext);
            }
            _ => break,
        }
    }
    assert_eq!(paused_before, ["call_1", "call_2"]);
    let order = call_events(&events);
    assert!(position(&order, "result", "call_1") < position(&order, "started", "call_2"));
}

#[tokio::test]
async fn only_reads_that_run_unasked_and_uncounted_may_overlap() {
    let args = |op: &str| {
        let Value::Object(m) = serde_json::json!({"operation": op, "path": "a.txt"}) else {
            unreachable!()
        };
        m
    };
    let ctx = ToolContext::new("r", switchboard::policy::Origin::Model);
    let (registry, _) = setup(Policy::new(Mode::Ask), &[]).await;
    assert!(registry.runs_unasked("fs", &args("read"), &ctx));
    assert!(!registry.runs_unasked("fs", &args("write"), &ctx));
    assert!(!registry.runs_unasked("nope", &args("read"), &ctx));
    let budgeted = Policy::new(Mode::Ask).with_max_calls("fs", 3);
    let (registry, _) = setup(budgeted, &[]).await;
    assert!(!registry.runs_unasked("fs", &args("read"), &ctx));
    let asked = Policy::new(Mode::FullAuto).with_always_ask("fs").unwrap();
    let (registry, _) = setup(asked, &[]).await;
    assert!(!registry.runs_unasked("fs", &args("read"), &ctx));
}
