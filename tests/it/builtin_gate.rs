//! Built-in tools run only through the gate: the policy decides, previews reach the
//! approval request, and a refused call changes nothing.
#![allow(clippy::unwrap_used)]

use serde_json::json;
use switchboard::gate::{ApprovalDecision, Preview};
use switchboard::policy::{Mode, Policy, RuleList};

use crate::support;
use crate::support::builtin::{assert_refused, bench_with};

#[tokio::test]
async fn ask_without_a_user_denies_and_nothing_is_written() {
    let b = bench_with("", Policy::new(Mode::Ask), false).await;
    std::fs::write(b.workspace.join("notes.md"), "old\n").unwrap();
    let before = b.snapshot();
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "notes.md", "content": "new\n"}),
        )
        .await;
    assert_refused(&r, "this run is non-interactive");
    assert_refused(&r, "allow = [\"fs(write:");
    assert_eq!(b.snapshot(), before);
    // Reads need no approval.
    let r = b
        .call("fs", json!({"operation": "read", "path": "notes.md"}))
        .await;
    assert_eq!(r.text_content(), "old\n");
}

#[tokio::test]
async fn an_allow_rule_lets_the_write_through() {
    let policy = Policy::new(Mode::Ask)
        .with_rule(RuleList::Allow, "fs(write:notes.md)")
        .unwrap();
    let b = bench_with("", policy, false).await;
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "notes.md", "content": "new\n"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text_content());
    assert_eq!(
        std::fs::read_to_string(b.workspace.join("notes.md")).unwrap(),
        "new\n"
    );
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "other.md", "content": "x"}),
        )
        .await;
    assert_refused(&r, "non-interactive");
    assert!(!b.workspace.join("other.md").exists());
}

#[tokio::test]
async fn the_approval_request_carries_the_diff_and_a_denial_changes_nothing() {
    let b = bench_with("", Policy::new(Mode::Ask), true).await;
    std::fs::write(b.workspace.join("a.txt"), "one\n").unwrap();
    let before = b.snapshot();
    let (cx, mut requests) = support::builtin::observed_ctx();
    let registry = b.registry.clone();
    let call = tokio::spawn(async move {
        let a = support::builtin::args(
            json!({"operation": "write", "path": "a.txt", "content": "two\n"}),
        );
        registry.invoke("fs", a, &cx).await
    });
    let request = support::builtin::next_request(&mut requests).await;
    assert_eq!(request.server.as_deref(), Some("builtin"));
    let Some(Preview::Diff { path, unified }) = &request.preview else {
        panic!("no diff preview: {:?}", request.preview);
    };
    assert_eq!(path, "a.txt");
    assert!(unified.contains("-one\n+two\n"), "{unified}");
    assert!(
        b.registry
            .broker()
            .decide(request.id, ApprovalDecision::Deny { reason: None })
    );
    let r = call.await.unwrap().into_result();
    assert_refused(&r, "Denied by the user");
    assert_eq!(b.snapshot(), before);
}

#[tokio::test]
async fn shell_and_http_previews_reach_the_request() {
    let b = bench_with(
        "[tools.shell]\nallow = [\"echo\"]\n",
        Policy::new(Mode::Ask),
        true,
    )
    .await;
    let (cx, mut requests) = support::builtin::observed_ctx();
    let registry = b.registry.clone();
    let call = tokio::spawn(async move {
        let a = support::builtin::args(json!({"program": "echo", "args": ["a b"]}));
        registry.invoke("shell", a, &cx).await
    });
    let request = support::builtin::next_request(&mut requests).await;
    assert_eq!(request.preview, Some(Preview::Command("echo 'a b'".into())));
    b.registry
        .broker()
        .decide(request.id, ApprovalDecision::Once);
    let r = call.await.unwrap().into_result();
    assert_eq!(r.text_content(), "a b\n[exit code 0]");
}

#[test]
fn policy_explain_classifies_builtin_calls() {
    let dir = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::cargo_bin("switchboard")
        .unwrap()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("XDG_CONFIG_HOME")
        .args([
            "policy",
            "explain",
            "fs",
            r#"{"operation":"write","path":"x"}"#,
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("→ write → ask"), "{out}");
}

#[tokio::test]
async fn a_call_the_tool_would_refuse_is_refused_before_anyone_is_asked() {
    let b = bench_with(
        "[tools.shell]\nallow = [\"echo\"]\n",
        Policy::new(Mode::Ask),
        true,
    )
    .await;
    let (cx, mut events) = support::builtin::observed_ctx();
    for (tool, args, why) in [
        (
            "fs",
            json!({"operation": "write", "path": "../outside.md", "content": "x"}),
            "..",
        ),
        (
            "shell",
            json!({"program": "rm", "args": ["-rf", "x"]}),
            "rm",
        ),
    ] {
        let outcome = b
            .registry
            .invoke(tool, support::builtin::args(args), &cx)
            .await;
        let switchboard::tools::CallOutcome::Denied { ruling, message } = outcome else {
            panic!("{tool}: not refused");
        };
        assert_eq!(ruling.by, switchboard::policy::DecidedBy::Tool);
        assert!(message.contains(why), "{message}");
    }
    let mut asked = false;
    while let Ok(e) = events.try_recv() {
        asked |= matches!(e, switchboard::gate::GateEvent::ApprovalRequested(_));
    }
    assert!(!asked, "nothing was offered for approval");
    assert!(b.registry.broker().pending().is_empty());
}
