//! `switchboard a2a` against the loopback test agent: the card, a completed task
//! (stdout) with its progress (stderr), a failed task's exit status, JSON output.
#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use serde_json::Value;

use crate::support::a2a_server::{Options, Server};

/// Runs the binary with `args` off the runtime's threads: (status, stdout, stderr).
async fn switchboard(args: Vec<String>) -> (i32, String, String) {
    tokio::task::spawn_blocking(move || {
        let out = Command::cargo_bin("switchboard")
            .unwrap()
            .args(&args)
            .env("AGENT_TOKEN", "tok")
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (
            out.status.code().unwrap_or(-1),
            text(&out.stdout),
            text(&out.stderr),
        )
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_task_and_failure_from_the_command_line() {
    let server = Server::start(Options {
        streaming: true,
        token: Some("tok".into()),
        ..Options::default()
    })
    .await;
    let auth = ["--bearer-token-env-var", "AGENT_TOKEN"].map(str::to_owned);
    let with = |extra: &[&str]| {
        let mut args = vec!["a2a".to_owned(), server.url.clone()];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args.extend(auth.clone());
        args
    };
    let (code, out, _) = switchboard(with(&[])).await;
    assert_eq!(code, 0);
    assert!(
        out.starts_with("Echo agent 1.0.0 — A2A 1.0 at http://127.0.0.1:"),
        "{out}"
    );
    assert!(out.contains("  echo             Repeats the task"), "{out}");

    let (code, out, err) = switchboard(with(&["hello there"])).await;
    assert_eq!((code, out.as_str()), (0, "echo: hello there\n"));
    assert!(
        err.contains("task task-1: submitted\nworking\ncompleted"),
        "{err}"
    );

    let (code, out, err) = switchboard(with(&["fail now", "--json"])).await;
    assert_eq!(code, 4, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["state"], "failed");
    assert_eq!(v["status"], "could not do it");
    assert!(err.contains("the task ended failed"));

    let (code, _, err) = switchboard(vec!["a2a".into(), server.url.clone()]).await;
    assert_eq!(code, 3, "no token: HTTP 401 is a credentials problem");
    assert!(err.contains("HTTP 401"), "{err}");
    assert!(err.contains("--bearer-token-env-var VAR"), "{err}");
}

/// A public card and a task refused for want of credentials: exit 3 (as an MCP server
/// that needs a login), naming the flags and the scheme the card advertises.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_refused_for_credentials_exits_3_and_says_how() {
    let server = Server::start(Options {
        token: Some("tok".into()),
        card_public: true,
        ..Options::default()
    })
    .await;
    let (code, out, _) = switchboard(vec!["a2a".into(), server.url.clone()]).await;
    assert_eq!(code, 0);
    assert!(
        out.contains("\ncredentials: bearer (http bearer)\n"),
        "{out}"
    );
    let (code, out, err) =
        switchboard(vec!["a2a".into(), server.url.clone(), "hello".into()]).await;
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(err.contains("HTTP 401"), "{err}");
    assert!(
        err.contains(
            "the agent wants credentials (its card asks for: bearer (http bearer)): pass --bearer-token-env-var VAR or --api-key-env-var VAR"
        ),
        "{err}"
    );
}
