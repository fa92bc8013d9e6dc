//! The real binary in a real pseudo-terminal: it draws, quits on `q`, and leaves the
//! terminal in cooked mode — also when it panics.
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

struct Session {
    output: Arc<Mutex<Vec<u8>>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    home: tempfile::TempDir,
}

/// Run `switchboard ARGS`, then print its exit code and the terminal settings.
fn spawn(args: &str) -> Session {
    spawn_with(|_| {}, args)
}

/// As [`spawn`], with `prepare` run on the home directory first.
fn spawn_with(prepare: fn(&tempfile::TempDir), args: &str) -> Session {
    let home = tempfile::tempdir().unwrap();
    prepare(&home);
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let bin = env!("CARGO_BIN_EXE_switchboard");
    let mut cmd = CommandBuilder::new("sh");
    cmd.arg("-c");
    cmd.arg(format!("'{bin}' {args}; echo \"EXIT=$?\"; stty -a"));
    cmd.cwd(home.path());
    cmd.env("HOME", home.path());
    cmd.env("XDG_CONFIG_HOME", home.path().join("config"));
    cmd.env("XDG_STATE_HOME", home.path().join("state"));
    cmd.env("TERM", "xterm-256color");
    let child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let writer = pair.master.take_writer().unwrap();
    let output = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&output);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    // Keep the master alive as long as the session.
    std::mem::forget(pair.master);
    Session {
        output,
        writer,
        child,
        home,
    }
}

impl Session {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    /// Wait (generously; this is a hang guard, not a speed check) for `needle`.
    fn wait_for(&self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.text().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?}; output so far:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log_file(&self) -> String {
        let path = self.home.path().join("state/switchboard/switchboard.log");
        std::fs::read_to_string(&path).unwrap_or_default()
    }

    fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }
}

fn assert_cooked(text: &str) {
    let stty = text.rsplit("EXIT=").next().unwrap();
    assert!(stty.contains(" icanon"), "canonical mode restored:\n{stty}");
    assert!(
        !stty.contains("-icanon"),
        "canonical mode restored:\n{stty}"
    );
    assert!(!stty.contains("-echo "), "echo restored:\n{stty}");
    assert!(text.contains("\x1b[?1049l"), "alternate screen left");
}

#[test]
fn draws_quits_on_q_and_restores_the_terminal() {
    let mut s = spawn("");
    s.wait_for("Servers");
    s.wait_for("Message");
    // Focus starts in the composer, where q is typed; Tab moves to a pane first.
    s.send(b"\t");
    s.send(b"q");
    s.wait_for("EXIT=");
    s.wait_for("eol");
    let status = s.child.wait().unwrap();
    assert!(status.success());
    let text = s.text();
    assert!(text.contains("EXIT=0"), "{text}");
    assert_cooked(&text);
    assert!(
        s.log_file().contains("first frame drawn"),
        "logs go to the file"
    );
}

#[test]
fn a_panic_still_restores_the_terminal_and_is_reported() {
    let mut s = spawn("--debug-panic");
    s.wait_for("EXIT=");
    s.wait_for("eol");
    let _ = s.child.wait();
    let text = s.text();
    assert!(text.contains("EXIT=101"), "panics exit with 101:\n{text}");
    assert!(text.contains("deliberate panic"), "report printed:\n{text}");
    assert_cooked(&text);
    let log = s.log_file();
    assert!(
        log.contains("panic: "),
        "panic written to the log file:\n{log}"
    );
    assert!(log.contains("deliberate panic"), "{log}");
}

/// A VS Code `mcp.json` whose stdio server needs a password input.
fn vscode_file(home: &tempfile::TempDir) {
    let server = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");
    let json = serde_json::json!({
        "inputs": [{"type": "promptString", "id": "token", "description": "Test token", "password": true}],
        "servers": {"local": {"command": server, "env": {"TEST_TOKEN": "${input:token}"}}}
    });
    std::fs::write(home.path().join("mcp.json"), json.to_string()).unwrap();
}

#[test]
fn vscode_inputs_are_asked_masked_before_the_servers_start() {
    let mut s = spawn_with(vscode_file, "--mcp-config mcp.json");
    s.wait_for("Input needed");
    s.wait_for("Test token");
    s.send(b"hunter2");
    // Drawn incrementally: one bullet per key.
    let deadline = Instant::now() + Duration::from_secs(60);
    while s.text().matches('•').count() < 7 {
        assert!(Instant::now() < deadline, "{}", s.text());
        std::thread::sleep(Duration::from_millis(50));
    }
    s.send(b"\r");
    s.wait_for("Servers");
    s.wait_for("local");
    s.send(b"\t");
    s.send(b"q");
    s.wait_for("EXIT=");
    s.wait_for("eol");
    let text = s.text();
    assert!(text.contains("EXIT=0"), "{text}");
    assert!(!text.contains("hunter2"), "the password reached the screen");
    assert_cooked(&text);
}

#[test]
fn esc_at_the_input_prompt_goes_on_without_those_servers() {
    let mut s = spawn_with(vscode_file, "--mcp-config mcp.json");
    s.wait_for("Input needed");
    s.send(b"\x1b");
    s.wait_for("skipped");
    s.send(b"\t");
    s.send(b"q");
    s.wait_for("EXIT=");
    assert!(s.text().contains("EXIT=0"), "{}", s.text());
}
