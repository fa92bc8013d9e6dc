//! Permission modes at the gate: the live mode (`Registry::set_mode`), plan, and
//! `[policy] always_ask`, which asks in every mode — full-auto included — while a deny
//! rule, a read-only scope or plan still refuse first.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use switchboard::agent::headless::run_headless;
use switchboard::agent::{AgentEvent, Session, SessionOptions};
use switchboard::gate::{ApprovalBroker, ApprovalDecision, GateEvent};
use switchboard::hooks::Hooks;
use switchboard::llm::scripted_script::{ScriptedCall, ScriptedTurn};
use switchboard::policy::{
    AuditLog, CallFacts, DecidedBy, GrantScope, Mode, Policy, RuleList, SessionGrants, Verdict,
};
use switchboard::settings::parse_str;
use switchboard::tools::builtin_specs::fs_spec;
use switchboard::tools::{CallOutcome, Registry, Scope, ToolEffect};

use crate::support;
use crate::support::gate::{FakeTool, args, ctx};
use crate::support::llm::Recording;

fn policy(toml: &str) -> Policy {
    let config = parse_str(toml, Path::new("t.toml")).unwrap();
    Policy::from_config(&config.policy).unwrap()
}

async fn registry(policy: Policy, interactive: bool) -> (Arc<Registry>, Arc<FakeTool>) {
    support::gate::registry_with(policy, interactive, fs_spec()).await
}

fn write() -> serde_json::Map<String, Value> {
    args(json!({"operation": "write", "path": "a.txt", "content": "x"}))
}

fn read() -> serde_json::Map<String, Value> {
    args(json!({"operation": "read", "path": "a.txt"}))
}

#[test]
fn always_ask_turns_what_would_run_into_a_question_in_every_mode() {
    let p = policy("[policy]\nallow = [\"*\"]\nalways_ask = [\"f?\"]\n");
    let write = CallFacts::new("fs", ToolEffect::Write);
    let grants = SessionGrants::new();
    grants.add(GrantScope::exact_for(&write));
    for mode in Mode::ALL {
        let d = p.decide_in(&write, &grants, mode);
        assert_eq!(d.verdict, Verdict::Ask, "{mode}");
        assert_eq!(d.to_string(), "asked by [policy] always_ask = \"f?\"");
    }
    let other = CallFacts::new("shell", ToolEffect::Compute);
    assert_eq!(
        p.decide_in(&other, &grants, Mode::FullAuto).verdict,
        Verdict::Allow
    );
    // Only tightens: a deny rule, and a mode that denies, still deny.
    let p = p.with_rule(RuleList::Deny, "fs(write:*)").unwrap();
    let d = p.decide_in(
        &CallFacts::new("fs", ToolEffect::Write).with_selector("write"),
        &grants,
        Mode::FullAuto,
    );
    assert_eq!(d.verdict, Verdict::Deny);
    let p = policy("[policy]\nalways_ask = [\"fs\"]\n");
    assert_eq!(
        p.decide_in(&write, &SessionGrants::new(), Mode::ReadOnly)
            .verdict,
        Verdict::Deny
    );
}

/// A session grant given while asking does not run writes once the person switches
/// to read-only or plan: those modes refuse before grants (an allow rule, written in
/// the config, still applies).
#[test]
fn grants_do_not_lift_read_only_or_plan() {
    let write = CallFacts::new("fs", ToolEffect::Write);
    let grants = SessionGrants::new();
    grants.add(GrantScope::exact_for(&write));
    let p = policy("[policy]\n");
    assert_eq!(
        p.decide_in(&write, &grants, Mode::Ask).verdict,
        Verdict::Allow
    );
    for mode in [Mode::ReadOnly, Mode::Plan] {
        let d = p.decide_in(&write, &grants, mode);
        assert_eq!(d.verdict, Verdict::Deny, "{mode}");
        assert_eq!(
            d.to_string(),
            format!("mode {mode}: write calls are denied"),
            "{mode}"
        );
    }
    let p = policy("[policy]\nallow = [\"fs\"]\n");
    assert_eq!(
        p.decide_in(&write, &SessionGrants::new(), Mode::Plan)
            .verdict,
        Verdict::Allow
    );
}

#[tokio::test]
async fn always_ask_beats_full_auto_at_the_gate() {
    let p = policy("[policy]\nmode = \"full-auto\"\nalways_ask = [\"fs\"]\n");
    // Interactive: the person is asked, and the reason names always_ask.
    let (registry, tool) = registry(p.clone(), true).await;
    let call = {
        let registry = Arc::clone(&registry);
        tokio::spawn(async move { registry.invoke("fs", read(), &ctx("r")).await })
    };
    let request = loop {
        if let Some(r) = registry.broker().pending().first().cloned() {
            break r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    };
    assert_eq!(request.reason, "asked by [policy] always_ask = \"fs\"");
    registry.broker().decide(request.id, ApprovalDecision::Once);
    assert!(matches!(call.await.unwrap(), CallOutcome::Ran(_)));
    assert_eq!(tool.calls(), 1);

    // Headless: refused as any call that needs approval, saying why.
    let (registry, tool) = registry_for(p).await;
    let CallOutcome::Denied { ruling, message } = registry.invoke("fs", write(), &ctx("r")).await
    else {
        panic!("not denied")
    };
    assert_eq!(ruling.by, DecidedBy::Headless);
    assert!(
        message.contains("[policy] always_ask = \"fs\" makes it ask in every mode"),
        "{message}"
    );
    assert_eq!(tool.calls(), 0);
}

async fn registry_for(p: Policy) -> (Arc<Registry>, Arc<FakeTool>) {
    registry(p, false).await
}

/// A registry with a `permission_request` hook that always allows, and `policy`.
async fn with_yes_hook(dir: &Path, policy_toml: &str) -> (Registry, Arc<FakeTool>) {
    let hook = dir.join("yes.sh");
    std::fs::write(&hook, "#!/bin/sh\necho '{\"decision\": \"allow\"}'\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let toml = format!("{policy_toml}[[hooks.permission_request]]\ncommand = [\"./yes.sh\"]\n");
    let config = parse_str(&toml, Path::new("t.toml")).unwrap();
    let hooks = Hooks::from_config(&config.hooks).unwrap().with_cwd(dir);
    let p = Policy::from_config(&config.policy).unwrap();
    let registry = Registry::new(p, Arc::new(ApprovalBroker::new(false))).with_hooks(hooks);
    let tool = Arc::new(FakeTool::new(fs_spec()));
    registry.register(tool.clone()).await.unwrap();
    (registry, tool)
}

#[tokio::test]
async fn a_permission_hook_cannot_answer_an_always_ask_call() {
    let dir = tempfile::tempdir().unwrap();
    // Without always_ask the hook answers the mode's question for the person.
    let (registry, tool) = with_yes_hook(dir.path(), "").await;
    let outcome = registry.invoke("fs", write(), &ctx("r")).await;
    assert!(matches!(outcome, CallOutcome::Ran(_)), "{outcome:?}");
    assert_eq!(tool.calls(), 1);
    // With it, the question is the person's: a headless run refuses.
    let (registry, tool) = with_yes_hook(dir.path(), "[policy]\nalways_ask = [\"fs\"]\n").await;
    for call in [write(), read()] {
        let outcome = registry.invoke("fs", call, &ctx("r")).await;
        let CallOutcome::Denied { ruling, .. } = outcome else {
            panic!("ran: {outcome:?}")
        };
        assert_eq!(ruling.by, DecidedBy::Headless);
    }
    assert_eq!(tool.calls(), 0);
}

#[tokio::test]
async fn a_read_only_or_plan_scope_still_refuses_a_write_in_full_auto() {
    let p = Policy::new(Mode::FullAuto)
        .with_rule(RuleList::Allow, "*")
        .unwrap();
    let (registry, tool) = registry_for(p).await;
    let scoped = ctx("r").with_scope(Scope::ReadOnly);
    let CallOutcome::Denied { ruling, .. } = registry.invoke("fs", write(), &scoped).await else {
        panic!("a read-only scope ran a write")
    };
    assert_eq!(ruling.by, DecidedBy::Scope);
    assert_eq!(tool.calls(), 0);
    // Plan as the live mode decides as read-only: without rules a write from a
    // full-scope context (the person's /call) is refused too; a turn in plan mode
    // has the read-only scope above whatever the rules say.
    let (registry, tool) = registry_for(Policy::new(Mode::FullAuto)).await;
    registry.set_mode(Mode::Plan);
    let CallOutcome::Denied { .. } = registry.invoke("fs", write(), &ctx("r")).await else {
        panic!("plan ran a write")
    };
    assert!(matches!(
        registry.invoke("fs", read(), &ctx("r")).await,
        CallOutcome::Ran(_)
    ));
    assert_eq!(tool.calls(), 1);
}

#[tokio::test]
async fn the_live_mode_decides_the_next_call_and_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let registry = Registry::new(Policy::new(Mode::Ask), Arc::new(ApprovalBroker::new(false)))
        .with_audit(AuditLog::open(&audit, false).unwrap());
    let tool = Arc::new(FakeTool::new(fs_spec()));
    registry.register(tool.clone()).await.unwrap();
    assert!(matches!(
        registry.invoke("fs", write(), &ctx("r")).await,
        CallOutcome::Denied { .. }
    ));
    registry.set_mode(Mode::FullAuto);
    assert_eq!(registry.mode(), Mode::FullAuto);
    assert!(matches!(
        registry.invoke("fs", write(), &ctx("r")).await,
        CallOutcome::Ran(_)
    ));
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let switch = lines.iter().find(|l| l["event"] == "mode").unwrap();
    assert_eq!(
        (&switch["mode"], &switch["was"]),
        (&json!("full-auto"), &json!("ask"))
    );
}

#[tokio::test]
async fn a_turn_in_plan_mode_is_read_only_and_told_to_propose() {
    let (registry, tool) = registry_for(Policy::new(Mode::FullAuto)).await;
    registry.set_mode(Mode::Plan);
    let write_call = ScriptedCall {
        id: None,
        name: "fs".into(),
        arguments: write(),
    };
    let provider = Recording::new(vec![
        ScriptedTurn {
            tool_calls: vec![write_call],
            ..ScriptedTurn::default()
        },
        ScriptedTurn {
            text: "Plan: write a.txt.".into(),
            ..ScriptedTurn::default()
        },
    ]);
    let handle = Session::spawn(SessionOptions::new(provider.clone(), registry));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut approve = |_: &switchboard::gate::ApprovalRequest| ApprovalDecision::Once;
    run_headless(
        handle,
        "fix a.txt".into(),
        true,
        &mut out,
        &mut err,
        &mut approve,
    )
    .await
    .unwrap();
    assert_eq!(tool.calls(), 0);
    let system = provider.requests()[0].system_text().unwrap();
    assert!(
        system.contains("## Plan mode") && system.contains("propose"),
        "{system}"
    );
    let events: Vec<AgentEvent> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ruling = events.iter().find_map(|e| match e {
        AgentEvent::Gate(GateEvent::ToolCallFinished { ruling, .. }) => ruling.clone(),
        _ => None,
    });
    assert_eq!(ruling.unwrap().by, DecidedBy::Scope);
}
