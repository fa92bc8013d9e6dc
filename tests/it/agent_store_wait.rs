//! Sessions are saved once they have content and listed by workspace; a turn waits
//! for servers still connecting (visibly, skippable) and offers the tools registered
//! when each request is made.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use switchboard::agent::{
    AgentEvent, Op, Readiness, Session, SessionHandle, SessionOptions, SessionStore, StepPause,
};
use switchboard::gate::ApprovalBroker;
use switchboard::llm::ScriptedProvider;
use switchboard::policy::{Mode, Policy};
use switchboard::tools::Registry;
use switchboard::tools::builtin_specs::{fs_spec, shell_spec};
use tokio::sync::Notify;

use crate::support::gate::FakeTool;

async fn next(h: &mut SessionHandle) -> AgentEvent {
    tokio::time::timeout(Duration::from_secs(10), h.next_event())
        .await
        .expect("no event")
        .expect("session ended")
}

async fn registry() -> Arc<Registry> {
    let broker = Arc::new(ApprovalBroker::new(false));
    let registry = Arc::new(Registry::new(Policy::new(Mode::FullAuto), broker));
    registry
        .register(Arc::new(FakeTool::new(fs_spec())))
        .await
        .unwrap();
    registry
}

#[tokio::test]
async fn an_empty_session_leaves_no_file_and_sessions_list_by_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    let reg = registry().await;
    let start = |workspace: &str| {
        let mut options = SessionOptions::new(Arc::new(ScriptedProvider::new()), Arc::clone(&reg));
        options.store = Some(store.clone());
        options.workspace = Some(workspace.into());
        Session::spawn(options)
    };
    let mut empty = start("/work/a");
    assert!(matches!(
        next(&mut empty).await,
        AgentEvent::SessionStarted { .. }
    ));
    drop(empty);
    assert!(store.list().unwrap().is_empty(), "no message, no file");

    for workspace in ["/work/a", "/work/b"] {
        let mut h = start(workspace);
        h.send(Op::UserTurn {
            text: format!("hello from {workspace}"),
        });
        while !matches!(next(&mut h).await, AgentEvent::TurnDone { .. }) {}
    }
    let in_a = store.list_in(std::path::Path::new("/work/a")).unwrap();
    assert_eq!(in_a.len(), 1);
    assert_eq!(in_a[0].title.as_deref(), Some("hello from /work/a"));
    assert_eq!(in_a[0].workspace.as_deref(), Some("/work/a"));
    assert_eq!(store.list().unwrap().len(), 2);
    let latest = store.latest_in(std::path::Path::new("/work/b")).unwrap();
    assert_ne!(latest, Some(in_a[0].id.clone()));
}

/// Pending until `ready` is notified.
struct Gate {
    ready: Notify,
    pending: std::sync::Mutex<Vec<String>>,
}

impl Readiness for Gate {
    fn pending(&self) -> Vec<String> {
        self.pending.lock().unwrap().clone()
    }

    fn settled(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(self.ready.notified())
    }
}

fn waiting_session(registry: &Arc<Registry>, gate: &Arc<Gate>, step: bool) -> SessionHandle {
    let mut options = SessionOptions::new(Arc::new(ScriptedProvider::new()), Arc::clone(registry));
    options.readiness = Some(Arc::clone(gate) as Arc<dyn Readiness>);
    options.step_mode = step;
    Session::spawn(options)
}

#[tokio::test]
async fn a_turn_waits_for_connecting_servers_and_sees_their_tools() {
    let registry = registry().await;
    let gate = Arc::new(Gate {
        ready: Notify::new(),
        pending: std::sync::Mutex::new(vec!["weather".into()]),
    });
    let mut h = waiting_session(&registry, &gate, true);
    h.send(Op::UserTurn { text: "hi".into() });
    loop {
        if let AgentEvent::WaitingForServers { servers, .. } = next(&mut h).await {
            assert_eq!(servers, ["weather"]);
            break;
        }
    }
    // The server's tool arrives while the turn waits; the first request offers it.
    registry
        .register(Arc::new(FakeTool::new(shell_spec())))
        .await
        .unwrap();
    gate.ready.notify_waiters();
    loop {
        if let AgentEvent::StepPaused {
            pause: StepPause::ModelRequest { tools, .. },
            ..
        } = next(&mut h).await
        {
            assert!(tools.contains(&"shell".to_owned()), "{tools:?}");
            break;
        }
    }
}

#[tokio::test]
async fn skip_wait_goes_on_without_the_servers() {
    let registry = registry().await;
    let gate = Arc::new(Gate {
        ready: Notify::new(),
        pending: std::sync::Mutex::new(vec!["never".into()]),
    });
    let mut h = waiting_session(&registry, &gate, false);
    h.send(Op::UserTurn { text: "hi".into() });
    while !matches!(next(&mut h).await, AgentEvent::WaitingForServers { .. }) {}
    h.send(Op::SkipWait);
    while !matches!(next(&mut h).await, AgentEvent::TurnDone { .. }) {}
}
