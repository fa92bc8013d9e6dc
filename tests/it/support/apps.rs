//! Shared by the MCP Apps host tests: `switchboard app … --no-browser` running in a
//! workspace, its page's address, and every later stderr line.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncBufReadExt;

use super::serve::Env;

/// `switchboard app ARGS --no-browser`; killed on drop.
pub struct AppProcess {
    #[allow(dead_code)]
    child: tokio::process::Child,
    /// The host page's address (the first line on stderr).
    pub url: String,
    lines: Arc<Mutex<Vec<String>>>,
}

impl AppProcess {
    pub async fn start(env: &Env, args: &[&str]) -> Self {
        let mut all = vec!["app"];
        all.extend_from_slice(args);
        all.push("--no-browser");
        let mut cmd = env.command(&all);
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().unwrap();
        let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let first = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let url = first
            .strip_prefix("app: ")
            .unwrap_or_else(|| panic!("first line: {first}"))
            .to_owned();
        let kept = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&kept);
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                sink.lock().unwrap().push(line);
            }
        });
        Self {
            child,
            url,
            lines: kept,
        }
    }

    /// Waits (up to 30 s) for a stderr line containing `needle`; returns it.
    pub async fn line_with(&self, needle: &str) -> String {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(line) = self
                .lines
                .lock()
                .unwrap()
                .iter()
                .find(|l| l.contains(needle))
            {
                return line.clone();
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no line with {needle:?} in {:?}",
                self.lines.lock().unwrap()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The host page's origin (`http://127.0.0.1:PORT`).
    pub fn origin(&self) -> String {
        let rest = self.url.strip_prefix("http://").unwrap();
        format!("http://{}", rest.split('/').next().unwrap())
    }
}
