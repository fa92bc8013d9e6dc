//! The `shell` tool: allowlist, literal arguments, empty environment, output budget,
//! and process-group kills on timeout and cancel.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use switchboard::config::ShellToolConfig;
use switchboard::gate::Preview;
use switchboard::tools::Tool;
use switchboard::tools::builtin::ShellTool;

use crate::support::builtin::{args, assert_refused, bench};

#[tokio::test]
async fn nothing_runs_by_default_and_the_refusal_says_how_to_allow() {
    let b = bench("").await;
    let r = b
        .call("shell", json!({"program": "echo", "args": ["hi"]}))
        .await;
    assert_refused(&r, "add `allow = [\"git\"]` under [tools.shell]");
}

#[tokio::test]
async fn programs_must_be_bare_allow_listed_names() {
    let b = bench("[tools.shell]\nallow = [\"echo\"]\n").await;
    let before = b.snapshot();
    for program in ["/bin/echo", "./echo", "bin/sh", ""] {
        let r = b.call("shell", json!({"program": program})).await;
        assert_refused(&r, "must be a bare program name");
    }
    let r = b
        .call("shell", json!({"program": "rm", "args": ["-rf", "."]}))
        .await;
    assert_refused(&r, "`rm` is not on [tools.shell] allow (allowed: echo)");
    let r = b
        .call("shell", json!({"program": "echo", "timeout_secs": 100_000}))
        .await;
    assert_refused(&r, "above [tools.shell] max_timeout_secs (300)");
    assert_eq!(b.snapshot(), before);
}

#[tokio::test]
async fn metacharacters_are_passed_literally() {
    let b = bench("[tools.shell]\nallow = [\"echo\"]\n").await;
    let before = b.snapshot();
    let r = b
        .call(
            "shell",
            json!({"program": "echo", "args": ["a;", "$(touch pwned)", "|", "cat", "`id`", "&&", "*"]}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text_content());
    assert_eq!(
        r.text_content(),
        "a; $(touch pwned) | cat `id` && *\n[exit code 0]"
    );
    assert_eq!(b.snapshot(), before, "nothing was created");
}

#[tokio::test]
async fn the_environment_is_empty_but_for_the_allowlist() {
    let b = bench("[tools.shell]\nallow = [\"env\"]\nenv = [\"CARGO_PKG_NAME\"]\n").await;
    let r = b.call("shell", json!({"program": "env"})).await;
    let out = r.text_content();
    assert!(!r.is_error, "{out}");
    let mut names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    names.sort_unstable();
    let mut expected = vec!["PATH"];
    if std::env::var_os("CARGO_PKG_NAME").is_some() {
        expected.push("CARGO_PKG_NAME");
        expected.sort_unstable();
    }
    assert_eq!(names, expected, "{out}");
    assert!(out.contains("PATH=/usr/local/bin:/usr/bin:/bin\n"));
    // Whatever the parent has (HOME, CARGO_MANIFEST_DIR, secrets…) stays out.
    for (name, _) in std::env::vars() {
        if name != "PATH" && name != "CARGO_PKG_NAME" {
            assert!(!out.contains(&format!("{name}=")), "{name} leaked");
        }
    }
}

#[tokio::test]
async fn exit_codes_and_the_workspace_as_working_directory() {
    let b = bench("[tools.shell]\nallow = [\"false\", \"pwd\"]\n").await;
    let r = b.call("shell", json!({"program": "false"})).await;
    assert_refused(&r, "[exit code 1]");
    assert_eq!(r.structured.as_ref().unwrap()["exit_code"], 1);
    let r = b.call("shell", json!({"program": "pwd"})).await;
    let ws = b.workspace.canonicalize().unwrap();
    assert_eq!(r.text_content(), format!("{}\n[exit code 0]", ws.display()));
}

#[tokio::test]
async fn output_beyond_the_budget_is_cut_with_a_marker() {
    let b = bench("[tools.shell]\nallow = [\"seq\"]\nmax_output_bytes = 1000\n").await;
    let r = b
        .call("shell", json!({"program": "seq", "args": ["1", "100000"]}))
        .await;
    let out = r.text_content();
    assert!(out.starts_with("1\n2\n3\n"), "{out}");
    assert!(
        out.contains("more bytes not shown ([tools.shell] max_output_bytes = 1000)]"),
        "{out}"
    );
    assert!(out.ends_with("[exit code 0]"));
    assert!(out.len() < 1200);
}

#[tokio::test]
async fn stdout_and_stderr_share_one_stream() {
    let b = bench("[tools.shell]\nallow = [\"sh\"]\n").await;
    let r = b
        .call(
            "shell",
            json!({"program": "sh", "args": ["-c", "echo out; echo err >&2; echo out2"]}),
        )
        .await;
    assert_eq!(r.text_content(), "out\nerr\nout2\n[exit code 0]");
}

/// True when the process is gone (or a zombie nobody reaped yet).
fn is_dead(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

async fn wait_until_dead(pid: &str) {
    // Hang guard only: the kill is immediate, reaping may take a moment.
    for _ in 0..200 {
        if is_dead(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("process {pid} is still alive");
}

async fn read_pid(path: &Path) -> String {
    for _ in 0..400 {
        if let Ok(pid) = std::fs::read_to_string(path) {
            let pid = pid.trim().to_owned();
            if !pid.is_empty() {
                return pid;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no pid file at {}", path.display());
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_group() {
    let b = bench("[tools.shell]\nallow = [\"sh\"]\n").await;
    let r = b
        .call(
            "shell",
            json!({"program": "sh", "args": ["-c", "sleep 100 & echo $! > bg.pid; wait"], "timeout_secs": 1}),
        )
        .await;
    assert_refused(&r, "[timed out after 1s: the process group was killed]");
    let pid = read_pid(&b.workspace.join("bg.pid")).await;
    wait_until_dead(&pid).await;
}

#[tokio::test]
async fn background_children_do_not_outlive_a_finished_call() {
    let b = bench("[tools.shell]\nallow = [\"sh\"]\n").await;
    let r = b
        .call(
            "shell",
            json!({"program": "sh", "args": ["-c", "sleep 100 & echo $! > bg.pid; echo done"]}),
        )
        .await;
    assert_eq!(r.text_content(), "done\n[exit code 0]");
    let pid = read_pid(&b.workspace.join("bg.pid")).await;
    wait_until_dead(&pid).await;
}

#[tokio::test]
async fn dropping_the_call_kills_the_process_group() {
    let b = bench("[tools.shell]\nallow = [\"sh\"]\n").await;
    let call = b.call(
        "shell",
        json!({"program": "sh", "args": ["-c", "sleep 100 & echo $! > bg.pid; echo $$ > sh.pid; wait"]}),
    );
    let pid_file = b.workspace.join("sh.pid");
    let (bg, sh) = tokio::select! {
        _ = call => panic!("the call finished on its own"),
        pids = async {
            let sh = read_pid(&pid_file).await;
            (read_pid(&b.workspace.join("bg.pid")).await, sh)
        } => pids,
    };
    // The call future is dropped here: the turn was cancelled.
    wait_until_dead(&sh).await;
    wait_until_dead(&bg).await;
}

#[test]
fn the_preview_is_the_command_line() {
    let tool = ShellTool::new(ShellToolConfig::default(), Path::new("/"));
    let a = args(json!({"program": "git", "args": ["commit", "-m", "it's done"]}));
    assert_eq!(
        tool.preview(&a),
        Some(Preview::Command("git commit -m 'it'\\''s done'".into()))
    );
}
