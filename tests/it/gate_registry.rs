//! Registry::invoke: scope, budget, refusals, hot swap, audit, events.
#![allow(clippy::unwrap_used)] // helpers outside #[test] fns unwrap too

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard::gate::ApprovalBroker;
use switchboard::gate::{CallEnd, CallId, GateEvent, GateObserver};
use switchboard::policy::{AuditLog, Mode, Policy, RuleList};
use switchboard::tools::builtin_specs::fs_spec;
use switchboard::tools::{InvokeError, Scope, ToolEffect, ToolSpec};
use tokio::sync::Semaphore;

use crate::support::gate::{FakeTool, Journal, args, ctx, registry_with};

fn read_tool(name: &str) -> ToolSpec {
    ToolSpec::builder(name)
        .default_effect(ToolEffect::Read)
        .build()
}

#[tokio::test]
async fn unknown_tool_is_not_found() {
    let (registry, _) = registry_with(Policy::default(), true, read_tool("r")).await;
    let err = registry.invoke("nope", args(json!({})), &ctx("run")).await;
    assert_eq!(
        err,
        switchboard::tools::CallOutcome::Failed(InvokeError::NotFound {
            name: "nope".into()
        })
    );
}

#[tokio::test]
async fn read_only_scope_admits_only_reads_whatever_the_rules() {
    let policy = Policy::new(Mode::FullAuto)
        .with_rule(RuleList::Allow, "*")
        .unwrap();
    let (registry, tool) = registry_with(policy, true, fs_spec()).await;
    let ro = ctx("run").with_scope(Scope::ReadOnly);
    let write = args(json!({"operation": "write", "path": "a"}));
    let result = registry.invoke("fs", write, &ro).await.into_result();
    assert!(result.is_error);
    assert!(
        result.text_content().contains("read-only"),
        "{}",
        result.text_content()
    );
    assert_eq!(tool.calls(), 0);
    let read = args(json!({"operation": "read", "path": "a"}));
    let result = registry.invoke("fs", read, &ro).await.into_result();
    assert!(!result.is_error);
    assert_eq!(tool.calls(), 1);
}

#[tokio::test]
async fn deny_rule_is_a_model_visible_refusal() {
    let policy = Policy::new(Mode::FullAuto)
        .with_rule(RuleList::Deny, "fs(delete:*)")
        .unwrap();
    let (registry, tool) = registry_with(policy, true, fs_spec()).await;
    let del = args(json!({"operation": "delete", "path": "a"}));
    let switchboard::tools::CallOutcome::Denied { ruling, message } =
        registry.invoke("fs", del, &ctx("run")).await
    else {
        panic!("not denied");
    };
    assert_eq!(message, r#"Denied: denied by rule deny = "fs(delete:*)"."#);
    assert_eq!(ruling.by, switchboard::policy::DecidedBy::Policy);
    assert_eq!(tool.calls(), 0);
}

#[tokio::test]
async fn mode_read_only_denies_with_the_mode() {
    let (registry, tool) = registry_with(Policy::new(Mode::ReadOnly), true, fs_spec()).await;
    let w = args(json!({"operation": "write", "path": "a"}));
    let result = registry.invoke("fs", w, &ctx("run")).await.into_result();
    assert_eq!(
        result.text_content(),
        "Denied: mode read-only: write calls are denied."
    );
    assert_eq!(tool.calls(), 0);
}

#[tokio::test]
async fn effect_override_from_policy_wins() {
    let policy = Policy::new(Mode::ReadOnly).with_effect("fs", ToolEffect::Read);
    let (registry, tool) = registry_with(policy, true, fs_spec()).await;
    let w = args(json!({"operation": "delete", "path": "a"}));
    assert!(
        !registry
            .invoke("fs", w, &ctx("run"))
            .await
            .into_result()
            .is_error
    );
    assert_eq!(tool.calls(), 1);
}

#[tokio::test]
async fn budget_denies_the_call_after_the_last() {
    let policy = Policy::new(Mode::FullAuto).with_max_calls("r", 2);
    let (registry, tool) = registry_with(policy, true, read_tool("r")).await;
    for _ in 0..2 {
        let ok = registry
            .invoke("r", args(json!({})), &ctx("run"))
            .await
            .into_result();
        assert!(!ok.is_error);
    }
    let third = registry
        .invoke("r", args(json!({})), &ctx("run"))
        .await
        .into_result();
    assert!(third.is_error);
    assert_eq!(
        third.text_content(),
        "Denied: r has used its budget of 2 calls for this session ([policy] max_calls)."
    );
    assert_eq!(tool.calls(), 2);
}

#[tokio::test]
async fn hot_swap_keeps_in_flight_calls_on_the_old_instance() {
    let journal = Journal::default();
    let hold = Arc::new(Semaphore::new(0));
    let broker = Arc::new(ApprovalBroker::new(true));
    let registry = Arc::new(switchboard::tools::Registry::new(Policy::default(), broker));
    let old = FakeTool::new(read_tool("t"))
        .labelled("old", &journal)
        .held(&hold);
    registry.register(Arc::new(old)).await.unwrap();

    let in_flight = {
        let registry = Arc::clone(&registry);
        tokio::spawn(async move { registry.invoke("t", args(json!({})), &ctx("a")).await })
    };
    while !journal.lock().unwrap().contains(&"old:invoke".to_owned()) {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let new = FakeTool::new(read_tool("t")).labelled("new", &journal);
    registry.replace("t", Arc::new(new)).await.unwrap();

    let fresh = registry
        .invoke("t", args(json!({})), &ctx("b"))
        .await
        .into_result();
    assert_eq!(fresh.text_content(), "new ran");
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(
        !journal.lock().unwrap().contains(&"old:close".to_owned()),
        "old instance closed while a call was in flight"
    );

    hold.add_permits(1);
    let old_result = in_flight.await.unwrap().into_result();
    assert_eq!(old_result.text_content(), "old ran");
    registry.close_all().await;
    let log = journal.lock().unwrap().clone();
    let pos = |s: &str| {
        log.iter()
            .position(|e| e == s)
            .unwrap_or_else(|| panic!("{s}: {log:?}"))
    };
    assert!(pos("new:start") < pos("new:invoke"));
    assert!(pos("old:done") < pos("old:close"));
    assert!(pos("new:close") > pos("new:done"));
    assert!(registry.names().is_empty());
}

#[tokio::test]
async fn register_unregister_and_catalog() {
    let (registry, _) = registry_with(Policy::default(), true, read_tool("b")).await;
    registry
        .register(Arc::new(FakeTool::new(read_tool("a"))))
        .await
        .unwrap();
    let dup = registry
        .register(Arc::new(FakeTool::new(read_tool("a"))))
        .await;
    assert!(dup.is_err());
    assert_eq!(registry.names(), ["a", "b"]);
    assert_eq!(registry.specs()[0].name, "a");
    assert!(registry.unregister("a"));
    assert!(!registry.unregister("a"));
    assert_eq!(registry.names(), ["b"]);
    let mismatch = registry
        .replace("b", Arc::new(FakeTool::new(read_tool("c"))))
        .await;
    assert!(mismatch.is_err());
}

#[tokio::test]
async fn audit_lines_hash_arguments_and_omit_them_by_default() {
    for record_args in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/audit.jsonl");
        let policy = Policy::new(Mode::Ask)
            .with_rule(RuleList::Deny, "fs(delete:*)")
            .unwrap();
        let broker = Arc::new(ApprovalBroker::new(false));
        let registry = switchboard::tools::Registry::new(policy, broker)
            .with_audit(AuditLog::open(&path, record_args).unwrap());
        registry
            .register(Arc::new(FakeTool::new(fs_spec())))
            .await
            .unwrap();
        let secret = "s3cret-path";
        for op in ["read", "delete", "write"] {
            let a = args(json!({"operation": op, "path": secret}));
            registry
                .invoke("fs", a, &ctx("run-1").with_call_id(CallId::new("call_7")))
                .await
                .into_result();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.contains(secret), record_args, "{text}");
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        for line in &lines {
            assert_eq!(line["args_sha256"].as_str().unwrap().len(), 64);
            assert_eq!(line["run_id"], "run-1");
            assert_eq!(line["call_id"], "call_7");
            assert_eq!(line["origin"], "model");
            assert!(line["time"].as_str().unwrap().ends_with('Z'));
            assert!(line["duration_ms"].is_u64());
        }
        let summary: Vec<(&str, &str, &str, &str)> = lines
            .iter()
            .map(|l| {
                (
                    l["effect"].as_str().unwrap(),
                    l["decision"].as_str().unwrap(),
                    l["decided_by"].as_str().unwrap(),
                    l["rule"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("read", "allow", "policy", "mode ask: read calls run"),
                ("delete", "deny", "policy", "rule deny = \"fs(delete:*)\""),
                (
                    "write",
                    "deny",
                    "headless",
                    "mode ask: write calls need approval"
                ),
            ]
        );
    }
}

#[tokio::test]
async fn events_report_start_and_finish_to_the_callers_observer_once() {
    let (registry, _) = registry_with(Policy::new(Mode::ReadOnly), true, fs_spec()).await;
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let observer: Arc<dyn GateObserver> = Arc::new(tx);
    let a = args(json!({"operation": "write", "path": "x"}));
    let cx = ctx("run").with_observer(observer);
    registry.invoke("fs", a, &cx).await.into_result();
    // A call without an observer reports to nobody (and mints its own id).
    let other = args(json!({"operation": "write", "path": "y"}));
    registry
        .invoke("fs", other, &ctx("run"))
        .await
        .into_result();
    let mut seen = Vec::new();
    while let Ok(e) = events.try_recv() {
        seen.push(e);
    }
    let [
        GateEvent::ToolCallStarted {
            call_id,
            effect,
            tool,
            ..
        },
        GateEvent::ToolCallFinished {
            call_id: id,
            outcome,
            ruling,
            ..
        },
    ] = seen.as_slice()
    else {
        panic!("{seen:?}")
    };
    assert_eq!((*effect, tool.as_str()), (ToolEffect::Write, "fs"));
    assert_eq!(id, call_id);
    assert!(call_id.as_str().starts_with("call-"), "{call_id}");
    assert_eq!(*outcome, CallEnd::Denied);
    assert_eq!(
        ruling.as_ref().unwrap().rule,
        "mode read-only: write calls are denied"
    );
}
