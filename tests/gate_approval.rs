//! The approval round trip through the broker.
#![allow(clippy::unwrap_used)] // helpers outside #[test] fns unwrap too

use std::sync::Arc;

use serde_json::json;
use switchboard::agent::{AgentEvent, ApprovalBroker, ApprovalDecision, ApprovalRequest, Preview};
use switchboard::policy::{Mode, Policy, RuleList};
use switchboard::tools::builtin_specs::{fs_spec, shell_spec};
use switchboard::tools::{InvokeError, Origin, Registry, ToolEffect, ToolResult};
use tokio::task::JoinHandle;

mod gate_support;
use gate_support::{FakeTool, args, ctx, registry_with};

type Pending = JoinHandle<Result<ToolResult, InvokeError>>;

fn write_call(registry: &Arc<Registry>, run: &str) -> Pending {
    let registry = Arc::clone(registry);
    let run = run.to_owned();
    tokio::spawn(async move {
        let a = args(json!({"operation": "write", "path": "docs/a.md", "content": "x"}));
        registry.invoke("fs", a, &ctx(&run)).await
    })
}

async fn interactive() -> (
    Arc<Registry>,
    Arc<FakeTool>,
    tokio::sync::mpsc::UnboundedReceiver<ApprovalRequest>,
) {
    let (registry, tool) = registry_with(Policy::new(Mode::Ask), true, fs_spec()).await;
    let requests = registry.broker().subscribe();
    (registry, tool, requests)
}

#[tokio::test]
async fn ask_then_approve_runs_the_tool() {
    let (registry, tool, mut requests) = interactive().await;
    let mut events = registry.subscribe_events();
    let call = write_call(&registry, "turn-1");
    let req = requests.recv().await.unwrap();
    assert_eq!(req.tool, "fs");
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
    let result = call.await.unwrap().unwrap();
    assert!(!result.is_error);
    assert_eq!(tool.calls(), 1);
    assert!(registry.broker().pending().is_empty());

    let mut seen = Vec::new();
    while let Ok(e) = events.try_recv() {
        seen.push(e);
    }
    assert!(seen.contains(&AgentEvent::ApprovalRequested(req.clone())));
    assert!(seen.contains(&AgentEvent::ApprovalResolved {
        id: req.id,
        decision: ApprovalDecision::Once
    }));
}

#[tokio::test]
async fn deny_with_reason_reaches_the_model() {
    let (registry, tool, mut requests) = interactive().await;
    let call = write_call(&registry, "turn-1");
    let req = requests.recv().await.unwrap();
    let reason = Some("docs are frozen until Friday".to_owned());
    registry
        .broker()
        .decide(req.id, ApprovalDecision::Deny { reason });
    let result = call.await.unwrap().unwrap();
    assert!(result.is_error);
    let text = result.text_content();
    assert!(text.contains("docs are frozen until Friday"), "{text}");
    assert!(text.contains("Denied by the user"), "{text}");
    assert_eq!(result.metadata["decided_by"], "user");
    assert_eq!(tool.calls(), 0);
}

#[tokio::test]
async fn cancel_aborts_pending_approvals_and_the_tool_never_runs() {
    let (registry, tool, mut requests) = interactive().await;
    let first = write_call(&registry, "turn-1");
    let second = write_call(&registry, "turn-1");
    let other = write_call(&registry, "turn-2");
    for _ in 0..3 {
        requests.recv().await.unwrap();
    }
    assert_eq!(registry.broker().cancel_run("turn-1"), 2);
    for call in [first, second] {
        let err = call.await.unwrap().unwrap_err();
        assert_eq!(err, InvokeError::Aborted { tool: "fs".into() });
    }
    // a later call of the cancelled run aborts at once
    let late = write_call(&registry, "turn-1").await.unwrap();
    assert!(matches!(late, Err(InvokeError::Aborted { .. })));
    assert_eq!(tool.calls(), 0);
    // the other run is untouched
    let pending = registry.broker().pending();
    assert_eq!(pending.len(), 1);
    registry
        .broker()
        .decide(pending[0].id, ApprovalDecision::Once);
    assert!(!other.await.unwrap().unwrap().is_error);
    assert_eq!(tool.calls(), 1);
}

#[tokio::test]
async fn dropping_the_waiting_call_withdraws_the_request() {
    let (registry, _tool, mut requests) = interactive().await;
    let call = write_call(&registry, "turn-1");
    requests.recv().await.unwrap();
    call.abort();
    let _ = call.await;
    assert!(registry.broker().pending().is_empty());
}

#[tokio::test]
async fn session_approval_is_remembered_and_revocable() {
    let (registry, tool, mut requests) = interactive().await;
    let call = write_call(&registry, "turn-1");
    let req = requests.recv().await.unwrap();
    registry.broker().decide(req.id, ApprovalDecision::Session);
    assert!(!call.await.unwrap().unwrap().is_error);
    // the second write runs without asking
    assert!(
        !write_call(&registry, "turn-2")
            .await
            .unwrap()
            .unwrap()
            .is_error
    );
    assert_eq!(tool.calls(), 2);
    let grants = registry.grants().list();
    assert_eq!(grants.len(), 1);
    assert!(registry.grants().revoke(grants[0].id));
    let again = write_call(&registry, "turn-3");
    let req = requests.recv().await.unwrap();
    registry.broker().decide(req.id, ApprovalDecision::Once);
    again.await.unwrap().unwrap();
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
    let mut requests = registry.broker().subscribe();
    let call = write_call(&registry, "turn-1");
    let req = requests.recv().await.unwrap();
    registry.broker().decide(req.id, ApprovalDecision::Always);
    assert!(!call.await.unwrap().unwrap().is_error);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(r#""fs(write:docs/a.md)""#), "{text}");
    assert!(text.starts_with("[ui]\nmouse = true\n"), "{text}");
    // and the same call now runs without asking
    assert!(
        !write_call(&registry, "turn-2")
            .await
            .unwrap()
            .unwrap()
            .is_error
    );
}

#[tokio::test]
async fn non_interactive_ask_is_a_denial_naming_the_rule() {
    let (registry, tool) = registry_with(Policy::new(Mode::Ask), false, fs_spec()).await;
    let result = write_call(&Arc::clone(&registry), "run")
        .await
        .unwrap()
        .unwrap();
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
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
        .unwrap()
        .text_content();
    assert!(
        text.contains(r#"the rule ask = "shell" under [policy] makes it ask"#),
        "{text}"
    );
}

#[tokio::test]
async fn late_subscriber_sees_pending_requests() {
    let (registry, _tool) = registry_with(Policy::new(Mode::Ask), true, fs_spec()).await;
    let call = write_call(&registry, "turn-1");
    while registry.broker().pending().is_empty() {
        tokio::task::yield_now().await;
    }
    let mut requests = registry.broker().subscribe();
    let req = requests.recv().await.unwrap();
    assert!(registry.broker().decide(req.id, ApprovalDecision::Once));
    call.await.unwrap().unwrap();
    assert!(!registry.broker().decide(req.id, ApprovalDecision::Once));
}
