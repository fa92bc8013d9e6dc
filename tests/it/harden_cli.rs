//! Hardening (issue 10) seen from the command line: the real binary against the test
//! MCP server and its `--misbehave` modes.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::support::mcp::SERVER_BIN;
use crate::support::trust_folder;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    /// `t` (well behaved) plus `extra` TOML.
    fn new(extra: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = format!("[servers.t]\ncommand = {SERVER_BIN:?}\n{extra}");
        std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
        trust_folder(dir.path(), &dir.path().join(".local/state"));
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self) -> Command {
        let mut cmd = Command::cargo_bin("switchboard").unwrap();
        cmd.current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("SWITCHBOARD_LOG")
            .timeout(std::time::Duration::from_secs(120));
        cmd
    }

    /// Runs and returns (stdout, stderr), checking the exit status.
    fn run(&self, args: &[&str], code: i32) -> (String, String) {
        let out = self.command().args(args).assert().code(code);
        let out = out.get_output();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

fn misbehaving(name: &str, mode: &str) -> String {
    format!("[servers.{name}]\ncommand = {SERVER_BIN:?}\nargs = [\"--misbehave\", {mode:?}]\n")
}

// Item 1: names providers reject are declared under safe names and stay callable.
#[test]
fn long_and_odd_tool_names_are_declared_provider_safe() {
    let env = Env::new(&misbehaving("odd", "long-name"));
    let (out, _) = env.run(&["catalog", "--server", "odd", "--format", "openai"], 0);
    let decls: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = decls
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 14, "{names:?}");
    for name in &names {
        assert!(
            name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{name}"
        );
    }
    assert!(names.contains(&"odd__echo"), "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("odd__get_weather_now_v2_"))
    );
    let (human, _) = env.run(&["catalog", "--server", "odd"], 0);
    assert!(
        human.contains("declared to models as odd__get_weather_now_v2_"),
        "{human}"
    );
    // The tool is still called by its own name.
    let (out, _) = env.run(&["call", "odd", "get.weather/now v2"], 0);
    assert_eq!(out, "called get.weather/now v2\n");
}

// Item 2: a chatty server's stderr is capped in the log, with a visible marker.
#[test]
fn stderr_flood_is_capped_in_the_log() {
    let env = Env::new(&misbehaving("noisy", "stderr-flood"));
    let log = env.path("flood.log");
    let log_arg = log.to_str().unwrap();
    env.run(
        &[
            "--log-file",
            log_arg,
            "call",
            "noisy",
            "echo",
            "-a",
            "text=x",
        ],
        0,
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("dropping lines"),
        "{}",
        &text[..text.len().min(2000)]
    );
    // 20,000 lines were written; the per-second rate and the session total cut them.
    let logged = text.matches("flood line").count();
    assert!(logged <= 5_000, "{logged} flood lines logged");
}

// Item 3: structured content that breaks the output schema is flagged.
#[test]
fn structured_content_is_checked_against_the_output_schema() {
    let env = Env::new(&misbehaving("bad", "bad-structured"));
    let (out, err) = env.run(&["call", "bad", "add", "-a", "a=1", "-a", "b=2"], 0);
    assert!(out.contains("\"sum\": \"3\""), "{out}");
    assert!(
        err.contains("does not match the tool's outputSchema")
            && err.contains("structuredContent.sum: must be number"),
        "{err}"
    );
    let (out, _) = env.run(
        &["call", "bad", "add", "-a", "a=1", "-a", "b=2", "--json"],
        0,
    );
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        json["structured_mismatch"][0],
        "structuredContent.sum: must be number"
    );
    let (_, err) = env.run(&["call", "t", "add", "-a", "a=1", "-a", "b=2"], 0);
    assert!(!err.contains("outputSchema"), "{err}");
    // The model is told too.
    let (out, _) = env.run(
        &[
            "run",
            "--json",
            "--no-save",
            "--non-interactive",
            "/call bad__add a=1 b=2",
        ],
        0,
    );
    let result = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "tool_result")
        .unwrap();
    let content = result["content"].as_str().unwrap();
    assert!(
        content.contains("does not match the tool's output schema"),
        "{content}"
    );
}

/// A server that leaves `started` in the directory when it starts.
/// A server that leaves `marker` when it starts (unsandboxed: a folder's servers are
/// sandboxed by default, and the mark is outside what they may write).
fn marked(name: &str, marker: &Path) -> String {
    format!(
        "[servers.{name}]\ncommand = {SERVER_BIN:?}\nsandbox = false\nenv = {{ SWITCHBOARD_TEST_STARTED = {:?} }}\n",
        marker.to_str().unwrap()
    )
}

// Item 5: a command that names a server starts only that server.
#[test]
fn call_read_and_catalog_start_only_the_named_server() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("other-started");
    let mut extra = marked("other", &marker);
    for i in 0..4 {
        extra.push_str(&misbehaving(&format!("hung{i}"), "silent-hang"));
    }
    let env = Env::new(&extra);
    let (out, _) = env.run(&["call", "t", "echo", "-a", "text=hi"], 0);
    assert_eq!(out, "hi\n");
    env.run(&["read", "t", "test://text/1"], 0);
    env.run(&["catalog", "--server", "t"], 0);
    env.run(
        &[
            "call",
            "builtin",
            "memory",
            "-a",
            "command=view",
            "-a",
            "path=/memories",
        ],
        0,
    );
    assert!(!marker.exists(), "a server that was not named was started");
    // The marker works: naming the server starts it.
    env.run(&["call", "other", "echo", "-a", "text=x"], 0);
    assert!(marker.exists());
}

// Item 5: `catalog` prints each server as it is ready, not after the slowest.
#[test]
fn catalog_prints_ready_servers_before_a_hung_one_gives_up() {
    let env = Env::new(&format!(
        "{}startup_timeout = 600\n",
        misbehaving("hung", "silent-hang")
    ));
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("switchboard"))
        .arg("catalog")
        .current_dir(env.dir.path())
        .env("HOME", env.dir.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let _ = BufReader::new(stdout).read_line(&mut first);
        let _ = tx.send(first);
    });
    // Generous: only guards against waiting for the hung server's 600 s.
    let first = rx.recv_timeout(std::time::Duration::from_secs(90));
    let still_running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    let first = first.expect("no catalog printed while a server was still connecting");
    assert!(first.starts_with("t (ready, stdio): 12 tools"), "{first}");
    assert!(still_running);
}

// Item 7: `servers` fails when a server failed; `call` checks arguments first.
#[test]
fn servers_exits_3_on_a_failed_server_and_call_checks_arguments() {
    let env = Env::new(&misbehaving("dead", "exit-on-init"));
    let (out, _) = env.run(&["servers"], 3);
    assert!(
        out.contains("dead") && out.contains("mcp_handshake_failed"),
        "{out}"
    );
    Env::new("").run(&["servers"], 0);
    let (_, err) = env.run(&["call", "t", "add", "-a", "a=1"], 1);
    assert!(err.contains("invalid argument b: required"), "{err}");
    let (_, err) = env.run(&["call", "t", "add", "-a", "a=x", "-a", "b=1"], 1);
    assert!(err.contains("invalid argument a: must be number"), "{err}");
}

// Item 8: refused before start is `mcp_handshake_failed`, one exit code, and
// `config check` reports it at file:line:col.
#[test]
fn refused_servers_are_handshake_failures_and_config_check_reports_them() {
    let env = Env::new(
        "[servers.shell]\ncommand = \"echo hi | cat\"\n\n[servers.web]\nurl = \"https://example.com/mcp\"\nbearer_token_env_var = \"SB_SURELY_UNSET_TOKEN\"\n",
    );
    let (_, err) = env.run(&["call", "shell", "x"], 3);
    assert!(
        err.contains("mcp_handshake_failed: refused before start"),
        "{err}"
    );
    let (_, err) = env.run(&["catalog", "--server", "shell"], 3);
    assert!(
        err.contains("mcp_handshake_failed: refused before start"),
        "{err}"
    );
    let (_, err) = env.run(&["call", "web", "x"], 3);
    assert!(
        err.contains("SB_SURELY_UNSET_TOKEN") && err.contains("mcp_handshake_failed"),
        "{err}"
    );
    let (_, err) = env.run(&["config", "check"], 1);
    assert!(
        err.contains("switchboard.toml:4:11: `servers.shell.command`"),
        "{err}"
    );
    assert!(
        err.contains("switchboard.toml:8:24: `servers.web.bearer_token_env_var`"),
        "{err}"
    );
}

/// Answers one HTTP request (any) with `response` on 127.0.0.1; returns the URL.
fn one_answer_server(response: &'static str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 8192];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(response.as_bytes());
        }
    });
    url
}

// Item 9: HTTP failures show the status, the server's text and a hint.
#[test]
fn http_connection_errors_show_status_text_and_hint() {
    let url = one_answer_server(
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain\r\ncontent-length: 20\r\nconnection: close\r\n\r\nmissing token (demo)",
    );
    let env = Env::new(&format!("[servers.web]\nurl = {url:?}\n"));
    let (_, err) = env.run(&["call", "web", "echo"], 3);
    assert!(
        err.contains("401") && err.contains("missing token (demo)"),
        "{err}"
    );
    assert!(err.contains("needs authorization"), "{err}");
    assert!(!err.contains("rmcp::"), "{err}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", closed.local_addr().unwrap());
    drop(closed);
    let env = Env::new(&format!("[servers.gone]\nurl = {url:?}\n"));
    let (_, err) = env.run(&["call", "gone", "echo"], 3);
    assert!(
        err.contains("cannot connect to") && err.contains(&url),
        "{err}"
    );
}

// Item 10: headless commands log to --log-file.
#[test]
fn headless_commands_write_the_log_file() {
    let env = Env::new("");
    let log = env.path("call.log");
    env.run(
        &[
            "--log-file",
            log.to_str().unwrap(),
            "call",
            "t",
            "echo",
            "-a",
            "text=x",
        ],
        0,
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("test server starting"), "{text}");
}

// Items 17 and 19: tabs reach stdout as tabs; structured content printed once.
#[test]
fn call_prints_tabs_and_structured_content_once() {
    let env = Env::new("");
    env.run(
        &[
            "call",
            "builtin",
            "memory",
            "-a",
            "command=create",
            "-a",
            "path=/memories/n.md",
            "-a",
            "file_text=one\ntwo",
            "--approve",
            "full-auto",
        ],
        0,
    );
    let (out, _) = env.run(
        &[
            "call",
            "builtin",
            "memory",
            "-a",
            "command=view",
            "-a",
            "path=/memories/n.md",
        ],
        0,
    );
    assert!(out.contains("     1\tone\n     2\ttwo\n"), "{out:?}");
    let (out, _) = env.run(&["call", "t", "add", "-a", "a=2", "-a", "b=5"], 0);
    assert_eq!(out, "{\n  \"sum\": 7.0\n}\n");
}

// Item 4: what switchboard creates under the state directory is 0600.
#[test]
fn session_audit_and_log_files_are_created_owner_only() {
    let env = Env::new("");
    env.run(
        &[
            "run",
            "--non-interactive",
            "fs {\"operation\":\"list\",\"path\":\".\"}",
        ],
        0,
    );
    let state = env.path(".local/state/switchboard");
    let mut files = vec![state.join("audit.jsonl"), state.join("switchboard.log")];
    let sessions = std::fs::read_dir(state.join("sessions")).unwrap();
    files.extend(sessions.map(|e| e.unwrap().path()));
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&file).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600, "{}", file.display());
    }
}
