//! Hooks in the gate, with real scripts: a pre_tool_use deny refuses the call and is
//! audited; a hook's allow never beats a deny rule or a read-only scope; a hook's ask
//! turns an allowed call into a question; permission_request answers for the person;
//! post_tool_use context reaches the result.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use switchboard::gate::ApprovalBroker;
use switchboard::hooks::Hooks;
use switchboard::policy::{AuditLog, DecidedBy, Mode, Policy, RuleList};
use switchboard::settings::parse_str;
use switchboard::tools::builtin_specs::fs_spec;
use switchboard::tools::{CallOutcome, Registry, Scope};

use crate::support::gate::{FakeTool, args, ctx};
use crate::support::script;

/// A registry whose `fs` is a fake tool, with `hooks` (TOML) run in `dir`, auditing to
/// `dir/audit.jsonl`.
async fn gate(dir: &Path, policy: Policy, hooks: &str) -> (Registry, Arc<FakeTool>) {
    let config = parse_str(hooks, Path::new("t.toml")).unwrap();
    let hooks = Hooks::from_config(&config.hooks).unwrap().with_cwd(dir);
    let registry = Registry::new(policy, Arc::new(ApprovalBroker::new(false)))
        .with_audit(AuditLog::open(&dir.join("audit.jsonl"), false).unwrap())
        .with_hooks(hooks);
    let tool = Arc::new(FakeTool::new(fs_spec()));
    registry.register(tool.clone()).await.unwrap();
    (registry, tool)
}

fn audit(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn full_auto() -> Policy {
    Policy::new(Mode::FullAuto)
}

#[tokio::test]
async fn a_pre_tool_use_deny_refuses_and_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "check.sh", "echo 'not in CI' >&2\nexit 2");
    let hooks = "[[hooks.pre_tool_use]]\nmatcher = \"fs\"\ncommand = [\"./check.sh\"]\n";
    let (registry, tool) = gate(dir.path(), full_auto(), hooks).await;
    let write = args(json!({"operation": "write", "path": "a"}));
    let CallOutcome::Denied { ruling, message } = registry.invoke("fs", write, &ctx("r")).await
    else {
        panic!("not denied")
    };
    assert_eq!(message, "Denied by hook `./check.sh`: not in CI.");
    assert_eq!(ruling.by, DecidedBy::Hook);
    assert_eq!(tool.calls(), 0);
    let lines = audit(dir.path());
    assert_eq!(lines[0]["decided_by"], "hook");
    assert_eq!(lines[0]["decision"], "deny");
    assert_eq!(lines[0]["hooks"][0]["command"], "./check.sh");
    assert_eq!(lines[0]["hooks"][0]["outcome"], "deny");
    assert_eq!(lines[0]["hooks"][0]["exit_code"], 2);
}

#[tokio::test]
async fn a_hook_allow_never_beats_a_deny_rule_or_a_read_only_scope() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "yes.sh",
        "touch ran\necho '{\"decision\": \"allow\"}'",
    );
    let hooks = "[[hooks.pre_tool_use]]\ncommand = [\"./yes.sh\"]\n";
    let policy = full_auto()
        .with_rule(RuleList::Deny, "fs(delete:*)")
        .unwrap();
    let (registry, tool) = gate(dir.path(), policy, hooks).await;
    let delete = args(json!({"operation": "delete", "path": "a"}));
    let outcome = registry.invoke("fs", delete, &ctx("r")).await;
    assert!(
        matches!(outcome, CallOutcome::Denied { ref ruling, .. } if ruling.by == DecidedBy::Policy),
        "{outcome:?}"
    );
    let write = args(json!({"operation": "write", "path": "a"}));
    let ro = ctx("r").with_scope(Scope::ReadOnly);
    let outcome = registry.invoke("fs", write, &ro).await;
    assert!(
        matches!(outcome, CallOutcome::Denied { ref ruling, .. } if ruling.by == DecidedBy::Scope),
        "{outcome:?}"
    );
    assert_eq!(tool.calls(), 0);
    assert!(
        !dir.path().join("ran").exists(),
        "no hook runs for a call already refused"
    );
    // An allowed call runs, and the hook's allow is audited.
    let read = args(json!({"operation": "read", "path": "a"}));
    assert!(matches!(
        registry.invoke("fs", read, &ctx("r")).await,
        CallOutcome::Ran(_)
    ));
    assert_eq!(audit(dir.path())[2]["hooks"][0]["outcome"], "allow");
}

#[tokio::test]
async fn a_hook_ask_turns_allow_into_a_question() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "ask.sh",
        "echo '{\"decision\": \"ask\", \"reason\": \"touches prod\"}'",
    );
    let hooks = "[[hooks.pre_tool_use]]\ncommand = [\"./ask.sh\"]\n";
    let (registry, tool) = gate(dir.path(), full_auto(), hooks).await;
    let write = args(json!({"operation": "write", "path": "a"}));
    let CallOutcome::Denied { ruling, message } = registry.invoke("fs", write, &ctx("r")).await
    else {
        panic!("not refused")
    };
    // Non-interactive: the question becomes a refusal naming the hook.
    assert_eq!(ruling.by, DecidedBy::Headless);
    assert!(
        message.contains("hook `./ask.sh`: touches prod"),
        "{message}"
    );
    assert_eq!(tool.calls(), 0);
}

#[tokio::test]
async fn permission_request_hooks_answer_for_the_person() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "ok.sh", "echo '{\"decision\": \"allow\"}'");
    let hooks = "[[hooks.permission_request]]\nmatcher = \"fs\"\ncommand = [\"./ok.sh\"]\n";
    let (registry, tool) = gate(dir.path(), Policy::new(Mode::Ask), hooks).await;
    let write = args(json!({"operation": "write", "path": "a"}));
    let outcome = registry.invoke("fs", write, &ctx("r")).await;
    assert!(matches!(outcome, CallOutcome::Ran(_)), "{outcome:?}");
    assert_eq!(tool.calls(), 1);
    let line = &audit(dir.path())[0];
    assert_eq!(
        (line["decided_by"].as_str(), line["rule"].as_str()),
        (Some("hook"), Some("`./ok.sh`"))
    );
}

#[tokio::test]
async fn post_tool_use_context_reaches_the_result() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "note.sh",
        "cat > seen.json\necho '{\"context\": \"the file is generated\"}'",
    );
    let hooks = "[[hooks.post_tool_use]]\ncommand = [\"./note.sh\"]\n";
    let (registry, _) = gate(dir.path(), full_auto(), hooks).await;
    let read = args(json!({"operation": "read", "path": "a"}));
    let result = registry.invoke("fs", read, &ctx("r")).await.into_result();
    assert_eq!(
        result.text_content(),
        "fs ran\n[hook] the file is generated"
    );
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["event"], "post_tool_use");
    assert_eq!(seen["result"], "fs ran");
    assert_eq!(seen["arguments"], json!({"operation": "read", "path": "a"}));
}
