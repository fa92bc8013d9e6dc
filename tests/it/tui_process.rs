//! The real binary in a real pseudo-terminal: it draws, quits on `q`, and leaves the
//! terminal in cooked mode — also when it panics.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use crate::support::pty::{spawn, spawn_with};

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
fn vscode_file(home: &std::path::Path, _: &mut portable_pty::CommandBuilder) {
    let server = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");
    let json = serde_json::json!({
        "inputs": [{"type": "promptString", "id": "token", "description": "Test token", "password": true}],
        "servers": {"local": {"command": server, "env": {"TEST_TOKEN": "${input:token}"}}}
    });
    std::fs::write(home.join("mcp.json"), json.to_string()).unwrap();
}

#[test]
fn vscode_inputs_are_asked_masked_before_the_servers_start() {
    let mut s = spawn_with(vscode_file, "--mcp-config mcp.json");
    // A file inside the folder: first the trust question, then its inputs.
    s.wait_for("Trust this folder?");
    s.send(b"t");
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
    // A file inside the folder: first the trust question, then its inputs.
    s.wait_for("Trust this folder?");
    s.send(b"t");
    s.wait_for("Input needed");
    s.send(b"\x1b");
    s.wait_for("skipped");
    s.send(b"\t");
    s.send(b"q");
    s.wait_for("EXIT=");
    assert!(s.text().contains("EXIT=0"), "{}", s.text());
}

#[test]
fn a_remote_agent_that_never_answers_does_not_hold_up_the_first_frame() {
    // Takes the card request and never answers (the card's timeout is 10 s).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (accepted, seen) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut open = Vec::new();
        while let Ok((stream, _)) = listener.accept() {
            let _ = accepted.send(Instant::now());
            open.push(stream);
        }
    });
    let config = format!("[agents.mute]\nkind = \"a2a\"\nurl = \"{url}\"\n");
    let mut s = spawn_with(
        |home, _| {
            std::fs::create_dir_all(home.join("config/switchboard")).unwrap();
            std::fs::write(home.join("config/switchboard/config.toml"), config).unwrap();
        },
        "",
    );
    let asked = seen.recv_timeout(Duration::from_secs(60)).unwrap();
    s.wait_for("Message");
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "the first frame waited for the card"
    );
    s.send(b"\t");
    s.send(b"q");
    s.wait_for("EXIT=");
    assert!(s.child.wait().unwrap().success());
}

/// A folder whose config would start a server that leaves a mark.
fn marking_folder(home: &std::path::Path, _: &mut portable_pty::CommandBuilder) {
    let config = format!(
        "[servers.x]\ncommand = \"sh\"\nargs = [\"-c\", \"touch '{}'\"]\nsandbox = false\n",
        home.join("ran").display()
    );
    std::fs::write(home.join("switchboard.toml"), config).unwrap();
}

#[test]
fn an_untrusted_folder_is_asked_about_and_ignoring_it_starts_nothing() {
    let mut s = spawn_with(marking_folder, "");
    s.wait_screen("Trust this folder?");
    s.wait_screen("start server x: sh -c");
    assert!(!s.home.path().join("ran").exists());
    s.send(b"i");
    s.wait_screen("is ignored (not trusted)");
    s.send(b"\t");
    s.send(b"q");
    s.wait_for("EXIT=");
    assert!(!s.home.path().join("ran").exists(), "the server started");
    // Remembered: the next start does not ask, and still starts nothing.
    let text = s.text();
    assert!(text.contains("EXIT=0"), "{text}");
}

#[test]
fn a_trusted_folder_starts_its_servers() {
    let mut s = spawn_with(marking_folder, "");
    s.wait_screen("Trust this folder?");
    s.send(b"t");
    s.wait_screen("Servers");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !s.home.path().join("ran").exists() {
        assert!(
            Instant::now() < deadline,
            "the trusted server never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    s.send(b"\t");
    s.send(b"q");
    s.wait_for("EXIT=");
}
