use serde_json::{Value, json};

use super::*;
use crate::mcp::wire::{Direction, HttpFacts, Side, WireLog};

fn log() -> WireLog {
    let log = WireLog::new(100);
    let up = |peer: &str, dir, message: Value, http| {
        log.record(peer, Side::Upstream, dir, &message, http);
    };
    up(
        "weather",
        Direction::Sent,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        None,
    );
    up(
        "weather",
        Direction::Received,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "Forecast"}]}}),
        None,
    );
    up(
        "files",
        Direction::Sent,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read"}}),
        None,
    );
    up(
        "files",
        Direction::Received,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Ünknown"}}),
        None,
    );
    let http = HttpFacts {
        status: Some(503),
        headers: Vec::new(),
    };
    up(
        "Weather",
        Direction::Sent,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(http),
    );
    log
}

fn seqs(filter: &str) -> Vec<u64> {
    let f = WireFilter::parse(filter);
    log()
        .entries()
        .iter()
        .filter(|e| f.matches(e))
        .map(|e| e.seq)
        .collect()
}

#[test]
fn filter_terms_narrow_by_peer_method_error_and_text() {
    assert_eq!(seqs(""), [1, 2, 3, 4, 5]);
    assert!(WireFilter::parse("  ").is_empty());
    assert_eq!(seqs("server:weather"), [1, 2, 5], "peer names ignore case");
    assert_eq!(seqs("server:weather server:files"), [1, 2, 3, 4, 5]);
    assert_eq!(
        seqs("method:tools/"),
        [1, 2, 3, 4],
        "a response has its request's method"
    );
    assert_eq!(seqs("method:TOOLS/C"), [3, 4]);
    assert_eq!(seqs("error"), [4, 5], "JSON-RPC errors and HTTP 5xx");
    assert_eq!(
        seqs("forecast"),
        [2],
        "words search keys and values, any case"
    );
    assert_eq!(
        seqs("ünknown -32602"),
        [4],
        "every word must occur; numbers too"
    );
    assert_eq!(seqs("server:files error"), [4]);
    assert_eq!(seqs("server:"), [1, 2, 3, 4, 5], "an empty term is no term");
}

#[test]
fn short_forms() {
    assert_eq!(size(312), "312 B");
    assert_eq!(size(4096), "4.0 KiB");
    assert_eq!(size(3 * 1_048_576 / 2), "1.5 MiB");
    assert_eq!(round_trip(Duration::from_micros(400)), "0.4 ms");
    assert_eq!(round_trip(Duration::from_millis(12)), "12 ms");
    assert_eq!(round_trip(Duration::from_millis(1250)), "1.25 s");
    let at = UNIX_EPOCH + Duration::from_millis(1_764_622_950_123);
    assert_eq!(clock(at), "21:02:30.123");
}

#[test]
fn export_writes_one_valid_line_per_entry_to_a_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let entries: Vec<_> = log()
        .entries()
        .into_iter()
        .filter(|e| e.is_error())
        .collect();
    let now = UNIX_EPOCH + Duration::from_secs(1_764_622_950);
    let first = export(&dir.path().join("wire"), &entries, now).unwrap();
    assert_eq!(first.file_name().unwrap(), "wire-20251201-210230.jsonl");
    let second = export(&dir.path().join("wire"), &entries, now).unwrap();
    assert_eq!(second.file_name().unwrap(), "wire-20251201-210230-2.jsonl");
    let text = std::fs::read_to_string(first).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["kind"], "error");
    assert_eq!(lines[1]["http"]["status"], 503);
}
