//! Shared by the serve tests: a config directory with the test server behind
//! switchboard, and rmcp clients of `switchboard serve`.
#![allow(
    clippy::unwrap_used,
    clippy::needless_pass_by_value,
    clippy::items_after_statements,
    clippy::format_push_string
)]

use std::path::{Path, PathBuf};

use super::trust_folder;
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
        // A folder's server runs sandboxed: it may write its `cancelled` mark here.
        let config = format!(
            "[servers.t]\ncommand = {SERVER_BIN:?}\nenv = {{ SWITCHBOARD_TEST_CANCELLED = {:?} }}\n\
             sandbox = {{ write = [{:?}] }}\n{extra}",
            cancelled.display().to_string(),
            dir.path().display().to_string()
        );
        std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
        trust_folder(dir.path(), &dir.path().join(".local/state"));
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
        self.stdio_client_with(name, &[]).await
    }

    /// As [`Env::stdio_client`], with more arguments to `serve --stdio` (`--client`).
    pub async fn stdio_client_with(&self, name: &str, more: &[&str]) -> Client {
        let mut args = vec!["serve", "--stdio"];
        args.extend_from_slice(more);
        let transport = TokioChildProcess::new(
            tokio::process::Command::new(SWITCHBOARD).configure(|c| self.configure(c, &args)),
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

/// `switchboard serve --http ADDR` in a workspace; killed on drop.
pub struct HttpGateway {
    /// Held so the gateway lives as long as this (`kill_on_drop`).
    #[allow(dead_code)]
    pub child: tokio::process::Child,
    /// The URL it printed first on stderr.
    pub url: String,
}

impl HttpGateway {
    pub async fn start(env: &Env, addr: &str, vars: &[(&str, &str)]) -> Self {
        use tokio::io::AsyncBufReadExt;
        let mut cmd = env.command(&["serve", "--http", addr]);
        cmd.envs(vars.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().unwrap();
        let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let url = tokio::time::timeout(std::time::Duration::from_secs(60), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        Self { child, url }
    }

    /// The URL with the host replaced by 127.0.0.1 (for a bind on 0.0.0.0). Unused today.
    #[allow(dead_code)]
    pub fn loopback_url(&self) -> String {
        let port = self
            .url
            .rsplit(':')
            .next()
            .unwrap()
            .trim_end_matches("/mcp");
        format!("http://127.0.0.1:{port}/mcp")
    }

    pub fn port(&self) -> u16 {
        self.url
            .rsplit(':')
            .next()
            .unwrap()
            .trim_end_matches("/mcp")
            .parse()
            .unwrap()
    }
}

/// An rmcp client named `name` over Streamable HTTP (2025-11-25 session).
pub async fn http_client(url: &str, name: &str) -> Client {
    http_client_with_token(url, name, None).await
}

/// As [`http_client`], sending `Authorization: Bearer TOKEN` with every request.
pub async fn http_client_with_token(url: &str, name: &str, token: Option<&str>) -> Client {
    switchboard::tls::install_crypto_provider();
    client_config(name)
        .serve(http_transport(url, token))
        .await
        .unwrap()
}

fn http_transport(
    url: &str,
    token: Option<&str>,
) -> rmcp::transport::StreamableHttpClientTransport<reqwest::Client> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    rmcp::transport::StreamableHttpClientTransport::from_config(config)
}

/// As [`http_client`], speaking 2026-07-28 (no session).
pub async fn http_client_2026(url: &str, name: &str) -> Client {
    http_client_2026_with_token(url, name, None).await
}

/// As [`http_client_2026`], sending `Authorization: Bearer TOKEN` with every request.
pub async fn http_client_2026_with_token(url: &str, name: &str, token: Option<&str>) -> Client {
    switchboard::tls::install_crypto_provider();
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let transport = http_transport(url, token);
    let mode = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    client_config(name)
        .serve_with_lifecycle(transport, mode)
        .await
        .unwrap()
}

/// One raw HTTP/1.1 POST of an `initialize` to 127.0.0.1:`port`: the status code.
pub async fn raw_post(port: u16, headers: &[(&str, &str)]) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = vec![0u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    String::from_utf8_lossy(&head[9..12]).parse().unwrap()
}

/// Sends a raw HTTP/1.1 POST of `body` with `headers` to 127.0.0.1:`port` and
/// returns the open connection (drop it to disconnect).
pub async fn raw_send(port: u16, headers: &[(&str, &str)], body: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Waits (a hang guard) for the test server's `cancelled` marker.
pub async fn wait_for_marker(path: &Path) -> bool {
    wait_for_mark(path, "cancelled").await
}

/// Waits (30 s at most) until the test server's `slow` has started running.
pub async fn wait_until_running(path: &Path) -> bool {
    wait_for_mark(path, "running").await
}

/// Waits (30 s at most) until the file at `path` holds `mark`.
async fn wait_for_mark(path: &Path, mark: &str) -> bool {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while tokio::time::Instant::now() < deadline {
        if std::fs::read_to_string(path).is_ok_and(|s| s == mark) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    false
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
