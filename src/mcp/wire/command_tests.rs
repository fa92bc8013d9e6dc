use serde_json::{Value, json};

use super::*;
use crate::mcp::wire::{HttpFacts, WireLog};

fn sent(method: &str, params: &Value) -> Arc<WireEntry> {
    let log = WireLog::new(10);
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    log.record("files", Side::Upstream, Direction::Sent, &message, None);
    Arc::clone(&log.entries()[0])
}

fn line(method: &str, params: &Value) -> Result<String, RepeatError> {
    repeat(&sent(method, params))
}

#[test]
fn a_tool_call_becomes_call_with_dash_a_pairs() {
    let params = json!({"name": "read_file", "arguments": {"path": "notes/todo.md", "limit": 5}});
    assert_eq!(
        line("tools/call", &params).unwrap(),
        "switchboard call files read_file -a path=notes/todo.md -a limit=5"
    );
    let bare = json!({"name": "list"});
    assert_eq!(
        line("tools/call", &bare).unwrap(),
        "switchboard call files list"
    );
}

#[test]
fn awkward_values_are_quoted_and_keep_their_type() {
    let params = json!({"name": "echo", "arguments": {
        "message": "it's a \"test\" $HOME; rm -rf /",
        "count": "5",
        "empty": "",
        "tags": ["a b", "c"],
        "opts": {"x": null},
        "flag": true,
    }});
    let text = line("tools/call", &params).unwrap();
    assert_eq!(
        text,
        r#"switchboard call files echo -a "message=it's a \"test\" "'$HOME; rm -rf /' -a 'count="5"' -a empty= -a 'tags=["a b","c"]' -a 'opts={"x":null}' -a flag=true"#
    );
    // The shell's words, read back as `call` reads `-a` (cli `key_values`), are the
    // same arguments.
    let words = shlex::split(&text).unwrap();
    let pairs: Vec<String> = words.iter().skip(5).step_by(2).cloned().collect();
    let back: serde_json::Map<String, Value> = pairs
        .iter()
        .map(|p| p.split_once('=').unwrap())
        .map(|(k, v)| (k.to_owned(), crate::tools::parse_value(v)))
        .collect();
    assert_eq!(Value::Object(back), params["arguments"]);
}

#[test]
fn names_that_dash_a_cannot_carry_use_args_json() {
    let params = json!({"name": "odd tool", "arguments": {"a=b": 1, "-x": "y"}});
    assert_eq!(
        line("tools/call", &params).unwrap(),
        r#"switchboard call files 'odd tool' --args '{"a=b":1,"-x":"y"}'"#
    );
    let bad = json!({"name": "t", "arguments": [1]});
    assert_eq!(
        line("tools/call", &bad).unwrap_err().to_string(),
        "its arguments are not a JSON object"
    );
    let nul = json!({"name": "t", "arguments": {"k": "a\u{0}b"}});
    assert!(
        line("tools/call", &nul)
            .unwrap_err()
            .to_string()
            .contains("NUL")
    );
}

#[test]
fn reads_and_prompts_have_their_commands() {
    let read = json!({"uri": "file:///home/me/my notes.md"});
    assert_eq!(
        line("resources/read", &read).unwrap(),
        "switchboard read files 'file:///home/me/my notes.md'"
    );
    let prompt = json!({"name": "args-prompt", "arguments": {"city": "Lyon", "state": "Rhône"}});
    assert_eq!(
        line("prompts/get", &prompt).unwrap(),
        "switchboard prompt files args-prompt -a city=Lyon -a state=Rhône"
    );
    let odd = json!({"name": "p", "arguments": {"a=b": "c"}});
    assert!(
        line("prompts/get", &odd)
            .unwrap_err()
            .to_string()
            .contains("no -a KEY=VALUE")
    );
}

#[test]
fn other_messages_say_no_command_repeats_them() {
    assert_eq!(
        line("tools/list", &json!({})).unwrap_err().to_string(),
        "no command repeats tools/list"
    );
    let log = WireLog::new(10);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    log.record("files", Side::Upstream, Direction::Sent, &note, None);
    let asked = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "t"}});
    log.record(
        "claude",
        Side::Downstream,
        Direction::Received,
        &asked,
        None,
    );
    let entries = log.entries();
    assert_eq!(
        repeat(&entries[0]).unwrap_err().to_string(),
        "no command repeats notifications/initialized"
    );
    assert_eq!(
        repeat(&entries[1]).unwrap_err().to_string(),
        "no command repeats tools/call: claude sent it to switchboard"
    );
}

#[test]
fn a_response_finds_its_request() {
    let log = WireLog::new(10);
    let ask = |id: u64, name: &str| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name}});
    let answer = |id: u64| json!({"jsonrpc": "2.0", "id": id, "result": {}});
    log.record(
        "files",
        Side::Upstream,
        Direction::Sent,
        &ask(1, "first"),
        None,
    );
    log.record(
        "other",
        Side::Upstream,
        Direction::Sent,
        &ask(2, "elsewhere"),
        None,
    );
    log.record(
        "files",
        Side::Upstream,
        Direction::Sent,
        &ask(2, "second"),
        None,
    );
    let http = HttpFacts {
        status: Some(200),
        headers: Vec::new(),
    };
    log.record(
        "files",
        Side::Upstream,
        Direction::Received,
        &answer(2),
        Some(http),
    );
    log.record(
        "files",
        Side::Upstream,
        Direction::Received,
        &answer(7),
        None,
    );
    let entries = log.entries();
    let found = request_of(&entries[3], entries.iter()).unwrap();
    assert_eq!(repeat(found).unwrap(), "switchboard call files second");
    assert!(request_of(&entries[4], entries.iter()).is_none());
}
