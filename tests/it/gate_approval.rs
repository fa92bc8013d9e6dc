//! The approval round trip through the broker.
#![allow(clippy::unwrap_used)] // helpers outside #[test] fns unwrap too

use std::sync::Arc;

use serde_json::json;
use switchboard::gate::{
    Answer, ApprovalBroker, ApprovalDecision, ApprovalRequest, CallEnd, CallId, GateEvent,
    GateObserver, Preview,
};
use switchboard::policy::{DecidedBy, Mode, Policy, RuleList};
use switchboard::tools::builtin_specs::{fs_spec, shell_spec};
use switchboard::tools::{CallOutcome, Origin, Registry, ToolContext, ToolEffect, ToolResult};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::support::gate::{FakeTool, args, ctx, registry_with};

type Pending = JoinHandle<CallOutcome>;

/// The gate's events for the calls a test makes, and the approval requests among them.
struct Listener {
    tx: mpsc::UnboundedSender<GateEvent>,
    rx: mpsc::UnboundedReceiver<GateEvent>,
    seen: Vec<GateEvent>,
}

impl Listener {
    fn new() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        Self {
            tx,
            rx,
            seen: Vec::new(),
        }
    }

    fn ctx(&self, run: &str) -> ToolContext {
        let observer: Arc<dyn GateObserver> = Arc::new(self.tx.clone());
        ctx(run)
            .with_call_id(CallId::new(format!("{run}-call")))
            .with_observer(observer)
    }

    /// The next approval request (other events are kept in `seen`).
    async fn recv(&mut self) -> Option<ApprovalRequest> {
        while let Some(event) = crate::support::within(self.rx.recv()).await {
            self.seen.push(event.clone());
            if let GateEvent::ApprovalRequested(request) = event {
                return Some(request);
            }
        }
        None
    }

    fn drain(&mut self) -> Vec<GateEvent> {
        while let Ok(event) = self.rx.try_recv() {
            self.seen.push(event);
        }
        std::mem::take(&mut self.seen)
    }
}

fn write_call_in(registry: &Arc<Registry>, ctx: ToolContext) -> Pending {
    let registry = Arc::clone(registry);
    tokio::spawn(async move {
        let a = args(json!({"operation": "write", "path": "docs/a.md", "content": "x"}));
        registry.invoke("fs", a, &ctx).await
    })
}

fn result(outcome: CallOutcome) -> ToolResult {
    outcome.into_result()
}

async fn interactive() -> (Arc<Registry>, Arc<FakeTool>, Listener) {
    let (registry, tool) = registry_with(Policy::new(Mode::Ask), true, fs_spec()).await;
    (registry, tool, Listener::new())
}

#[tokio::test]
async fn ask_then_approve_runs_the_tool_and_reports_each_step_once() {
    let (registry, tool, mut requests) = interactive().await;
    let call = write_call_in(&registry, requests.ctx("turn-1"));
    let req = crate::support::within(requests.recv()).await.unwrap();
    assert_eq!(req.tool, "fs");
    assert_eq!(req.call_id, CallId::new("turn-1-call"));
    assert_eq!(req.server.as_deref(), Some("builtin"));
    assert_eq!(req.origin, Origin::Model);
    assert_eq!(req.effect, ToolEffect::Write);
    assert_eq!(req.reason, "mode ask: write calls need approval");
    assert_eq!(req.always_rule, "fs(write:docs/a.md)");
    assert_eq!(req.session_grant, "fs write calls until switchboard exits");
    assert_eq!(req.args["path"], "docs/a.md");
    assert!(matches!(req.preview, Some(Preview::Text(_))));
    assert_eq!(registry.broker().pending(), std::slice::from_ref(&req));
    assert_eq!(tool.calls(), 0);

    assert!(registry.broker().decide(req.id, ApprovalDecision::Once));
    assert!(matches!(call.await.unwrap(), CallOutcome::Ran(r) if !r.is_error));
    assert_eq!(tool.calls(), 1);
    assert!(registry.broker().pending().is_empty());

    let seen = requests.drain();
    let kinds: Vec<&str> = seen
        .iter()
        .map(|e| match e {
            GateEvent::ToolCallStarted { .. } => "started",
            GateEvent::ApprovalRequested(_) => "approval requested",
            GateEvent::ApprovalResolved { .. } => "approval resolved",
            GateEvent::ToolCallFinished { .. } => "finished",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "started",
            "approval requested",
            "approval resolved",
            "finished"
        ]
    );
    assert!(seen.iter().all(|e| e.call_id().as_str() == "turn-1-call"));
    let GateEvent::ToolCallFinished {
        outcome, ruling, ..
    } = &seen[3]
    else {
        panic!("{seen:?}");
    };
    assert_eq!(*outcome, CallEnd::Ok);
    let ruling = ruling.clone().unwrap();
    assert_eq!(
        (ruling.by, ruling.answer),
        (DecidedBy::User, Some(Answer::Once))
    );
}

#[tokio::test]
async fn deny_with_reason_reaches_the_model() {
    let (registry, tool, mut requests) = interactive().await;
    let call = write_call_in(&registry, requests.ctx("turn-1"));
    let req = crate::support::within(requests.recv()).await.unwrap();
    let reason = Some("docs are frozen until Friday".to_owned());
    registry
        .broker()
        .decide(req.id, ApprovalDecision::Deny { reason });
    let CallOutcome::Denied { ruling, message } = call.await.unwrap() else {
        panic!("not denied");
    };
    assert!(
        message.contains("docs are frozen until Friday"),
        "{message}"
    );
    assert!(message.contains("Denied by the user"), "{message}");
    assert_eq!(ruling.by, DecidedBy::User);
    assert!(ruling.is_refusal_by_person());
    assert_eq!(tool.calls(), 0);
}

#[tokio::test]
async fn cancel_aborts_pending_approvals_and_the_tool_never_runs() {
    let (registry, tool, mut requests) = interactive().await;
    let turn = CancellationToken::new();
    let first = write_call_in(&registry, requests.ctx("turn-1").with_cancel(turn.clone()));
    let second = write_call_in(&registry, requests.ctx("turn-1").with_cancel(turn.clone()));
    let other = write_call_in(&registry, requests.ctx("turn-2"));
    for _ in 0..3 {
        crate::support::within(requests.recv()).await.unwrap();
    }
    turn.cancel();
    for call in [first, second] {
        assert_eq!(call.await.unwrap(), CallOutcome::Aborted);
    }
    // a later call of the cancelled turn aborts at once
    let late = write_call_in(&registry, requests.ctx("turn-1").with_cancel(turn.clone()));
    assert_eq!(late.await.unwrap(), CallOutcome::Aborted);
    assert_eq!(tool.calls(), 0);
    // the other run is untouched
    let pending = registry.broker().pending();
    assert_eq!(pending.len(), 1);
    registry
        .broker()
        .decide(pending[0].id, ApprovalDecision::Once);
    assert!(!result(other.await.unwrap()).is_error);
    assert_eq!(tool.calls(), 1);
    let aborted = requests
        .drain()
        .into_iter()
        .filter(|e| {
            matches!(
                e,
                GateEvent::ToolCallFinished {
                    outcome: CallEnd::Aborted,
                    ..
                }
            )
        })
        .count();
    assert_eq!(aborted, 3, "each aborted call reports it");
}

#[tokio::test]
async fn cancelling_a_running_call_reports_cancelled() {
    let (registry, _tool) = registry_with(Policy::new(Mode::FullAuto), true, fs_spec()).await;
    // A tool that waits forever inside `invoke`.
    let never = Arc::new(tokio::sync::Semaphore::new(0));
    let slow = Arc::new(FakeTool::new(shell_spec()).held(&never));
    registry.register(slow.clone()).await.unwrap();
    let token = CancellationToken::new();
    let cx = ctx("r").with_cancel(token.clone());
    let registry2 = Arc::clone(&registry);
    let call = tokio::spawn(async move {
        registry2
            .invoke("shell", args(json!({"program": "sleep"})), &cx)
            .await
    });
    while slow.calls() == 0 {
        tokio::task::yield_now().await;
    }
    token.cancel();
    assert_eq!(call.await.unwrap(), CallOutcome::Cancelled);
}

#[tokio::test]
async fn dropping_the_waiting_call_withdraws_the_request() {
    let (registry, _tool, mut requests) = interactive().await;
    let call = write_call_in(&registry, requests.ctx("turn-1"));
    crate::support::within(requests.recv()).await.unwrap();
    call.abort();
    let _ = call.await;
    assert!(registry.broker().pending().is_empty());
}

#[tokio::test]
async fn session_approval_is_remembered_and_revocable() {
    let (registry, tool, mut requests) = interactive().await;
    let call = write_call_in(&registry, requests.ctx("turn-1"));
    let req = crate::support::within(requests.recv()).await.unwrap();
    registry.broker().decide(req.id, ApprovalDecision::Session);
    assert!(!result(call.await.unwrap()).is_error);
    // the second write runs without asking, decided by the grant
    let second = write_call_in(&registry, requests.ctx("turn-2"));
    assert!(!result(second.await.unwrap()).is_error);
    let by_grant = requests.drain().into_iter().any(|e| {
        matches!(e, GateEvent::ToolCallFinished { ruling: Some(r), .. }
            if r.by == DecidedBy::Policy && r.rule.starts_with("session grant"))
    });
    assert!(by_grant, "the second call names the session grant");
    assert_eq!(tool.calls(), 2);
    let grants = registry.grants().list();
    assert_eq!(grants.len(), 1);
    assert!(registry.grants().revoke(grants[0].id));
    let again = write_call_in(&registry, requests.ctx("turn-3"));
    let req = crate::support::within(requests.recv()).await.unwrap();
    registry.broker().decide(req.id, ApprovalDecision::Once);
    assert!(!result(again.await.unwrap()).is_error);
}

#[tokio::test]
async fn always_appends_the_rule_to_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switchboard.toml");
    std::fs::write(&path, "[ui]\nmouse = true\n").unwrap();
    let broker = Arc::new(ApprovalBroker::new(true));
    let registry = Arc::new(Registry::new(Policy::new(Mode::Ask), broker).with_always_file(&path));
    registry
        .register(Arc::new(FakeTool::new(fs_spec())))
        .await
        .unwrap();
    let mut requests = Listener::new();
    let call = write_call_in(&registry, requests.ctx("turn-1"));
    let req = crate::support::within(requests.recv()).await.unwrap();
    registry.broker().decide(req.id, ApprovalDecision::Always);
    assert!(!result(call.await.unwrap()).is_error);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(r#""fs(write:docs/a.md)""#), "{text}");
    assert!(text.starts_with("[ui]\nmouse = true\n"), "{text}");
    // and the same call now runs without asking
    let again = write_call_in(&registry, ctx("turn-2"));
    assert!(!result(again.await.unwrap()).is_error);
}

#[tokio::test]
async fn non_interactive_ask_is_a_denial_naming_the_rule() {
    let (registry, tool) = registry_with(Policy::new(Mode::Ask), false, fs_spec()).await;
    let outcome = write_call_in(&registry, ctx("run")).await.unwrap();
    assert!(
        matches!(&outcome, CallOutcome::Denied { ruling, .. } if ruling.by == DecidedBy::Headless)
    );
    assert_eq!(
        result(outcome).text_content(),
        "Denied: needs approval (mode ask: write calls need approval) but this run is \
         non-interactive; to allow without asking add allow = [\"fs(write:*)\"] under [policy]."
    );
    assert_eq!(tool.calls(), 0);
    assert!(registry.broker().pending().is_empty());

    let policy = Policy::new(Mode::FullAuto)
        .with_rule(RuleList::Ask, "shell")
        .unwrap();
    let (registry, _) = registry_with(policy, false, shell_spec()).await;
    let a = args(json!({"program": "ls"}));
    let text = registry
        .invoke("shell", a, &ctx("r"))
        .await
        .into_result()
        .text_content();
    assert!(
        text.contains(r#"the rule ask = "shell" under [policy] makes it ask"#),
        "{text}"
    );
}
