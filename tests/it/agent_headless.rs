//! Headless runs: the session driven by `run_headless` (with a test tool) and the real
//! `switchboard run` binary (assert_cmd): JSONL events, stdin tasks, exit codes,
//! `sessions` and `export`.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use assert_cmd::Command;
use serde_json::Value;
use switchboard::agent::headless::exit;
use switchboard::agent::{Session, SessionOptions, TurnEnd};
use switchboard::gate::{ApprovalBroker, ApprovalDecision};
use switchboard::llm::ScriptedProvider;
use switchboard::policy::{Mode, Policy};
use switchboard::tools::Registry;
use switchboard::tools::builtin_specs::fs_spec;

use crate::support::gate::FakeTool;
use crate::support::trust_folder;

async fn headless(
    task: &str,
    interactive: bool,
    answer: ApprovalDecision,
) -> (i32, Vec<Value>, usize) {
    let broker = Arc::new(ApprovalBroker::new(interactive));
    let registry = Arc::new(Registry::new(Policy::new(Mode::Ask), broker));
    let tool = Arc::new(FakeTool::new(fs_spec()));
    registry.register(tool.clone()).await.unwrap();
    let handle = Session::spawn(SessionOptions::new(
        Arc::new(ScriptedProvider::new()),
        registry,
    ));
    let (outcome, lines) = crate::support::headless::json_turn(handle, task, answer).await;
    (outcome.exit_code, lines, tool.calls())
}

const READ: &str = r#"fs {"operation":"read","path":"a.txt"}"#;
const WRITE: &str = r#"fs {"operation":"write","path":"a.txt","content":"x"}"#;

#[tokio::test]
async fn a_read_runs_and_exits_0_with_every_event_as_json() {
    let (code, lines, calls) = headless(READ, false, ApprovalDecision::Once).await;
    assert_eq!(code, exit::DONE);
    assert_eq!(calls, 1);
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"session_started"));
    assert_eq!(types.last(), Some(&"turn_done"));
    for t in [
        "tool_call_requested",
        "tool_call_started",
        "tool_call_finished",
        "tool_result",
    ] {
        assert!(types.contains(&t), "{t} missing from {types:?}");
    }
}

#[tokio::test]
async fn a_write_in_a_non_interactive_run_is_denied_naming_the_rule_exit_5() {
    let (code, lines, calls) = headless(WRITE, false, ApprovalDecision::Once).await;
    assert_eq!(code, exit::APPROVAL_DENIED);
    assert_eq!(calls, 0);
    let result = lines.iter().find(|l| l["type"] == "tool_result").unwrap();
    let text = result["content"].as_str().unwrap();
    assert!(text.contains("allow = [\"fs(write:*)\"]"), "{text}");
}

#[tokio::test]
async fn an_interactive_run_asks_and_runs_when_approved() {
    let (code, lines, calls) = headless(WRITE, true, ApprovalDecision::Once).await;
    assert_eq!(code, exit::DONE);
    assert_eq!(calls, 1);
    assert!(lines.iter().any(|l| l["type"] == "approval_requested"));
    let (code, _, calls) = headless(WRITE, true, ApprovalDecision::Deny { reason: None }).await;
    assert_eq!((code, calls), (exit::APPROVAL_DENIED, 0));
    let (code, _, calls) = headless(WRITE, true, ApprovalDecision::Abort).await;
    assert_eq!((code, calls), (exit::INTERRUPTED, 0));
}

#[test]
fn exit_codes() {
    use switchboard::agent::headless::exit_code;
    assert_eq!(exit_code(TurnEnd::Completed, 0, 0), 0);
    assert_eq!(exit_code(TurnEnd::ProviderError, 0, 0), 2);
    assert_eq!(exit_code(TurnEnd::Completed, 0, 1), 4);
    assert_eq!(exit_code(TurnEnd::Completed, 1, 1), 5);
    assert_eq!(exit_code(TurnEnd::MaxSteps, 0, 0), 6);
}

// The real binary. No built-in tools are registered by `run` yet (the shared
// workbench assembly adds them), so tool calls here end as unknown tools.

fn bin(home: &Path) -> Command {
    let mut cmd = Command::cargo_bin("switchboard").unwrap();
    cmd.current_dir(home)
        .env_clear()
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .timeout(std::time::Duration::from_secs(60));
    cmd
}

fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn run_json_prints_events_and_saves_the_session() {
    let home = tempfile::tempdir().unwrap();
    let out = bin(home.path())
        .args(["run", "--json", "hello"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let lines = json_lines(&out);
    assert_eq!(lines[0]["type"], "session_started");
    assert_eq!(lines[0]["provider"], "scripted");
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "turn_done");
    assert_eq!(last["reason"], "completed");
    let id = lines[0]["session_id"].as_str().unwrap().to_owned();

    let listed = bin(home.path()).arg("sessions").assert().success();
    let listed = String::from_utf8_lossy(&listed.get_output().stdout).into_owned();
    assert!(listed.contains(&id) && listed.contains("hello"), "{listed}");

    let exported = bin(home.path())
        .args(["export", &id, "--format", "json"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&exported.get_output().stdout).unwrap();
    assert_eq!(
        doc["messages"][0],
        serde_json::json!({"role": "user", "text": "hello"})
    );
    let md = bin(home.path()).args(["export", &id]).assert().success();
    let md = String::from_utf8_lossy(&md.get_output().stdout).into_owned();
    assert!(md.contains("## User\n\nhello"), "{md}");
}

#[test]
fn run_reads_the_task_from_stdin_and_prints_the_answer() {
    let home = tempfile::tempdir().unwrap();
    let out = bin(home.path())
        .args(["run", "--no-save", "-"])
        .write_stdin("what are you?")
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("scripted provider"), "{text}");
    assert!(!home.path().join("state/switchboard/sessions").exists());
}

#[test]
fn a_failed_call_the_model_recovered_from_exits_0_unless_strict() {
    let home = tempfile::tempdir().unwrap();
    let out = bin(home.path())
        .args(["run", "--json", "--non-interactive", "/call nosuch a=1"])
        .assert()
        .code(exit::DONE);
    let lines = json_lines(&out.get_output().stdout);
    let done = lines.last().unwrap();
    assert_eq!(done["reason"], "completed");
    assert_eq!(done["failed_calls"], 1);
    bin(home.path())
        .args(["run", "--strict", "--non-interactive", "/call nosuch a=1"])
        .assert()
        .code(exit::TOOL_ERROR);
}

fn with_script(home: &Path, script: &str) {
    std::fs::write(home.join("demo.jsonl"), script).unwrap();
    std::fs::write(
        home.join("switchboard.toml"),
        "default_provider = \"demo\"\n[providers.demo]\nkind = \"scripted\"\nscript = \"demo.jsonl\"\n",
    )
    .unwrap();
    trust_folder(home, &home.join("state"));
}

#[test]
fn a_provider_error_exits_2() {
    let home = tempfile::tempdir().unwrap();
    with_script(home.path(), "{\"error\": \"simulated outage\"}\n");
    let out = bin(home.path())
        .args(["run", "hi"])
        .assert()
        .code(exit::PROVIDER_ERROR);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("simulated outage"), "{err}");
}

#[test]
fn max_steps_exits_6() {
    let home = tempfile::tempdir().unwrap();
    let line = "{\"tool_calls\":[{\"name\":\"nosuch\"}]}\n";
    with_script(home.path(), &line.repeat(5));
    bin(home.path())
        .args(["run", "--max-steps", "2", "go"])
        .assert()
        .code(exit::MAX_STEPS);
}

#[test]
fn an_unknown_provider_or_missing_key_exits_2_naming_the_variable() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("switchboard.toml"),
        "[providers.claude]\nkind = \"anthropic\"\n",
    )
    .unwrap();
    trust_folder(home.path(), &home.path().join("state"));
    let out = bin(home.path())
        .args(["run", "--provider", "claude", "hi"])
        .assert()
        .code(exit::PROVIDER_ERROR);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
    bin(home.path())
        .args(["run", "--provider", "nope", "hi"])
        .assert()
        .code(exit::PROVIDER_ERROR);
}
