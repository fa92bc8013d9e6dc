//! Shared by the serve tests: a config directory with the test server behind
//! switchboard, and rmcp clients of `switchboard serve`.
#![allow(dead_code, clippy::unwrap_used, clippy::needless_pass_by_value)]

use std::path::{Path, PathBuf};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion,
};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value, json};

pub const SWITCHBOARD: &str = env!("CARGO_BIN_EXE_switchboard");
pub const SERVER_BIN: &str = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");

pub type Client = RunningService<RoleClient, ClientConfig>;

/// A workspace whose `switchboard.toml` puts the test server behind switchboard as
/// `t`, plus `extra` config.
pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new(extra: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let cancelled = dir.path().join("cancelled");
        let config = format!(
            "[servers.t]\ncommand = {SERVER_BIN:?}\nenv = {{ SWITCHBOARD_TEST_CANCELLED = {:?} }}\n{extra}",
            cancelled.display().to_string()
        );
        std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
        Self { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Where the test server writes `cancelled` when a call of `slow` is cancelled.
    pub fn cancelled_marker(&self) -> PathBuf {
        self.dir.path().join("cancelled")
    }

    /// `switchboard ARGS` in this workspace, with its own home.
    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(SWITCHBOARD);
        self.configure(&mut cmd, args);
        cmd
    }

    pub fn configure(&self, cmd: &mut tokio::process::Command, args: &[&str]) {
        cmd.args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_DATA_HOME");
    }

    /// An rmcp client named `name` of `switchboard serve --stdio`.
    pub async fn stdio_client(&self, name: &str) -> Client {
        let transport = TokioChildProcess::new(
            tokio::process::Command::new(SWITCHBOARD)
                .configure(|c| self.configure(c, &["serve", "--stdio"])),
        )
        .unwrap();
        client_config(name).serve(transport).await.unwrap()
    }

    /// As [`Env::stdio_client`], speaking 2026-07-28 (`server/discover`, no session).
    pub async fn stdio_client_2026(&self, name: &str) -> Client {
        use rmcp::{ClientLifecycleMode, ClientServiceExt};
        let transport = TokioChildProcess::new(
            tokio::process::Command::new(SWITCHBOARD)
                .configure(|c| self.configure(c, &["serve", "--stdio"])),
        )
        .unwrap();
        let mode = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        client_config(name)
            .serve_with_lifecycle(transport, mode)
            .await
            .unwrap()
    }
}

/// What a client called `name` says about itself (2025-11-25, as `initialize` offers).
pub fn client_config(name: &str) -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(name, "1.0"),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

pub fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// Calls a tool; a protocol error fails the test.
pub async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args(arguments)))
        .await
        .unwrap()
}

/// The result as wire JSON (for asserting on text, isError).
pub fn wire(result: &CallToolResult) -> Value {
    serde_json::to_value(result).unwrap()
}

pub fn text(result: &CallToolResult) -> String {
    let v = wire(result);
    v["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn is_error(result: &CallToolResult) -> bool {
    wire(result)["isError"] == json!(true)
}
