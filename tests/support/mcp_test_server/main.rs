//! `switchboard-test-mcp-server`: the MCP server switchboard's tests spawn.
//!
//! ```text
//! switchboard-test-mcp-server [--transport stdio|http|sse] [--misbehave MODE]
//!     [--protocol both|2025-11-25|2026-07-28] [--asking] [--apps]
//! ```
//!
//! `--protocol` narrows the versions spoken (default: every version rmcp knows, so
//! `server/discover` works and so does `initialize`); `--asking` adds the tools that
//! ask the client (elicitation, sampling, roots, several rounds, request state);
//! `--apps` adds MCP Apps tools with a UI and serves their `ui://` resource (see `apps`).
//!
//! Over `http` (Streamable HTTP, `/mcp`) and `sse` (legacy HTTP+SSE, `/sse`) it listens
//! on 127.0.0.1 with a free port and prints its URL as the first line on stdout.
//! `--misbehave` (or `SWITCHBOARD_TEST_MISBEHAVE`): `exit-on-init` exits when
//! `initialize` (or `server/discover`) arrives, `garbage` answers every line with non-JSON, `hang` never
//! answers, `linger` serves normally but stays up after stdin closes until SIGTERM,
//! then writes `terminated` to the file named by `SWITCHBOARD_TEST_MARKER`;
//! `flush-on-exit` keeps working (on the CPU) for 400 ms after stdin closes, then
//! writes `flushed` there and exits (`terminated` if SIGTERM came first).
//! `silent-hang` is `hang` with nothing on stderr either; `bad-structured` makes
//! `add` return `structuredContent` its `outputSchema` refuses; `stamped` adds a
//! `timestamp` that changes on every call to `add`'s result (text and structured); `long-name` adds two
//! tools whose names providers reject (200 characters; dots, a slash and a space);
//! `stderr-flood` writes 20 000 stderr lines on every tool call; `x-mcp-header` adds a
//! tool with a valid `x-mcp-header` annotation and one with an invalid one; `ttl`
//! marks tool lists fresh for 10 minutes (`ttlMs`, `cacheScope: private`).
//! `tasks-2025` and `tasks-2025-hidden` serve the 2025-11-25 tasks over stdio
//! (see `tasks_2025`). `announce-early` adds `extra` when `logging/setLevel` arrives
//! (the first request switchboard sends in 2025-11-25) and sends five
//! `notifications/tools/list_changed` before answering it.
//! `probes` adds the tools a sandbox test uses: `probe_write`, `probe_read` (a
//! relative path is under the temp dir), `probe_connect` (TCP to 127.0.0.1) and
//! `probe_env`; each answers `ok` or `error: …` (`probe_env`: the variable names).
//! With `SWITCHBOARD_TEST_STARTED=FILE` it writes `started` to FILE as it starts;
//! with `SWITCHBOARD_TEST_SPAWN_LOG=FILE` it appends a line to FILE each time it starts
//! (tests count spawns);
//! with `SWITCHBOARD_TEST_LISTED=FILE` it appends a line to FILE per `tools/list` listing (first page).
//! With `SWITCHBOARD_TEST_LISTENING=FILE` it writes `listening` to FILE when a
//! `subscriptions/listen` stream is established; with `SWITCHBOARD_TEST_TRACE=FILE` it
//! writes rmcp's trace to FILE.

mod apps;
mod asking;
mod data;
mod handler;
mod http;
mod probes;
mod slow;
mod subs;
mod tasks;
mod tasks_2025;
mod tools;

use std::io::Write as _;

use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use handler::TestServer;

#[derive(Debug, Default)]
struct Options {
    transport: String,
    misbehave: String,
    protocol: String,
    asking: bool,
    apps: bool,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        transport: "stdio".into(),
        misbehave: std::env::var("SWITCHBOARD_TEST_MISBEHAVE").unwrap_or_default(),
        protocol: "both".into(),
        asking: false,
        apps: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--asking" {
            options.asking = true;
            continue;
        }
        if arg == "--apps" {
            options.apps = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--transport" => options.transport = value,
            "--misbehave" => options.misbehave = value,
            "--protocol" => options.protocol = value,
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("switchboard-test-mcp-server: {e}");
            std::process::exit(2);
        }
    };
    if let Ok(path) = std::env::var("SWITCHBOARD_TEST_TRACE")
        && let Ok(file) = std::fs::File::create(path)
    {
        tracing_subscriber::fmt()
            .with_writer(std::sync::Mutex::new(file))
            .with_env_filter("rmcp=trace")
            .with_ansi(false)
            .init();
    }
    if let Ok(path) = std::env::var("SWITCHBOARD_TEST_STARTED") {
        let _ = std::fs::write(path, "started");
    }
    if let Ok(path) = std::env::var("SWITCHBOARD_TEST_SPAWN_LOG")
        && let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        use std::io::Write as _;
        let _ = writeln!(file, "spawned {}", std::process::id());
    }
    if options.misbehave != "silent-hang" {
        eprintln!("test server starting ({} transport)", options.transport);
    }
    let versions = match options.protocol.as_str() {
        "2025-11-25" => ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25).to_vec(),
        "2026-07-28" => vec![ProtocolVersion::V_2026_07_28],
        _ => Vec::new(),
    };
    let server = TestServer {
        exit_on_initialize: options.misbehave == "exit-on-init",
        asking: options.asking,
        apps: options.apps,
        versions,
        misbehave: options.misbehave.as_str().into(),
        ..TestServer::default()
    };
    let result = match (options.transport.as_str(), options.misbehave.as_str()) {
        (_, "garbage") => garbage().await,
        (_, "tasks-2025") => tasks_2025::serve(false).await,
        (_, "tasks-2025-hidden") => tasks_2025::serve(true).await,
        (_, "hang" | "silent-hang") => hang().await,
        ("stdio", "linger") => linger(server).await,
        ("stdio", "flush-on-exit") => flush_on_exit(server).await,
        ("stdio", _) => stdio(server).await,
        ("http", _) => http::serve(server, http::Flavour::Streamable).await,
        ("sse", _) => http::serve(server, http::Flavour::LegacySse).await,
        (other, _) => Err(format!("unknown transport {other}")),
    };
    if let Err(e) = result {
        eprintln!("switchboard-test-mcp-server: {e}");
        std::process::exit(1);
    }
}

async fn stdio(server: TestServer) -> Result<(), String> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| e.to_string())?;
    running.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}

/// Serves, then ignores the end of stdin and waits for SIGTERM (like a server with work
/// still in flight), leaving a marker that it was asked to stop.
async fn linger(server: TestServer) -> Result<(), String> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).map_err(|e| e.to_string())?;
    stdio(server).await?;
    tokio::select! {
        _ = term.recv() => {
            if let Ok(path) = std::env::var("SWITCHBOARD_TEST_MARKER") {
                let _ = std::fs::write(path, "terminated");
            }
        }
        () = tokio::time::sleep(std::time::Duration::from_secs(60)) => {}
    }
    Ok(())
}

/// Serves, then works for 400 ms after stdin closes before it exits (a server that
/// saves its state on the way out), noting whether SIGTERM cut it short.
async fn flush_on_exit(server: TestServer) -> Result<(), String> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).map_err(|e| e.to_string())?;
    stdio(server).await?;
    let work = tokio::task::spawn_blocking(|| {
        let until = std::time::Instant::now() + std::time::Duration::from_millis(400);
        let mut n: u64 = 0;
        while std::time::Instant::now() < until {
            n = std::hint::black_box(n.wrapping_mul(31).wrapping_add(7));
        }
    });
    let said = tokio::select! {
        _ = term.recv() => "terminated",
        _ = work => "flushed",
    };
    if let Ok(path) = std::env::var("SWITCHBOARD_TEST_MARKER") {
        let _ = std::fs::write(path, said);
    }
    Ok(())
}

/// Answers each line on stdin with text that is not JSON-RPC.
async fn garbage() -> Result<(), String> {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    while let Ok(Some(_)) = lines.next_line().await {
        let _ = stdout.write_all(b"\x1b[31mthis is { not json\n").await;
        let _ = stdout.flush().await;
    }
    Ok(())
}

/// Reads stdin until it closes and never answers.
async fn hang() -> Result<(), String> {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(_)) = lines.next_line().await {}
    Ok(())
}

/// The first stdout line of the HTTP flavours.
fn announce(url: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{url}");
    let _ = stdout.flush();
}
