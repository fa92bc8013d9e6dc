//! Helpers shared by the test modules, compiled once.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use switchboard::agent::AgentEvent;

pub mod a2a_server;
pub mod apps;
pub mod builtin;
pub mod cli;
pub mod gate;
pub mod headless;
pub mod llm;
pub mod mcp;
pub mod oauth;
pub mod pty;
pub mod serve;
pub mod tui;

/// The folder's `switchboard.toml` stands for the person's own config in these tests:
/// trusted as it is, as `switchboard trust --yes` would (`state`: the state home).
pub fn trust_folder(cwd: &std::path::Path, state: &std::path::Path) {
    let dirs = switchboard::paths::Dirs::new(cwd, cwd.join(".config"), state, cwd.join(".share"));
    if let Ok(mut loaded) = switchboard::trust::Loaded::read(&dirs, None, &[]) {
        loaded.answer(switchboard::trust::Answer::Trust).unwrap();
    }
}

/// Writes an executable `/bin/sh` script `name` into `dir`.
pub fn script(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The text of the last model response among `events`.
pub fn final_text(events: &[AgentEvent]) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| match e {
            AgentEvent::ModelResponse { text, .. } => Some(text.clone()),
            _ => None,
        })
        .unwrap()
}

/// Writes `text` to `path`, creating its parent directories.
pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// How long a test waits for one event before it fails instead of hanging.
pub const EVENT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);

/// `future`'s output, or a failed test when it takes longer than [`EVENT_DEADLINE`].
pub async fn within<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(EVENT_DEADLINE, future)
        .await
        .unwrap_or_else(|_| panic!("nothing within {EVENT_DEADLINE:?}"))
}
