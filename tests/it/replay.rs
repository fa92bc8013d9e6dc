//! `switchboard replay` against the real binary and the test server: sessions made by
//! a real `run` (the scripted provider's tool calls) and by the TUI's executor (a
//! `/call`, a `/read`, a `/prompt`), made again, compared, and the exit codes (0 all
//! the same, 1 a difference, 3 a server that did not start, 5 a call the policy
//! denied); `--ignore`, `--server`, `--json`, and the gate refusing a write headless.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use assert_cmd::Command;
use serde_json::Value;

use crate::support::mcp::SERVER_BIN;
use crate::support::tui::type_line;

/// A home of its own: config, state (sessions) and the working directory.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes the user's config: the test server as `demo` with `args`, its tools
    /// allowed.
    fn config(&self, args: &[&str]) {
        let dir = self.path().join("config/switchboard");
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!(
            "[servers.demo]\ncommand = {SERVER_BIN:?}\nargs = {args:?}\n\n\
             [policy]\nallow = [\"demo__*\"]\n"
        );
        std::fs::write(dir.join("config.toml"), text).unwrap();
    }

    fn cmd(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        Command::cargo_bin("switchboard")
            .unwrap()
            .current_dir(self.path())
            .env_clear()
            .env("HOME", self.path())
            .env("XDG_STATE_HOME", self.path().join("state"))
            .env("XDG_CONFIG_HOME", self.path().join("config"))
            .args(args)
            .timeout(std::time::Duration::from_secs(120))
            .assert()
    }

    /// `switchboard run --json TASK` (the scripted provider makes the calls the task
    /// names); the session's id.
    fn run(&self, extra: &[&str], task: &str) -> String {
        let mut args = vec!["run", "--json"];
        args.extend_from_slice(extra);
        args.push(task);
        let out = self.cmd(&args).success().get_output().stdout.clone();
        let first: Value =
            serde_json::from_str(String::from_utf8_lossy(&out).lines().next().unwrap()).unwrap();
        first["session_id"].as_str().unwrap().to_owned()
    }

    fn replay(&self, args: &[&str], code: i32) -> String {
        let mut all = vec!["replay"];
        all.extend_from_slice(args);
        let out = self.cmd(&all).code(code).get_output().stdout.clone();
        String::from_utf8(out).unwrap()
    }
}

const ADD: &str = r#"demo__add {"a":1,"b":2}"#;

#[test]
fn a_model_call_replays_the_same_and_differs_when_the_server_changed() {
    let home = Home::new();
    home.config(&[]);
    let id = home.run(&[], ADD);
    let out = home.replay(&[&id], 0);
    assert_eq!(
        out,
        "same     demo__add  (call_1, model)\n1 call: 1 same, 0 differ, 0 skipped\n"
    );
    // Today's `add` answers `sum` as a string: the text and the structured field differ.
    home.config(&["--misbehave", "bad-structured"]);
    let out = home.replay(&[&id], 1);
    assert!(
        out.starts_with("differs  demo__add  (call_1, model)\n    text:\n"),
        "{out}"
    );
    assert!(out.contains("      -{\"sum\":3}\n      +3\n"), "{out}");
    assert!(out.contains("    structured /sum: 3.0 → \"3\"\n"), "{out}");
    assert!(
        out.ends_with("1 call: 0 same, 1 differs, 0 skipped\n"),
        "{out}"
    );
}

#[test]
fn ignored_pointers_are_dropped_from_both_sides() {
    let home = Home::new();
    home.config(&["--misbehave", "stamped"]);
    let id = home.run(&[], ADD);
    // The timestamp changed since (the text is the structured content as JSON: it is
    // compared once, as data).
    let out = home.replay(&[&id], 1);
    assert!(
        out.starts_with("differs  demo__add  (call_1, model)\n    structured /timestamp: \""),
        "{out}"
    );
    let out = home.replay(&[&id, "--ignore", "/timestamp"], 0);
    assert!(out.starts_with("same     demo__add"), "{out}");
    let json: Value =
        serde_json::from_str(&home.replay(&[&id, "--json", "--ignore", "/timestamp"], 0)).unwrap();
    assert_eq!(json["session"], id.as_str());
    assert_eq!(json["calls"][0]["status"], "same");
    assert_eq!(json["calls"][0]["server"], "demo");
    assert_eq!(json["same"], 1);
    let json: Value = serde_json::from_str(&home.replay(&[&id, "--json"], 1)).unwrap();
    let differences = json["calls"][0]["differences"].as_array().unwrap();
    assert!(
        differences.iter().any(|d| d["kind"] == "field"
            && d["part"] == "structured"
            && d["pointer"] == "/timestamp"),
        "{differences:?}"
    );
    // Not a pointer: a usage error naming RFC 6901.
    let err = home.cmd(&["replay", &id, "--ignore", "timestamp"]).code(2);
    let err = String::from_utf8_lossy(&err.get_output().stderr).into_owned();
    assert!(err.contains("RFC 6901"), "{err}");
}

#[test]
fn a_server_that_does_not_start_exits_3_and_server_filters_the_calls() {
    let home = Home::new();
    home.config(&[]);
    let id = home.run(&[], ADD);
    // Only the built-in tools' calls: none here, so nothing is started or compared.
    let out = home.replay(&[&id, "--server", "builtin"], 0);
    assert_eq!(out, "0 calls: 0 same, 0 differ, 0 skipped\n");
    home.config(&["--misbehave", "exit-on-init"]);
    let out = home.replay(&[&id], 3);
    assert!(
        out.starts_with("skipped  demo__add  (call_1, model): server demo did not start\n"),
        "{out}"
    );
}

#[test]
fn a_write_goes_through_the_gate_and_is_refused_headless_unless_allowed() {
    let home = Home::new();
    home.config(&[]);
    let task = r#"fs {"operation":"write","path":"out.txt","content":"hello"}"#;
    let id = home.run(&["--approve", "full-auto"], task);
    let written = home.path().join("out.txt");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), "hello");
    std::fs::remove_file(&written).unwrap();
    // The configured mode asks for writes; without a person the gate refuses it.
    let out = home.replay(&[&id], 5);
    assert!(out.starts_with("differs  fs  (call_1, model)\n"), "{out}");
    assert!(out.contains("    denied by policy: "), "{out}");
    assert!(out.contains("    outcome: ok → denied\n"), "{out}");
    assert!(out.ends_with("; 1 denied by policy\n"), "{out}");
    assert!(!written.exists());
    let out = home.replay(&[&id, "--approve", "full-auto"], 0);
    assert!(out.starts_with("same     fs  (call_1, model)\n"), "{out}");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), "hello");
}

/// A TUI session (the executor over a real workbench, as the event loop drives it)
/// with a `/call`, a `/read` and a `/prompt`, saved where `home`'s binary finds it.
async fn tui_session(home: &Home) -> String {
    use switchboard::agent::{Session, SessionOptions, SessionStore};
    use switchboard::tui::Msg;
    use switchboard::tui::executor::Executor;
    use switchboard::workbench::{Workbench, WorkbenchOptions};
    let state = home.path().join("state");
    let dirs = switchboard::paths::Dirs::new(home.path(), home.path(), &state, home.path());
    let mut config = switchboard::config::Config::default();
    config
        .servers
        .insert("demo".into(), crate::support::mcp::stdio_config(&[]));
    let options = WorkbenchOptions {
        interactive: true,
        mode: Some(switchboard::policy::Mode::FullAuto),
        ..WorkbenchOptions::default()
    };
    let workbench = Workbench::start(&config, &dirs, options).await.unwrap();
    let snapshot = workbench.settle().await;
    workbench.sync_now().await;
    let mut options = SessionOptions::new(
        Arc::new(switchboard::llm::ScriptedProvider::new()),
        Arc::clone(&workbench.registry),
    );
    options.store = Some(SessionStore::from_dirs(&dirs));
    let mut handle = Session::spawn(options);
    let (inbox, _inbox_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut state = crate::support::tui::state();
    state.catalog.items =
        switchboard::tui::hub_view::catalog(&workbench.registry.specs(), &snapshot);
    let mut exec = Executor::new(
        state,
        Arc::clone(&workbench.registry),
        handle.recorder.clone(),
        inbox,
    )
    .with_hub(workbench.hub.clone());
    type_line(&mut exec, "/call demo__echo text=hello");
    type_line(&mut exec, "/read demo test://text/1");
    type_line(&mut exec, "/prompt demo greet name=Ada");
    let deadline = tokio::time::Instant::now() + crate::support::EVENT_DEADLINE;
    let mut finished = 0;
    while finished < 3 {
        let event = tokio::time::timeout_at(deadline, handle.next_event())
            .await
            .expect("the three calls did not finish")
            .unwrap();
        if matches!(
            event,
            switchboard::agent::AgentEvent::ToolResult { .. }
                | switchboard::agent::AgentEvent::RequestFinished { .. }
        ) {
            finished += 1;
        }
        exec.handle(Msg::Agent(Box::new(event)));
    }
    let id = handle.id.clone();
    drop(exec);
    drop(handle);
    workbench.shutdown().await;
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_persons_calls_reads_and_prompts_replay_with_their_arguments() {
    let home = Home::new();
    let id = tui_session(&home).await;
    home.config(&[]);
    let out = tokio::task::spawn_blocking({
        let id = id.clone();
        move || {
            let out = home.replay(&[&id], 0);
            (home, out)
        }
    })
    .await
    .unwrap();
    let (home, out) = out;
    assert_eq!(
        out,
        "same     demo__echo  (manual-1, manual)\n\
         same     read demo test://text/1  (manual-2, manual)\n\
         same     prompt demo greet  (manual-3, manual)\n\
         3 calls: 3 same, 0 differ, 0 skipped\n"
    );
    // A server that answers otherwise today: the read's text differs, line by line.
    let file = home
        .path()
        .join("state/switchboard/sessions")
        .join(format!("{id}.jsonl"));
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("Hi Ada!", "Hello Ada!")).unwrap();
    let out = tokio::task::spawn_blocking(move || home.replay(&[&id, "--server", "demo"], 1))
        .await
        .unwrap();
    assert!(
        out.contains("differs  prompt demo greet  (manual-3, manual)\n    text:\n"),
        "{out}"
    );
    assert!(
        out.contains("      -user: Hello Ada!\n      +user: Hi Ada!\n"),
        "{out}"
    );
}
