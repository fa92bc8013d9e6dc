//! The Wire view (F7): messages recorded into a `WireLog` by hand reach the view as
//! the event loop hands them over (`entries_after(last_seq)`); the filter, the
//! details, the export and "copy as command" work on what is shown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use crate::support::tui::typed;
use serde_json::{Value, json};
use switchboard::keymap::{Key, KeyCode, Layer};
use switchboard::mcp::wire::{Direction, HttpFacts, Side, WireEntry, WireLog};
use switchboard::tui::state::{NoticeLevel, Overlay};
use switchboard::tui::{Cmd, FileCmd, Msg, State, UiCmd, update};

/// Nine messages: a handshake, a tool call answered by an error, a read over HTTP,
/// a log notification with an escape sequence in it, a serve client's call.
fn recorded() -> WireLog {
    use Direction::{Received, Sent};
    let log = WireLog::new(100);
    let up = |peer: &str, dir, message: Value, http| {
        log.record(peer, Side::Upstream, dir, &message, http);
    };
    up(
        "weather",
        Sent,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}),
        None,
    );
    up(
        "weather",
        Received,
        json!({"jsonrpc": "2.0", "id": 1,
        "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "weather"}}}),
        None,
    );
    up(
        "weather",
        Sent,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        None,
    );
    up(
        "weather",
        Sent,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "forecast", "arguments": {"city": "Lyon", "days": 3}}}),
        None,
    );
    let http = |status| HttpFacts {
        status: Some(status),
        headers: vec![
            ("authorization".into(), "Bearer s3cret-token".into()),
            ("mcp-session-id".into(), "4f2a".into()),
        ],
    };
    up(
        "files",
        Sent,
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read",
        "params": {"uri": "file:///notes/todo list.md"}}),
        Some(http(200)),
    );
    up(
        "files",
        Received,
        json!({"jsonrpc": "2.0", "id": 7, "result": {"contents": [
        {"uri": "file:///notes/todo list.md", "text": "x".repeat(3000)}]}}),
        Some(http(200)),
    );
    up(
        "weather",
        Received,
        json!({"jsonrpc": "2.0", "id": 2,
        "error": {"code": -32602, "message": "unknown city"}}),
        None,
    );
    up(
        "weather",
        Received,
        json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "cache warm\u{1b}[2J\u{1b}]52;c;aGk=\u{7}"}}),
        None,
    );
    log.record(
        "claude-desktop",
        Side::Downstream,
        Received,
        &json!({"jsonrpc": "2.0",
        "id": "c-1", "method": "tools/list"}),
        None,
    );
    log
}

/// Times and round trips vary from run to run: fixed ones for a stable picture.
fn steady(entries: Vec<Arc<WireEntry>>) -> Vec<Arc<WireEntry>> {
    (entries.into_iter().enumerate())
        .map(|(i, e)| {
            let mut e = (*e).clone();
            let i = u64::try_from(i).unwrap();
            e.at = UNIX_EPOCH + Duration::from_millis(1_764_622_950_000 + 137 * i);
            e.rtt = e.rtt.map(|_| Duration::from_micros(2_400 + 9_100 * i));
            Arc::new(e)
        })
        .collect()
}

fn key(s: &mut State, code: KeyCode) -> Vec<Cmd> {
    update(s, Msg::Key(Key::plain(code)))
}

/// A state holding the recorded messages, the view open.
fn opened() -> State {
    let mut s = support::tui::state();
    update(&mut s, Msg::Wire(steady(recorded().entries())));
    key(&mut s, KeyCode::F(7));
    s
}

fn shown_seqs(s: &State) -> Vec<u64> {
    s.wire.shown.iter().map(|e| e.seq).collect()
}

#[test]
fn f7_opens_the_view_of_every_message_and_esc_closes_it() {
    let mut s = opened();
    assert_eq!(s.layer(), Layer::Wire);
    assert_eq!(s.wire.rows.len(), 9);
    assert_eq!(s.wire.selected().unwrap().seq, 9, "the newest is selected");
    let shot = support::tui::shot(&s, 100, 30);
    assert!(!shot.contains('\u{1b}'), "the escape sequence is not drawn");
    assert!(!shot.contains("s3cret"));
    insta::assert_snapshot!("wire_view", shot);
    insta::assert_snapshot!("wire_view_small", support::tui::shot(&s, 60, 20));
    key(&mut s, KeyCode::Esc);
    assert!(s.overlays.is_empty());
    update(&mut s, Msg::Paste("/wire".into()));
    key(&mut s, KeyCode::Enter);
    assert_eq!(
        s.overlays.top().cloned(),
        Some(Overlay::Wire),
        "/wire opens it"
    );
    key(&mut s, KeyCode::F(7));
    assert!(s.overlays.is_empty(), "F7 closes it again");
    update(&mut s, Msg::Key(Key::ctrl('p')));
    typed(&mut s, "wire view");
    key(&mut s, KeyCode::Enter);
    assert_eq!(
        s.overlays.top().cloned(),
        Some(Overlay::Wire),
        "the palette's Wire view opens it"
    );
}

#[test]
fn an_empty_capture_and_a_filter_nothing_matches_say_so() {
    let mut s = support::tui::state();
    key(&mut s, KeyCode::F(7));
    insta::assert_snapshot!("wire_empty", support::tui::shot(&s, 100, 30));
    insta::assert_snapshot!("wire_empty_small", support::tui::shot(&s, 60, 20));
    let mut s = opened();
    update(&mut s, Msg::Key(Key::char('/')));
    typed(&mut s, "server:nowhere");
    key(&mut s, KeyCode::Enter);
    assert!(s.wire.shown.is_empty());
    insta::assert_snapshot!("wire_no_match", support::tui::shot(&s, 100, 30));
    insta::assert_snapshot!("wire_no_match_small", support::tui::shot(&s, 60, 20));
}

#[test]
fn filter_terms_narrow_the_rows_and_esc_clears_them() {
    let mut s = opened();
    update(&mut s, Msg::Key(Key::char('/')));
    assert_eq!(s.layer(), Layer::Filter);
    typed(&mut s, "server:weather");
    assert_eq!(shown_seqs(&s), [1, 2, 3, 4, 7, 8]);
    typed(&mut s, " method:tools/");
    assert_eq!(
        shown_seqs(&s),
        [4, 7],
        "a response has its request's method"
    );
    insta::assert_snapshot!("wire_filter_typed", support::tui::shot(&s, 100, 30));
    insta::assert_snapshot!("wire_filter_typed_small", support::tui::shot(&s, 60, 20));
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.layer(), Layer::Wire, "Enter keeps the filter");
    insta::assert_snapshot!("wire_filtered", support::tui::shot(&s, 100, 30));
    insta::assert_snapshot!("wire_filtered_small", support::tui::shot(&s, 60, 20));
    update(&mut s, Msg::Key(Key::char('/')));
    for _ in 0.." method:tools/".len() {
        key(&mut s, KeyCode::Backspace);
    }
    typed(&mut s, " error");
    assert_eq!(shown_seqs(&s), [7]);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.wire.query, "");
    assert_eq!(shown_seqs(&s).len(), 9, "Esc clears the filter");
    update(&mut s, Msg::Key(Key::char('/')));
    typed(&mut s, "LYON");
    assert_eq!(shown_seqs(&s), [4], "words search the message, any case");
    // A message that arrives later is filtered as it comes.
    let log = recorded();
    let again = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "forecast", "arguments": {"city": "lyon"}}});
    log.record("weather", Side::Upstream, Direction::Sent, &again, None);
    let after = s.wire.last_seq;
    update(&mut s, Msg::Wire(log.entries_after(after)));
    assert_eq!(shown_seqs(&s), [4, 10]);
    assert_eq!(s.wire.rows.len(), 10);
}

#[test]
fn enter_shows_the_message_in_full_and_esc_goes_back() {
    let mut s = opened();
    for _ in 0..3 {
        key(&mut s, KeyCode::Up);
    }
    assert_eq!(s.wire.selected().unwrap().seq, 6);
    key(&mut s, KeyCode::Enter);
    let detail = s.wire.detail.as_ref().unwrap();
    assert_eq!(detail.entry.seq, 6);
    assert!(
        detail
            .facts
            .contains(&("authorization".into(), "Bearer ***".into()))
    );
    assert_eq!(detail.json[0], "{");
    insta::assert_snapshot!("wire_detail", support::tui::shot(&s, 100, 30));
    insta::assert_snapshot!("wire_detail_small", support::tui::shot(&s, 60, 20));
    key(&mut s, KeyCode::Down);
    assert_eq!(s.wire.detail.as_ref().unwrap().scroll, 1);
    key(&mut s, KeyCode::Esc);
    assert!(s.wire.detail.is_none());
    assert_eq!(s.layer(), Layer::Wire, "Esc goes back to the list");
    assert_eq!(s.wire.selected().unwrap().seq, 6);
    // The log notification's escape sequence never reaches the screen.
    key(&mut s, KeyCode::Down);
    key(&mut s, KeyCode::Down);
    key(&mut s, KeyCode::Enter);
    let text = s.wire.detail.as_ref().unwrap().json.join("\n");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text}"
    );
}

#[test]
fn x_exports_only_the_shown_messages_as_json_lines() {
    let mut s = opened();
    update(&mut s, Msg::Key(Key::char('/')));
    typed(&mut s, "server:files");
    key(&mut s, KeyCode::Enter);
    let cmds = update(&mut s, Msg::Key(Key::char('x')));
    let [Cmd::Files(FileCmd::ExportWire(entries))] = cmds.as_slice() else {
        panic!("{cmds:?}");
    };
    assert_eq!(entries.iter().map(|e| e.seq).collect::<Vec<_>>(), [5, 6]);
    // What the executor does with them.
    let dir = tempfile::tempdir().unwrap();
    let path = switchboard::mcp::wire::view::export(dir.path(), entries, UNIX_EPOCH).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| l["peer"] == "files"));
    assert_eq!(lines[0]["http"]["headers"]["authorization"], "Bearer ***");
    assert!(!text.contains("s3cret"));
    update(
        &mut s,
        Msg::WireExported(Ok((2, "/state/wire/w.jsonl".into()))),
    );
    let notice = s.status.notice.clone().unwrap();
    assert_eq!(notice.text, "exported 2 messages to /state/wire/w.jsonl");
    // Nothing shown, nothing to export.
    update(&mut s, Msg::Key(Key::char('/')));
    typed(&mut s, " nowhere");
    key(&mut s, KeyCode::Enter);
    assert!(update(&mut s, Msg::Key(Key::char('x'))).is_empty());
    assert_eq!(s.status.notice.unwrap().level, NoticeLevel::Warn);
}

#[test]
fn c_copies_the_command_that_repeats_a_request_or_its_response() {
    let mut s = opened();
    let call = "switchboard call weather forecast -a city=Lyon -a days=3";
    let select = |s: &mut State, seq: u64| {
        key(s, KeyCode::End);
        while s.wire.selected().unwrap().seq != seq {
            key(s, KeyCode::Up);
        }
    };
    select(&mut s, 4);
    let copy = |s: &mut State| update(s, Msg::Key(Key::char('c')));
    assert_eq!(copy(&mut s), [Cmd::Ui(UiCmd::CopyText(call.into()))]);
    assert_eq!(
        s.status.notice.clone().unwrap().text,
        format!("copied: {call}")
    );
    select(&mut s, 7);
    assert_eq!(
        copy(&mut s),
        [Cmd::Ui(UiCmd::CopyText(call.into()))],
        "the error's request"
    );
    select(&mut s, 6);
    key(&mut s, KeyCode::Enter);
    assert_eq!(
        copy(&mut s),
        [Cmd::Ui(UiCmd::CopyText(
            "switchboard read files 'file:///notes/todo list.md'".into()
        ))],
        "from the details too"
    );
    key(&mut s, KeyCode::Esc);
    select(&mut s, 3);
    assert!(copy(&mut s).is_empty());
    let notice = s.status.notice.clone().unwrap();
    assert_eq!(notice.text, "no command repeats notifications/initialized");
    select(&mut s, 9);
    assert!(copy(&mut s).is_empty());
    assert_eq!(
        s.status.notice.unwrap().text,
        "no command repeats tools/list: claude-desktop sent it to switchboard"
    );
    // A secret was masked when it was captured: the notice says the command holds ***.
    let log = WireLog::new(10);
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "fetch", "arguments": {"url": "https://h/x", "api_key": "sk-1"}}});
    log.record("web", Side::Upstream, Direction::Sent, &call, None);
    let mut s = support::tui::state();
    update(&mut s, Msg::Wire(log.entries()));
    key(&mut s, KeyCode::F(7));
    let line = "switchboard call web fetch -a url=https://h/x -a 'api_key=***'";
    assert_eq!(copy(&mut s), [Cmd::Ui(UiCmd::CopyText(line.into()))]);
    let notice = s.status.notice.unwrap().text;
    assert!(
        notice.ends_with("(masked values are ***: fill them in)"),
        "{notice}"
    );
}

#[test]
fn the_view_follows_new_messages_unless_moved_up() {
    let log = WireLog::new(100);
    let note =
        |n: u64| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"n": n}});
    let mut s = support::tui::state();
    key(&mut s, KeyCode::F(7));
    let pull = |s: &mut State, from: u64, to: u64| {
        for n in from..to {
            log.record("build", Side::Upstream, Direction::Received, &note(n), None);
        }
        let after = s.wire.last_seq;
        update(s, Msg::Wire(log.entries_after(after)));
    };
    pull(&mut s, 0, 40);
    assert_eq!(s.wire.selected().unwrap().seq, 40, "follows the tail");
    key(&mut s, KeyCode::PageUp);
    let held = s.wire.selected().unwrap().seq;
    assert_eq!(held, 15, "a page is 25 rows at 100×30");
    pull(&mut s, 40, 45);
    assert_eq!(s.wire.selected().unwrap().seq, held, "moved up: stays put");
    assert_eq!(s.wire.last_seq, 45);
    assert_eq!(s.wire.rows.len(), 45, "each message once");
    key(&mut s, KeyCode::End);
    pull(&mut s, 45, 46);
    assert_eq!(s.wire.selected().unwrap().seq, 46, "End follows again");
    // The whole state: nothing else changed on the way.
    let mut expected = support::tui::state();
    expected.overlays.replace_top(Overlay::Wire);
    expected.wire.rows = log.entries().into();
    expected.wire.shown = log.entries().into();
    expected.wire.last_seq = 46;
    assert_eq!(s, expected);
}
