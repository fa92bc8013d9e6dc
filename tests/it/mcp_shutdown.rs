//! The stdio shutdown sequence: a server that ignores the end of its stdin and idles
//! is sent SIGTERM; one still working after it is given time to finish, in both
//! protocol generations (in 2026-07-28 the connection's `subscriptions/listen`
//! streams are cancelled first, or an rmcp server would not see its input end).
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::mcp::{assert_ready, hub_with, settled, stdio_config};

/// Starts the test server misbehaving as `mode`, shuts the hub down and returns what
/// the server wrote to its marker file.
async fn shut_down(mode: &str, protocol: &str, marker: &Path) -> String {
    let mut config = stdio_config(&["--misbehave", mode, "--protocol", protocol]);
    config.env.insert(
        "SWITCHBOARD_TEST_MARKER".into(),
        marker.display().to_string(),
    );
    let listening = marker.with_extension("listening");
    config.env.insert(
        "SWITCHBOARD_TEST_LISTENING".into(),
        listening.display().to_string(),
    );
    let hub = hub_with(&[("t", config)]);
    assert_ready(&settled(&hub).await, "t");
    if protocol == "2026-07-28" {
        // rmcp 3.11 servers: a stream's handler waits for its acknowledgement's send
        // result, which the serve loop drops when the input ends first; the server then
        // idles 5 s draining (and is rightly sent SIGTERM). Close once it listens.
        wait_for(&listening, mode).await;
    }
    hub.shutdown().await;
    // shutdown returns once the server is gone; it left the marker on the way out.
    wait_for(marker, mode).await;
    std::fs::read_to_string(marker).unwrap()
}

async fn wait_for(file: &Path, mode: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !file.exists() {
        assert!(Instant::now() < deadline, "{mode}: no {}", file.display());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_server_that_lingers_idle_after_stdin_closes_gets_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    for protocol in ["2025-11-25", "2026-07-28"] {
        let marker = dir.path().join(protocol);
        assert_eq!(shut_down("linger", protocol, &marker).await, "terminated");
    }
}

#[tokio::test]
async fn a_server_still_working_after_stdin_closes_is_not_cut_short() {
    let dir = tempfile::tempdir().unwrap();
    // It works on the CPU for 400 ms, longer than an idle server is given.
    for protocol in ["2025-11-25", "2026-07-28"] {
        let marker = dir.path().join(protocol);
        let said = shut_down("flush-on-exit", protocol, &marker).await;
        assert_eq!(said, "flushed", "{protocol}");
    }
}
