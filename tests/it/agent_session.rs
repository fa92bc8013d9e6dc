//! End to end through the session API: the scripted provider, the real gate and a
//! test `fs` tool. Reads run, writes ask (approve runs, deny reaches the model,
//! interrupt aborts), step mode pauses, max_steps ends the loop, sessions reload.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use switchboard::agent::transcript::messages_from_events;
use switchboard::agent::{
    AgentEvent, Op, Session, SessionHandle, SessionOptions, SessionStore, StepPause, TurnEnd,
};
use switchboard::gate::{ApprovalBroker, ApprovalDecision, CallEnd, GateEvent};
use switchboard::llm::scripted_script::parse_script;
use switchboard::llm::{Message, Provider, ScriptedProvider};
use switchboard::policy::{Mode, Policy};
use switchboard::tools::Registry;
use switchboard::tools::builtin_specs::fs_spec;

use crate::support::final_text;
use crate::support::gate::FakeTool;

const READ: &str = r#"fs {"operation":"read","path":"a.txt"}"#;
const WRITE: &str = r#"fs {"operation":"write","path":"a.txt","content":"hi"}"#;

async fn setup(interactive: bool) -> (Arc<Registry>, Arc<FakeTool>) {
    let broker = Arc::new(ApprovalBroker::new(interactive));
    let registry = Arc::new(Registry::new(Policy::new(Mode::Ask), broker));
    let tool = Arc::new(FakeTool::new(fs_spec()));
    registry.register(tool.clone()).await.unwrap();
    (registry, tool)
}

fn start(registry: &Arc<Registry>, provider: Arc<dyn Provider>) -> SessionHandle {
    Session::spawn(SessionOptions::new(provider, Arc::clone(registry)))
}

/// Events until `stop` matches (inclusive); 30 s hang guard.
async fn until(handle: &mut SessionHandle, stop: impl Fn(&AgentEvent) -> bool) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), handle.next_event())
            .await
            .expect("no event within 30 s")
            .expect("session ended");
        let done = stop(&event);
        seen.push(event);
        if done {
            return seen;
        }
    }
}

fn is_done(e: &AgentEvent) -> bool {
    matches!(e, AgentEvent::TurnDone { .. })
}

fn done_reason(events: &[AgentEvent]) -> (TurnEnd, u32, u32) {
    match events.last().unwrap() {
        AgentEvent::TurnDone {
            reason,
            approvals_denied,
            failed_calls,
            ..
        } => (*reason, *approvals_denied, *failed_calls),
        other => panic!("not done: {other:?}"),
    }
}

fn tool_results(events: &[AgentEvent]) -> Vec<(bool, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult {
                is_error, content, ..
            } => Some((*is_error, content.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_read_runs_without_asking_and_the_model_summarises_it() {
    let (registry, tool) = setup(true).await;
    let mut h = start(&registry, Arc::new(ScriptedProvider::new()));
    h.send(Op::UserTurn { text: READ.into() });
    let events = until(&mut h, is_done).await;
    assert_eq!(tool.calls(), 1);
    assert_eq!(done_reason(&events), (TurnEnd::Completed, 0, 0));
    assert_eq!(tool_results(&events), [(false, "fs ran".to_owned())]);
    assert!(final_text(&events).contains("fs succeeded"));
    // The gate's events arrive once each, in order, between request and result, all
    // naming the model's call id.
    let mut ids = Vec::new();
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallRequested { call_id, .. } => {
                ids.push(call_id.clone());
                Some("requested")
            }
            AgentEvent::Gate(g @ GateEvent::ToolCallStarted { .. }) => {
                ids.push(g.call_id().clone());
                Some("started")
            }
            AgentEvent::Gate(g @ GateEvent::ToolCallFinished { outcome, .. }) => {
                assert_eq!(*outcome, CallEnd::Ok);
                ids.push(g.call_id().clone());
                Some("finished")
            }
            AgentEvent::ToolResult { call_id, .. } => {
                ids.push(call_id.clone());
                Some("result")
            }
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["requested", "started", "finished", "result"]);
    assert!(ids.windows(2).all(|w| w[0] == w[1]), "{ids:?}");
}

async fn write_turn_until_asked(
    registry: &Arc<Registry>,
) -> (SessionHandle, switchboard::gate::ApprovalRequest) {
    let mut h = start(registry, Arc::new(ScriptedProvider::new()));
    h.send(Op::UserTurn { text: WRITE.into() });
    let events = until(&mut h, |e| {
        matches!(e, AgentEvent::Gate(GateEvent::ApprovalRequested(_)))
    })
    .await;
    let Some(AgentEvent::Gate(GateEvent::ApprovalRequested(request))) = events.last().cloned()
    else {
        unreachable!()
    };
    (h, request)
}

#[tokio::test]
async fn a_write_asks_and_runs_once_approved() {
    let (registry, tool) = setup(true).await;
    let (mut h, request) = write_turn_until_asked(&registry).await;
    assert_eq!(request.tool, "fs");
    assert_eq!(tool.calls(), 0);
    h.send(Op::Decide {
        id: request.id,
        decision: ApprovalDecision::Once,
    });
    let events = until(&mut h, is_done).await;
    assert_eq!(tool.calls(), 1);
    assert_eq!(done_reason(&events), (TurnEnd::Completed, 0, 0));
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::Gate(GateEvent::ApprovalResolved {
            decision: ApprovalDecision::Once,
            ..
        })
    )));
}

#[tokio::test]
async fn a_denied_write_reaches_the_model_as_a_refusal() {
    let (registry, tool) = setup(true).await;
    let (mut h, request) = write_turn_until_asked(&registry).await;
    h.send(Op::Decide {
        id: request.id,
        decision: ApprovalDecision::Deny {
            reason: Some("not today".into()),
        },
    });
    let events = until(&mut h, is_done).await;
    assert_eq!(tool.calls(), 0);
    assert_eq!(done_reason(&events), (TurnEnd::Completed, 1, 0));
    let results = tool_results(&events);
    assert!(results[0].0);
    assert!(results[0].1.contains("Denied by the user"), "{results:?}");
    let answer = final_text(&events);
    assert!(
        answer.contains("fs failed") && answer.contains("not today"),
        "{answer}"
    );
}

#[tokio::test]
async fn interrupting_while_asked_aborts_and_the_tool_never_runs() {
    let (registry, tool) = setup(true).await;
    let (mut h, request) = write_turn_until_asked(&registry).await;
    h.send(Op::Interrupt {
        run_id: request.run_id.clone(),
    });
    let events = until(&mut h, is_done).await;
    assert_eq!(tool.calls(), 0);
    assert_eq!(done_reason(&events).0, TurnEnd::Interrupted);
    assert!(registry.broker().pending().is_empty());
    // The history stays valid: the call has an answer.
    let results = tool_results(&events);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.contains("interrupted"));
    // The session goes on.
    h.send(Op::UserTurn { text: READ.into() });
    let events = until(&mut h, is_done).await;
    assert_eq!(done_reason(&events).0, TurnEnd::Completed);
    assert_eq!(tool.calls(), 1);
}

#[tokio::test]
async fn non_interactive_denial_names_the_rule() {
    let (registry, tool) = setup(false).await;
    let mut h = start(&registry, Arc::new(ScriptedProvider::new()));
    h.send(Op::UserTurn { text: WRITE.into() });
    let events = until(&mut h, is_done).await;
    assert_eq!(tool.calls(), 0);
    assert_eq!(done_reason(&events), (TurnEnd::Completed, 1, 0));
    let results = tool_results(&events);
    assert!(results[0].1.contains("non-interactive"), "{results:?}");
    assert!(results[0].1.contains("allow = ["), "{results:?}");
}

#[tokio::test]
async fn step_mode_pauses_before_each_request_and_each_tool_run() {
    let (registry, tool) = setup(true).await;
    let mut options = SessionOptions::new(Arc::new(ScriptedProvider::new()), registry);
    options.step_mode = true;
    let mut h = Session::spawn(options);
    h.send(Op::UserTurn { text: READ.into() });
    let mut pauses = Vec::new();
    loop {
        let events = until(&mut h, |e| {
            matches!(
                e,
                AgentEvent::StepPaused { .. } | AgentEvent::TurnDone { .. }
            )
        })
        .await;
        match events.last().unwrap() {
            AgentEvent::StepPaused { pause, .. } => {
                // Nothing runs while paused: the tool has run only after its pause.
                let expected_calls = usize::from(pauses.len() >= 2);
                assert_eq!(tool.calls(), expected_calls, "at pause {pause:?}");
                pauses.push(pause.clone());
                h.send(Op::StepNext);
            }
            _ => break,
        }
    }
    assert_eq!(pauses.len(), 3, "{pauses:?}");
    assert!(matches!(
        &pauses[0],
        StepPause::ModelRequest { step: 1, messages: 2, tools, .. } if tools == &["fs"]
    ));
    assert!(matches!(
        &pauses[1],
        StepPause::ToolCall { tool, args, .. }
            if tool == "fs" && args == &json!({"operation": "read", "path": "a.txt"})
    ));
    assert!(matches!(
        &pauses[2],
        StepPause::ModelRequest {
            step: 2,
            messages: 4,
            ..
        }
    ));
    assert_eq!(tool.calls(), 1);
}

#[tokio::test]
async fn step_continue_lets_this_turn_run_and_the_next_one_pauses_again() {
    let (registry, tool) = setup(true).await;
    let mut options = SessionOptions::new(Arc::new(ScriptedProvider::new()), registry);
    options.step_mode = true;
    let mut h = Session::spawn(options);
    h.send(Op::UserTurn { text: READ.into() });
    until(&mut h, |e| matches!(e, AgentEvent::StepPaused { .. })).await;
    h.send(Op::StepContinue);
    let events = until(&mut h, is_done).await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::StepPaused { .. }))
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::StepModeChanged { .. })),
        "step mode stays on"
    );
    assert_eq!(tool.calls(), 1);
    h.send(Op::UserTurn { text: READ.into() });
    until(&mut h, |e| matches!(e, AgentEvent::StepPaused { .. })).await;
}

fn looping_script(n: usize) -> Arc<ScriptedProvider> {
    let line = r#"{"tool_calls":[{"name":"fs","arguments":{"operation":"list","path":"."}}]}"#;
    let script = vec![line; n].join("\n");
    Arc::new(ScriptedProvider::with_script(
        parse_script(&script, "loop").unwrap(),
    ))
}

#[tokio::test]
async fn max_steps_ends_the_loop_with_a_notice() {
    let (registry, tool) = setup(true).await;
    let mut options = SessionOptions::new(looping_script(10), registry);
    options.max_steps = 3;
    let mut h = Session::spawn(options);
    h.send(Op::UserTurn { text: "go".into() });
    let events = until(&mut h, is_done).await;
    assert_eq!(done_reason(&events).0, TurnEnd::MaxSteps);
    assert!(matches!(
        events.last(),
        Some(AgentEvent::TurnDone { steps: 3, .. })
    ));
    assert_eq!(tool.calls(), 3);
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::Notice { message, .. } if message.contains("max_steps")
    )));
}

#[tokio::test]
async fn long_results_are_cut_for_the_model_with_a_marker() {
    let (registry, _) = setup(true).await;
    let mut options = SessionOptions::new(Arc::new(ScriptedProvider::new()), registry);
    options.max_tool_result_chars = 4;
    let mut h = Session::spawn(options);
    h.send(Op::UserTurn { text: READ.into() });
    let events = until(&mut h, is_done).await;
    let cut = events.iter().find_map(|e| match e {
        AgentEvent::ToolResult {
            content, truncated, ..
        } => Some((content.clone(), *truncated)),
        _ => None,
    });
    let (content, truncated) = cut.unwrap();
    assert!(truncated);
    assert!(content.starts_with("fs r"));
    assert!(content.contains("result truncated, showing the first 4 of 6 characters"));
}

#[tokio::test]
async fn a_provider_error_ends_the_turn_with_an_error_event() {
    let (registry, _) = setup(true).await;
    let provider = Arc::new(ScriptedProvider::with_script(
        parse_script(r#"{"error":"simulated outage"}"#, "s").unwrap(),
    ));
    let mut h = start(&registry, provider);
    h.send(Op::UserTurn { text: "hi".into() });
    let events = until(&mut h, is_done).await;
    assert_eq!(done_reason(&events).0, TurnEnd::ProviderError);
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::Error { message, .. } if message.contains("simulated outage")
    )));
}

#[tokio::test]
async fn a_saved_session_reloads_even_when_cut_mid_line() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let (registry, _) = setup(true).await;
    let mut options = SessionOptions::new(Arc::new(ScriptedProvider::new()), registry);
    options.store = Some(store.clone());
    options.session_id = Some("s1".into());
    let mut h = Session::spawn(options);
    h.send(Op::UserTurn { text: READ.into() });
    let live = until(&mut h, is_done).await;
    drop(h);

    let loaded = store.load("s1").unwrap();
    assert_eq!(loaded.notice, None);
    let events: Vec<AgentEvent> = loaded.events.iter().map(|e| e.event.clone()).collect();
    assert!(matches!(events[0], AgentEvent::SessionStarted { .. }));
    assert_eq!(events, live, "the file holds every event, in order");
    let messages = messages_from_events(&events);
    let roles: Vec<&str> = messages.iter().map(Message::role).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);

    let path = store.path("s1").unwrap();
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(r#"{"time":"2026-01-01T00:00:00.000Z","type":"text_de"#);
    std::fs::write(&path, text).unwrap();
    let cut = store.load("s1").unwrap();
    assert_eq!(cut.events.len(), loaded.events.len());
    assert!(cut.notice.unwrap().contains("mid-line"));
    assert_eq!(store.list().unwrap()[0].id, "s1");
}

#[tokio::test]
async fn a_session_resumes_from_its_history() {
    let (registry, _) = setup(true).await;
    let mut options = SessionOptions::new(Arc::new(ScriptedProvider::new()), registry);
    options.history = vec![
        Message::user("earlier"),
        Message::assistant("reply", vec![]),
    ];
    options.step_mode = true;
    let mut h = Session::spawn(options);
    h.send(Op::UserTurn {
        text: "again".into(),
    });
    let events = until(&mut h, |e| matches!(e, AgentEvent::StepPaused { .. })).await;
    assert!(matches!(
        events.last(),
        Some(AgentEvent::StepPaused {
            pause: StepPause::ModelRequest { messages: 4, .. },
            ..
        })
    ));
}

#[tokio::test]
async fn resuming_a_saved_session_continues_its_file_and_turn_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let (registry, _) = setup(true).await;
    let provider: Arc<dyn Provider> = Arc::new(ScriptedProvider::new());
    let mut options = SessionOptions::new(Arc::clone(&provider), Arc::clone(&registry));
    options.store = Some(store.clone());
    options.session_id = Some("r1".into());
    let mut h = Session::spawn(options);
    h.send(Op::UserTurn {
        text: "first".into(),
    });
    until(&mut h, is_done).await;
    drop(h);

    let loaded = store.load("r1").unwrap();
    let options =
        switchboard::agent::resume(SessionOptions::new(provider, registry), &store, &loaded);
    assert_eq!(options.history.len(), 2);
    let mut h = Session::spawn(options);
    h.send(Op::UserTurn {
        text: "second".into(),
    });
    let events = until(&mut h, is_done).await;
    assert!(matches!(events.last(), Some(AgentEvent::TurnDone { run_id, .. }) if run_id == "r1-2"));
    drop(h);
    let again = store.load("r1").unwrap();
    assert_eq!(again.messages().len(), 4);
}

/// Interrupting the first of two calls of one response: both are announced (each
/// gets its card) and both are answered as not run, in call order.
#[tokio::test]
async fn every_call_of_an_interrupted_response_is_announced_and_answered() {
    let (registry, tool) = setup(true).await;
    let write = |id: &str| switchboard::llm::scripted_script::ScriptedCall {
        id: Some(id.into()),
        name: "fs".into(),
        arguments: serde_json::json!({"operation": "write", "path": "a.txt", "content": "hi"})
            .as_object()
            .cloned()
            .unwrap(),
    };
    let script = vec![switchboard::llm::scripted_script::ScriptedTurn {
        tool_calls: vec![write("first"), write("second")],
        ..switchboard::llm::scripted_script::ScriptedTurn::default()
    }];
    let mut h = start(&registry, Arc::new(ScriptedProvider::with_script(script)));
    h.send(Op::UserTurn { text: "go".into() });
    let asked = until(&mut h, |e| {
        matches!(e, AgentEvent::Gate(GateEvent::ApprovalRequested { .. }))
    })
    .await;
    let Some(AgentEvent::Gate(GateEvent::ApprovalRequested(request))) = asked.last() else {
        panic!("not asked")
    };
    h.send(Op::Interrupt {
        run_id: request.run_id.clone(),
    });
    let mut events = asked.clone();
    events.extend(until(&mut h, is_done).await);
    assert_eq!(tool.calls(), 0);
    let requested: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallRequested { call_id, .. } => Some(call_id.0.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(requested, ["first", "second"]);
    let answered: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult {
                call_id, content, ..
            } => Some((call_id.0.clone(), content.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(answered.len(), 2, "{answered:?}");
    assert_eq!(answered[1].0, "second");
    assert!(answered[1].1.contains("Not run"), "{answered:?}");
}
