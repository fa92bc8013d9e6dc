//! The real binary in a real pseudo-terminal, for the TUI tests that need the whole
//! program (its terminal handling, its servers, its login).
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

pub struct Session {
    output: Arc<Mutex<Vec<u8>>>,
    writer: Box<dyn Write + Send>,
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    pub home: tempfile::TempDir,
}

/// Run `switchboard ARGS`, then print its exit code and the terminal settings.
pub fn spawn(args: &str) -> Session {
    spawn_with(|_, _| {}, args)
}

/// As [`spawn`], with `prepare` run first on the home directory and the command
/// (to write a config, set variables).
pub fn spawn_with(prepare: impl FnOnce(&Path, &mut CommandBuilder), args: &str) -> Session {
    let home = tempfile::tempdir().unwrap();
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
    cmd.env_remove("BROWSER");
    prepare(home.path(), &mut cmd);
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
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    /// Wait (generously; this is a hang guard, not a speed check) for `needle`.
    pub fn wait_for(&self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.text().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?}; log:\n{}\noutput so far:\n{}",
                self.log_file(),
                self.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// What the terminal shows now (the output run through a terminal emulator), so
    /// a wait is not fooled by how the frame was drawn in pieces.
    pub fn screen(&self) -> String {
        let mut parser = vt100::Parser::new(30, 100, 0);
        parser.process(&self.output.lock().unwrap());
        parser.screen().contents()
    }

    /// Wait (a hang guard) until the screen shows `needle`.
    pub fn wait_screen(&self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.screen().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?} on screen; log:\n{}\nscreen:\n{}",
                self.log_file(),
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn log_file(&self) -> String {
        let path = self.home.path().join("state/switchboard/switchboard.log");
        std::fs::read_to_string(&path).unwrap_or_default()
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }
}
