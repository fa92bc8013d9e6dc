//! One headless turn with every event as JSON, the way `switchboard run --json` prints
//! them, under a deadline.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde::de::DeserializeOwned;
use switchboard::agent::SessionHandle;
use switchboard::agent::headless::{HeadlessOutcome, run_headless};
use switchboard::gate::{ApprovalDecision, ApprovalRequest};

/// Runs `task` on `handle`, answering every approval with `answer`; the outcome and
/// each JSONL event (as JSON values or as `AgentEvent`s).
pub async fn json_turn<T: DeserializeOwned>(
    handle: SessionHandle,
    task: &str,
    answer: ApprovalDecision,
) -> (HeadlessOutcome, Vec<T>) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut approve = |_: &ApprovalRequest| answer.clone();
    let outcome = tokio::time::timeout(
        Duration::from_secs(30),
        run_headless(handle, task.into(), true, &mut out, &mut err, &mut approve),
    )
    .await
    .unwrap()
    .unwrap();
    let events = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (outcome, events)
}
