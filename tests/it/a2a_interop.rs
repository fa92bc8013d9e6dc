//! Interop with a peer built on the official Python A2A SDK (`a2a-sdk`, pinned and
//! installed by .ci/run into target/interop/a2a-venv): tests/support/a2a_sdk_agent.
//! Ignored unless asked for (`cargo test -- --include-ignored`, as .ci/run does).
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::header::HeaderMap;
use switchboard::a2a::{A2aClient, ProtocolVersion, TaskState};
use tokio_util::sync::CancellationToken;

/// Keep in step with .ci/run.
const A2A_SDK_VERSION: &str = "1.3.0";

fn python() -> PathBuf {
    let python =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/interop/a2a-venv/bin/python");
    assert!(
        python.exists(),
        "{} missing: run .ci/run to install a2a-sdk {A2A_SDK_VERSION}",
        python.display()
    );
    python
}

/// The SDK agent; killed when dropped.
struct Peer {
    child: Child,
    url: String,
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(python: &PathBuf, streaming: bool) -> Peer {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/a2a_sdk_agent/agent.py");
    let mut command = Command::new(python);
    command
        .arg(script)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if !streaming {
        command.arg("--no-streaming");
    }
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("READY ") {
                let _ = tx.send(url.to_owned());
            }
        }
    });
    let url = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    Peer { child, url }
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn the_sdk_agent_completes_and_fails_tasks() {
    let python = python();
    for streaming in [true, false] {
        let peer = start(&python, streaming);
        let client = A2aClient::connect(&peer.url, HeaderMap::new())
            .await
            .unwrap()
            .with_poll_interval(Duration::from_millis(50));
        assert_eq!(
            client.version(),
            ProtocolVersion::V1_0,
            "the card's supportedInterfaces win"
        );
        assert_eq!(client.card().name, "SDK Hello Agent");
        assert_eq!(client.card().streaming, streaming);
        let cancel = CancellationToken::new();
        let done = tokio::time::timeout(Duration::from_secs(30), client.run("hi", None, &cancel))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(done.state, TaskState::Completed, "streaming {streaming}");
        assert_eq!(done.text, "Hello, World! (hi)");
        let failed = tokio::time::timeout(
            Duration::from_secs(30),
            client.run("fail now", None, &cancel),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(failed.state, TaskState::Failed);
        assert_eq!(failed.status_text, "could not do it");
    }
}
