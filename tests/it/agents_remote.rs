//! `kind = "a2a"` agents end to end against the loopback A2A agent (tests/support):
//! the main agent (offline scripted provider) calls `agent__NAME` and gets the remote
//! answer; a task the remote agent fails is an error result the model reads, not a
//! transport failure; interrupting the turn cancels the task on the server.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use switchboard::agent::{AgentEvent, Op, Session, SessionOptions};
use switchboard::gate::{ApprovalBroker, ApprovalDecision};
use switchboard::llm::ScriptedProvider;
use switchboard::llm::scripted_script::parse_script;
use switchboard::policy::{AuditLog, Mode, Policy};
use switchboard::tools::Registry;

use crate::support::a2a_server::{Options, Server, Version};

struct World {
    registry: Arc<Registry>,
    audit: PathBuf,
    _dir: tempfile::TempDir,
}

/// A registry in full-auto with `[agents.far]` at `server` (sending `Authorization`
/// from the agent's `headers`).
async fn world(server: &Server) -> World {
    let dir = tempfile::tempdir().unwrap();
    let toml = format!(
        "[agents.far]\nkind = \"a2a\"\nurl = \"{}\"\nheaders = {{ Authorization = \"Bearer tok\" }}\n",
        server.url
    );
    let config = switchboard::settings::parse_str(&toml, Path::new("t.toml")).unwrap();
    let audit = dir.path().join("audit.jsonl");
    let broker = Arc::new(ApprovalBroker::new(false));
    let registry = Arc::new(
        Registry::new(Policy::new(Mode::FullAuto), broker)
            .with_audit(AuditLog::open(&audit, false).unwrap()),
    );
    let failed = switchboard::agents::register_agents(&registry, &config, dir.path()).await;
    assert!(failed.is_empty(), "{failed:?}");
    World {
        registry,
        audit,
        _dir: dir,
    }
}

fn session(w: &World, script: &str) -> switchboard::agent::SessionHandle {
    let turns = parse_script(script, "main").unwrap();
    Session::spawn(SessionOptions::new(
        Arc::new(ScriptedProvider::with_script(turns)),
        Arc::clone(&w.registry),
    ))
}

/// One main-agent turn replaying `script`, as JSONL events.
async fn main_turn(w: &World, script: &str) -> Vec<Value> {
    crate::support::headless::json_turn(session(w, script), "go", ApprovalDecision::Once)
        .await
        .1
}

fn calls_far(task: &str) -> String {
    format!(
        "{}\n{{\"text\":\"main done\"}}",
        json!({"tool_calls": [{"id": "m1", "name": "agent__far", "arguments": {"task": task}}]})
    )
}

fn find<'a>(lines: &'a [Value], kind: &str, tool: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["type"] == kind && l["tool"] == tool)
        .unwrap_or_else(|| panic!("no {kind} for {tool}: {lines:?}"))
}

#[tokio::test]
async fn the_main_agent_hands_a_task_to_a_remote_agent_and_gets_its_answer() {
    let server = Server::start(Options {
        token: Some("tok".into()),
        ..Options::default()
    })
    .await;
    let w = world(&server).await;
    let lines = main_turn(&w, &calls_far("hello there")).await;
    let result = find(&lines, "tool_result", "agent__far");
    assert_eq!(
        (&result["content"], &result["is_error"]),
        (&json!("echo: hello there"), &json!(false))
    );
    assert_eq!(
        find(&lines, "tool_call_started", "agent__far")["effect"],
        "compute"
    );
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "turn_done", "{last}");
    // One A2A 1.0 request with the configured header; the card said no streaming.
    let log = server.log();
    assert_eq!(server.methods(), ["SendMessage"]);
    assert_eq!(log[0].authorization.as_deref(), Some("Bearer tok"));
    assert_eq!(log[0].a2a_version.as_deref(), Some("1.0"));
    let audit = std::fs::read_to_string(&w.audit).unwrap();
    let run: Value = (audit.lines())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["event"] == "agent_run")
        .unwrap();
    assert_eq!(
        (&run["agent"], &run["outcome"]),
        (&json!("far"), &json!("completed"))
    );
    assert!(!audit.contains("hello there"), "no task text: {audit}");
}

#[tokio::test]
async fn a_failed_remote_task_is_an_error_result_the_model_reads() {
    // Streaming, in 0.3: the failure arrives as the stream's last status.
    let server = Server::start(Options {
        version: Version::V03,
        streaming: true,
        token: Some("tok".into()),
        card_public: false,
    })
    .await;
    let w = world(&server).await;
    let lines = main_turn(&w, &calls_far("fail at once")).await;
    let result = find(&lines, "tool_result", "agent__far");
    assert_eq!(
        (&result["content"], &result["is_error"]),
        (
            &json!("Remote agent far failed its task: could not do it"),
            &json!(true)
        )
    );
    // The call ran (it is not a transport failure) and the turn went on.
    let finished = find(&lines, "tool_call_finished", "agent__far");
    assert_eq!(finished["outcome"], "error", "{finished}");
    let answers: Vec<&Value> = (lines.iter())
        .filter(|l| l["type"] == "model_response")
        .map(|l| &l["text"])
        .collect();
    assert_eq!(answers.last(), Some(&&json!("main done")), "{lines:?}");
    let done = lines.last().unwrap();
    assert_eq!(
        (&done["type"], &done["steps"]),
        (&json!("turn_done"), &json!(2))
    );
    assert_eq!(server.methods(), ["message/stream"]);
    let audit = std::fs::read_to_string(&w.audit).unwrap();
    assert!(
        audit.contains(r#""event":"agent_run""#) && audit.contains(r#""outcome":"failed""#),
        "{audit}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupting_the_turn_cancels_the_remote_task() {
    let server = Server::start(Options {
        streaming: true,
        token: Some("tok".into()),
        ..Options::default()
    })
    .await;
    let w = world(&server).await;
    let mut handle = session(&w, &calls_far("hang until cancelled"));
    handle.ops.send(Op::UserTurn { text: "go".into() }).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let next = async |handle: &mut switchboard::agent::SessionHandle| {
        tokio::time::timeout(Duration::from_secs(30), handle.events.recv())
            .await
            .unwrap()
            .unwrap()
    };
    let run_id = loop {
        if let AgentEvent::TurnStarted { run_id, .. } = next(&mut handle).await {
            break run_id;
        }
    };
    // The task is running on the server (its stream stays open) before the interrupt.
    while !server
        .methods()
        .contains(&"SendStreamingMessage".to_owned())
    {
        assert!(Instant::now() < deadline, "{:?}", server.methods());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    handle.ops.send(Op::Interrupt { run_id }).unwrap();
    let mut events = Vec::new();
    loop {
        let event = next(&mut handle).await;
        let done = matches!(event, AgentEvent::TurnDone { .. });
        events.push(serde_json::to_value(&event).unwrap());
        if done {
            break;
        }
    }
    let finished = find(&events, "tool_call_finished", "agent__far");
    assert_eq!(finished["outcome"], "cancelled", "{events:?}");
    while !server.methods().contains(&"CancelTask".to_owned()) {
        assert!(
            Instant::now() < deadline,
            "the server never saw CancelTask: {:?}",
            server.methods()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.methods(), ["SendStreamingMessage", "CancelTask"]);
    let cancel = server.log().pop().unwrap();
    assert_eq!(cancel.authorization.as_deref(), Some("Bearer tok"));
}
