//! The Wire view fed as the running TUI feeds it: the executor pulls what the capture
//! recorded since the view's last message, and the real binary opens the view on F7.
#![allow(clippy::unwrap_used)]

use crate::support;

use std::sync::Arc;

use serde_json::json;
use switchboard::keymap::{Key, KeyCode};
use switchboard::mcp::wire::{Direction, Side, WireLog};
use switchboard::tui::Msg;

fn ping(log: &WireLog, id: u64) {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
    log.record("files", Side::Upstream, Direction::Sent, &message, None);
}

/// What the event loop does when the capture changes: the executor asks the log for
/// what came after the view's last message, and says whether the open view redraws.
#[tokio::test]
async fn the_executor_hands_over_only_what_is_new() {
    use switchboard::gate::ApprovalBroker;
    use switchboard::policy::{Mode, Policy};
    let broker = Arc::new(ApprovalBroker::new(true));
    let registry = Arc::new(switchboard::tools::Registry::new(
        Policy::new(Mode::Ask),
        broker,
    ));
    let (tx, _route) = tokio::sync::mpsc::unbounded_channel();
    let (inbox, _inbox_rx) = tokio::sync::mpsc::unbounded_channel();
    let sink = switchboard::agent::EventSink::new(tx, None);
    let mut exec =
        switchboard::tui::executor::Executor::new(support::tui::state(), registry, sink, inbox);
    let log = WireLog::new(100);
    (1..=9).for_each(|id| ping(&log, id));
    assert!(!exec.wire_arrived(&log), "the view is closed: no redraw");
    assert_eq!(exec.state().wire.rows.len(), 9);
    exec.handle(Msg::Key(Key::plain(KeyCode::F(7))));
    assert!(!exec.wire_arrived(&log), "nothing new");
    ping(&log, 10);
    assert!(exec.wire_arrived(&log), "the open view redraws");
    let seqs: Vec<u64> = exec.state().wire.rows.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (1..=10).collect::<Vec<_>>(),
        "each message once, in order"
    );
}

/// The real binary: F7 opens the view over the screen (nothing is captured without
/// servers), F7 closes it again, and the program quits as usual.
#[test]
fn the_real_tui_opens_the_wire_view_with_f7() {
    let mut s = support::pty::spawn("");
    s.wait_screen("Message");
    s.send(b"\x1b[18~");
    s.wait_screen("Nothing captured yet");
    s.send(b"\x1b[18~");
    s.send(b"\t");
    s.send(b"q");
    s.wait_for("EXIT=");
    assert!(s.child.wait().unwrap().success());
}
