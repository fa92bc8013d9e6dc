//! The Wire view fed as the running TUI feeds it: the inbox forwards what the capture
//! recorded since its last message, and the real binary opens the view on F7.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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

/// The inbox's next message.
async fn next(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>) -> Msg {
    tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv())
        .await
        .expect("the capture was forwarded")
        .unwrap()
}

/// What the event loop gets when the capture changes: the inbox's forwarder sends
/// only what came after its last message, and the executor says whether the open
/// view redraws.
#[tokio::test]
async fn the_inbox_hands_over_only_what_is_new() {
    use switchboard::gate::ApprovalBroker;
    use switchboard::policy::{Mode, Policy};
    use switchboard::tui::inbox::Inbox;
    let broker = Arc::new(ApprovalBroker::new(true));
    let registry = Arc::new(switchboard::tools::Registry::new(
        Policy::new(Mode::Ask),
        broker,
    ));
    let (tx, _route) = tokio::sync::mpsc::unbounded_channel();
    let (mut inbox, mut inbox_rx) = Inbox::new();
    let sink = switchboard::agent::EventSink::new(tx, None);
    let mut exec = switchboard::tui::executor::Executor::new(
        support::tui::state(),
        registry,
        sink,
        inbox.sender(),
    );
    let log = Arc::new(WireLog::new(100));
    (1..=9).for_each(|id| ping(&log, id));
    inbox.forward_wire(Arc::clone(&log));
    let first = next(&mut inbox_rx).await;
    assert!(!exec.handle(first), "the view is closed: no redraw");
    assert_eq!(exec.state().wire.rows.len(), 9);
    exec.handle(Msg::Key(Key::plain(KeyCode::F(7))));
    ping(&log, 10);
    let second = next(&mut inbox_rx).await;
    let Msg::Wire(entries) = &second else {
        panic!("{second:?}");
    };
    assert_eq!(entries.len(), 1, "nothing but the new message");
    assert!(exec.handle(second), "the open view redraws");
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
