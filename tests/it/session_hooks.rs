//! Session hooks with real scripts, driven headless: `user_prompt_submit` blocks a
//! message (exit 2) or adds context the provider receives, `session_start` context is
//! in the system prompt, `stop` keeps a turn going (bounded), and every run is an
//! audit line. The last test runs the real `switchboard run` binary.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use crate::support::llm::Recording;
use crate::support::script;
use crate::support::trust_folder;
use assert_cmd::Command;
use serde_json::Value;
use switchboard::agent::headless::exit;
use switchboard::agent::session_hooks::MAX_STOP_CONTINUATIONS;
use switchboard::agent::transcript::messages_from_events;
use switchboard::agent::{AgentEvent, Session, SessionOptions};
use switchboard::gate::{ApprovalBroker, ApprovalDecision};
use switchboard::hooks::Hooks;
use switchboard::llm::scripted_script::ScriptedTurn;
use switchboard::llm::{ChatRequest, Message};
use switchboard::policy::{AuditLog, Mode, Policy};
use switchboard::settings::parse_str;
use switchboard::tools::Registry;

struct Run {
    code: i32,
    events: Vec<AgentEvent>,
    requests: Vec<ChatRequest>,
    audit: Vec<Value>,
}

/// One headless turn of `task` with `hooks` (TOML) run in `dir`, the provider
/// answering `answers` in order.
async fn run(dir: &Path, hooks: &str, answers: &[&str], task: &str) -> Run {
    let config = parse_str(hooks, Path::new("t.toml")).unwrap();
    let hooks = Hooks::from_config(&config.hooks).unwrap().with_cwd(dir);
    let audit_path = dir.join("audit.jsonl");
    let registry = Registry::new(Policy::new(Mode::Ask), Arc::new(ApprovalBroker::new(false)))
        .with_audit(AuditLog::open(&audit_path, false).unwrap())
        .with_hooks(hooks);
    let turns = answers
        .iter()
        .map(|a| ScriptedTurn {
            text: (*a).to_owned(),
            ..ScriptedTurn::default()
        })
        .collect();
    let provider = Recording::new(turns);
    let handle = Session::spawn(SessionOptions::new(provider.clone(), Arc::new(registry)));
    let (outcome, events) =
        crate::support::headless::json_turn(handle, task, ApprovalDecision::Once).await;
    let audit = std::fs::read_to_string(&audit_path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let requests = provider.requests();
    Run {
        code: outcome.exit_code,
        events,
        requests,
        audit,
    }
}

fn hook_lines<'a>(audit: &'a [Value], event: &str) -> Vec<&'a Value> {
    audit
        .iter()
        .filter(|l| l["event"] == "hook" && l["hook_event"] == event)
        .collect()
}

fn user_texts(request: &ChatRequest) -> Vec<String> {
    (request.messages.iter())
        .filter_map(|m| match m {
            Message::User { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_prompt_hook_exiting_2_blocks_the_message_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "guard.sh",
        "grep -q password && { echo 'no secrets in prompts' >&2; exit 2; }\nexit 0",
    );
    let hooks = "[[hooks.user_prompt_submit]]\ncommand = [\"./guard.sh\"]\n";
    let run = run(dir.path(), hooks, &["never"], "my password is hunter2").await;
    assert_eq!(run.code, exit::PROMPT_BLOCKED);
    assert!(run.requests.is_empty(), "the model got the message");
    let error = run.events.iter().find_map(|e| match e {
        AgentEvent::Error { message, .. } => Some(message.clone()),
        _ => None,
    });
    assert_eq!(
        error.as_deref(),
        Some("Message blocked by hook `./guard.sh`: no secrets in prompts")
    );
    let done = run.events.last().unwrap();
    assert!(
        matches!(done, AgentEvent::TurnDone { reason, .. } if *reason == switchboard::agent::TurnEnd::Blocked)
    );
    // A resumed session never sends the blocked message either.
    assert!(messages_from_events(&run.events).is_empty());
    let lines = hook_lines(&run.audit, "user_prompt_submit");
    assert_eq!(lines.len(), 1, "{:?}", run.audit);
    assert_eq!(lines[0]["hooks"][0]["outcome"], "deny");
    assert_eq!(lines[0]["hooks"][0]["exit_code"], 2);
    // The audit line keeps the hook's reason, never the prompt.
    assert!(!lines[0].to_string().contains("hunter2"));
}

#[tokio::test]
async fn prompt_and_session_start_context_reach_the_provider() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "ctx.sh",
        r#"grep -q '"prompt":"deploy' && echo '{"context": "The staging cluster is down today."}'
exit 0"#,
    );
    script(
        dir.path(),
        "start.sh",
        r#"grep -q '"source":"startup"' && echo 'Branch: main, 2 files changed.'"#,
    );
    let hooks = "[[hooks.user_prompt_submit]]\ncommand = [\"./ctx.sh\"]\n\
                 [[hooks.session_start]]\ncommand = [\"./start.sh\"]\n";
    let run = run(dir.path(), hooks, &["ok"], "deploy the app").await;
    assert_eq!(run.code, exit::DONE);
    assert_eq!(run.requests.len(), 1);
    let request = &run.requests[0];
    assert_eq!(
        user_texts(request),
        ["deploy the app\n\n[hook context]\nThe staging cluster is down today."]
    );
    let system = request.system_text().unwrap();
    assert!(
        system.contains("Session context (from session_start hooks)")
            && system.contains("Branch: main, 2 files changed."),
        "{system}"
    );
    // The context is in the session's events, so a resumed conversation has it too.
    let rebuilt = messages_from_events(&run.events);
    assert_eq!(rebuilt[0], request.messages[1]);
    assert_eq!(hook_lines(&run.audit, "session_start").len(), 1);
    assert_eq!(hook_lines(&run.audit, "user_prompt_submit").len(), 1);
}

const STOP_ONCE: &str = r#"grep -q '"stop_hook_active":true' && exit 0
echo '{"decision": "block", "reason": "run the tests before you finish"}'"#;

#[tokio::test]
async fn a_stop_hook_continues_the_turn_once_then_allows() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "stop.sh", STOP_ONCE);
    let hooks = "[[hooks.stop]]\ncommand = [\"./stop.sh\"]\n";
    let run = run(dir.path(), hooks, &["done", "tests pass"], "fix it").await;
    assert_eq!(run.code, exit::DONE);
    assert_eq!(run.requests.len(), 2);
    assert_eq!(
        user_texts(&run.requests[1]),
        [
            "fix it",
            "[stop hook `./stop.sh`] run the tests before you finish"
        ]
    );
    let notes: Vec<&AgentEvent> = (run.events.iter())
        .filter(|e| matches!(e, AgentEvent::HookNote { hook, .. } if hook == "stop"))
        .collect();
    assert_eq!(notes.len(), 1);
    assert_eq!(messages_from_events(&run.events), {
        let mut m = run.requests[1].messages[1..].to_vec();
        m.push(Message::assistant("tests pass".to_owned(), Vec::new()));
        m
    });
    let lines = hook_lines(&run.audit, "stop");
    let outcomes: Vec<&Value> = lines.iter().map(|l| &l["hooks"][0]["outcome"]).collect();
    assert_eq!(outcomes, ["deny", "none"]);
}

#[tokio::test]
async fn a_stop_hook_that_always_blocks_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "stop.sh",
        r#"echo '{"decision": "deny", "reason": "again"}'"#,
    );
    let hooks = "[[hooks.stop]]\ncommand = [\"./stop.sh\"]\n";
    let answers = ["a", "b", "c", "d", "e", "f"];
    let run = run(dir.path(), hooks, &answers, "go").await;
    assert_eq!(run.code, exit::DONE);
    let bound = usize::try_from(MAX_STOP_CONTINUATIONS).unwrap();
    assert_eq!(run.requests.len(), bound + 1);
    assert!(run.events.iter().any(|e| matches!(
        e,
        AgentEvent::Notice { message, .. } if message.contains("stopped after 3 continuations")
    )));
    assert_eq!(hook_lines(&run.audit, "stop").len(), bound + 1);
}

#[test]
fn switchboard_run_runs_the_session_hooks_and_exits_7_when_blocked() {
    let home = tempfile::tempdir().unwrap();
    script(home.path(), "start.sh", "echo started");
    script(home.path(), "guard.sh", "echo 'not today' >&2\nexit 2");
    std::fs::write(
        home.path().join("switchboard.toml"),
        "[[hooks.session_start]]\ncommand = [\"./start.sh\"]\n\
         [[hooks.user_prompt_submit]]\ncommand = [\"./guard.sh\"]\n",
    )
    .unwrap();
    trust_folder(home.path(), &home.path().join("state"));
    let out = Command::cargo_bin("switchboard")
        .unwrap()
        .current_dir(home.path())
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .timeout(std::time::Duration::from_secs(60))
        .args(["run", "--no-save", "hello"])
        .assert()
        .code(exit::PROMPT_BLOCKED);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("Message blocked by hook `./guard.sh`: not today"),
        "{err}"
    );
    let audit = std::fs::read_to_string(home.path().join("state/switchboard/audit.jsonl")).unwrap();
    let events: Vec<Value> = (audit.lines())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["event"] == "hook")
        .map(|l| l["hook_event"].clone())
        .collect();
    assert_eq!(events, ["session_start", "user_prompt_submit"]);
}
