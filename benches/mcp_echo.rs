//! 1,000 sequential `echo` calls over stdio to `switchboard-test-mcp-server`, three ways:
//! through the `switchboard call` code path (config file → non-interactive
//! `Workbench` → `Registry::invoke` with origin cli: policy, audit log, MCP hub), the
//! same with the wire capture on (every message recorded and masked into a
//! `WireLog`, as in the TUI), and through a bare rmcp client (`peer.call_tool`). The
//! connection is made once, outside the timed loop; the ratio of the first and the
//! last is switchboard's own cost per call. After criterion, rounds of the two
//! workbenches taken in turn print `RATIO wire/no-wire` (target ≤ 1.03).
//!
//! Both sides speak the same protocol generation: the workbench's `auto` settles on
//! 2026-07-28 with this server (`server/discover`, every request carrying its
//! protocol version, client info and capabilities in `_meta`), and the bare client is
//! started in the same lifecycle. A `RATIO` line for each generation comes first
//! (2025-11-25 with `protocol = "2025-11-25"` against a bare `initialize` client).
//!
//! The `RATIO` lines interleave the two loops round by round, so a busy machine slows
//! both alike; then criterion measures each on its own.
//!
//! Cargo builds the server binary for benches (`CARGO_BIN_EXE_*`), so
//! `cargo bench --bench mcp_echo` is enough.
//!
//! Instruction counts per call: `MCP_ECHO_ONLY=PATH MCP_ECHO_CALLS=N` runs only N
//! calls of one path (`invoke`, `hub` or `bare`, each with `-2025` for 2025-11-25),
//! nothing else. Run the executable under `valgrind --tool=callgrind` at two N;
//! the difference of the totals over the difference of N is the client side's
//! instructions per call (set-up and shutdown cancel out).
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

mod support;

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ClientRequest, Implementation, ProtocolVersion, Request,
    ServerResult,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt as _, PeerRequestOptions, RunningService,
};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use switchboard::config;
use switchboard::mcp::CallContext;
use switchboard::mcp::WireLog;
use switchboard::paths::Dirs;
use switchboard::policy::{
    AuditLog, AuditRecord, DecidedBy, ToolEffect, Verdict, args_sha256, rfc3339,
};
use switchboard::tools::{CallOutcome, Origin, ToolContext};
use switchboard::workbench::{Workbench, WorkbenchOptions};

const SERVER_BIN: &str = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");
const CALLS: u64 = 1_000;

/// Calls per loop: [`CALLS`], or `MCP_ECHO_CALLS` for instruction counts.
fn calls() -> u64 {
    std::env::var("MCP_ECHO_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CALLS)
}

fn echo_args() -> Map<String, Value> {
    let Value::Object(args) = json!({"text": "hello"}) else {
        unreachable!("a JSON object literal")
    };
    args
}

/// A client that declares what switchboard's does (`src/mcp/client.rs` `get_info`):
/// elicitation (form and URL), roots, sampling and the tasks extension.
fn like_switchboard() -> ClientConfig {
    let capabilities = json!({
        "elicitation": {"form": {}, "url": {}},
        "roots": {},
        "sampling": {},
        "extensions": {"io.modelcontextprotocol/tasks": {}},
    });
    ClientConfig::new(
        serde_json::from_value(capabilities).expect("capabilities"),
        Implementation::new("switchboard", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// 1,000 calls of `t__echo` through the workbench's gate.
async fn invoke_loop(workbench: &Workbench, args: &Map<String, Value>, ctx: &ToolContext) {
    for _ in 0..calls() {
        let result = workbench
            .registry
            .invoke("t__echo", args.clone(), ctx)
            .await;
        assert!(
            matches!(result, CallOutcome::Ran(ref r) if !r.is_error),
            "{result:?}"
        );
    }
}

/// 1,000 calls of `t`'s `echo` through the hub alone (no gate, no audit).
async fn hub_loop(workbench: &Workbench, args: &Map<String, Value>) {
    for _ in 0..calls() {
        let result = workbench
            .hub
            .call_tool("t", "echo", args.clone(), None, CallContext::default())
            .await;
        assert!(matches!(result, Ok(ref r) if !r.is_error), "{result:?}");
    }
}

/// 1,000 calls of `echo` through a bare rmcp client.
async fn bare_loop(client: &RunningService<RoleClient, ClientConfig>, args: &Map<String, Value>) {
    for _ in 0..calls() {
        let params = CallToolRequestParams::new("echo").with_arguments(args.clone());
        let result = client.call_tool(params).await;
        assert!(
            matches!(result, Ok(ref r) if r.is_error != Some(true)),
            "{result:?}"
        );
    }
}

/// What `open()` + `call` do: the config file found in the working directory, a
/// non-interactive workbench, the server settled, then the gate. `echo` has
/// `readOnlyHint: true`, so the default policy (mode ask) allows it as a Read.
fn start_workbench(
    runtime: &tokio::runtime::Runtime,
    dirs: &Dirs,
    protocol: &str,
    wire: Option<Arc<WireLog>>,
) -> Workbench {
    std::fs::write(
        dirs.cwd.join("switchboard.toml"),
        format!("[servers.t]\ncommand = {SERVER_BIN:?}\nprotocol = {protocol:?}\n"),
    )
    .expect("write config");
    let loaded = config::load(dirs, None).expect("config");
    let options = WorkbenchOptions {
        interactive: false,
        wire,
        ..WorkbenchOptions::default()
    };
    let workbench = runtime
        .block_on(async {
            let workbench = Workbench::start(&loaded.config, dirs, options).await?;
            workbench.settle_server("t").await;
            Ok::<_, switchboard::workbench::WorkbenchError>(workbench)
        })
        .expect("workbench");
    assert!(
        workbench.registry.names().iter().any(|n| n == "t__echo"),
        "t__echo not registered: {:?}",
        workbench.hub.snapshot().server("t").map(|s| &s.status)
    );
    workbench
}

/// A bare rmcp client on its own server process, in the lifecycle given, declaring
/// what switchboard declares (2026-07-28 sends the capabilities and the client info
/// with every request, so their size is the protocol's cost, not the gate's).
fn bare_client(
    runtime: &tokio::runtime::Runtime,
    mode: ClientLifecycleMode,
) -> RunningService<RoleClient, ClientConfig> {
    runtime
        .block_on(async {
            let (transport, _) =
                TokioChildProcess::builder(tokio::process::Command::new(SERVER_BIN))
                    .stderr(Stdio::null())
                    .spawn()?;
            like_switchboard()
                .serve_with_lifecycle(transport, mode)
                .await
                .map_err(|e| std::io::Error::other(e.to_string()))
        })
        .expect("rmcp client")
}

/// One audit line as the gate writes it for an allowed read.
fn audit_record(args: &Map<String, Value>) -> AuditRecord {
    AuditRecord {
        time: rfc3339(std::time::SystemTime::now()),
        run_id: "bench".into(),
        call_id: "call-1".into(),
        origin: Origin::Cli,
        client: None,
        agent: None,
        app: None,
        tool: "t__echo".into(),
        effect: ToolEffect::Read,
        decision: Verdict::Allow,
        rule: "mode ask allows reads".into(),
        decided_by: DecidedBy::Policy,
        answer: None,
        duration_ms: 0,
        is_error: false,
        args_sha256: args_sha256(args),
        args: None,
        hooks: Vec::new(),
    }
}

/// The 2025-11-25 generation: its own workbench and bare client, compared.
fn legacy_ratio(
    runtime: &tokio::runtime::Runtime,
    dirs: &Dirs,
    args: &Map<String, Value>,
    ctx: &ToolContext,
) {
    let legacy = start_workbench(runtime, dirs, "2025-11-25", None);
    let legacy_bare = bare_client(runtime, ClientLifecycleMode::Initialize);
    support::print_ratio(
        "1,000 sequential echo calls through Registry::invoke, 2025-11-25",
        "a bare rmcp client, 2025-11-25",
        11,
        || runtime.block_on(invoke_loop(&legacy, args, ctx)),
        || runtime.block_on(bare_loop(&legacy_bare, args)),
    );
    runtime.block_on(async {
        legacy.shutdown().await;
        let _ = legacy_bare.cancel().await;
    });
}

/// One loop of one path, nothing else (see the module's note on instruction counts).
fn only(
    path: &str,
    runtime: &tokio::runtime::Runtime,
    dirs: &Dirs,
    args: &Map<String, Value>,
    ctx: &ToolContext,
) {
    let (path, protocol) = match path.strip_suffix("-2025") {
        Some(path) => (path, "2025-11-25"),
        None => (path, "2026-07-28"),
    };
    if path == "bare" {
        let mode = if protocol == "2025-11-25" {
            ClientLifecycleMode::Initialize
        } else {
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            }
        };
        let client = bare_client(runtime, mode);
        runtime.block_on(bare_loop(&client, args));
        runtime.block_on(async {
            let _ = client.cancel().await;
        });
        return;
    }
    let workbench = start_workbench(runtime, dirs, protocol, None);
    runtime.block_on(async {
        match path {
            "invoke" => invoke_loop(&workbench, args, ctx).await,
            "hub" => hub_loop(&workbench, args).await,
            other => panic!("MCP_ECHO_ONLY: no path {other:?} (invoke, hub, bare)"),
        }
        workbench.shutdown().await;
    });
}

/// 1,000 bare rmcp calls with a request timeout that progress resets, as the hub
/// asks of rmcp (`[limits]`); rmcp keeps a progress watcher and a timer per request.
async fn timed_calls(client: &RunningService<RoleClient, ClientConfig>, args: &Map<String, Value>) {
    for _ in 0..CALLS {
        let params = CallToolRequestParams::new("echo").with_arguments(args.clone());
        let request = ClientRequest::CallToolRequest(Request::new(params));
        let options =
            PeerRequestOptions::with_timeout(Duration::from_secs(60)).reset_timeout_on_progress();
        let handle = client.send_request_with_option(request, options).await;
        let result = handle.expect("sent").await_response().await;
        assert!(
            matches!(result, Ok(ServerResult::CallToolResult(_))),
            "{result:?}"
        );
    }
}

/// The criterion group: 1,000 calls through the gate, with the wire capture, and
/// bare.
fn measure(
    c: &mut Criterion,
    runtime: &tokio::runtime::Runtime,
    [workbench, wired]: [&Workbench; 2],
    client: &RunningService<RoleClient, ClientConfig>,
    args: &Map<String, Value>,
    ctx: &ToolContext,
) {
    let mut group = c.benchmark_group("mcp_echo_1000_calls");
    // One iteration is 1,000 round trips (≈ 0.2 s): 10 samples in about 10 s.
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(CALLS));
    group.bench_function("switchboard_registry_invoke", |b| {
        b.to_async(runtime)
            .iter(|| invoke_loop(workbench, args, ctx));
    });
    group.bench_function("switchboard_registry_invoke_with_wire", |b| {
        b.to_async(runtime).iter(|| invoke_loop(wired, args, ctx));
    });
    group.bench_function("bare_rmcp_call_tool", |b| {
        b.to_async(runtime).iter(|| bare_loop(client, args));
    });
    group.finish();
}

fn bench_echo(c: &mut Criterion) {
    // The runtime `switchboard call` runs on (src/cli/mcp_session.rs `runtime()`).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let args = echo_args();

    let dir = tempfile::tempdir().expect("tempdir");
    let dirs = Dirs::new(
        dir.path(),
        dir.path().join("config"),
        dir.path().join("state"),
        dir.path().join("data"),
    );
    let ctx = ToolContext::new("bench", Origin::Cli);
    if let Ok(path) = std::env::var("MCP_ECHO_ONLY") {
        only(&path, &runtime, &dirs, &args, &ctx);
        return;
    }
    // The older generation first: its own workbench and bare client.
    legacy_ratio(&runtime, &dirs, &args, &ctx);

    let workbench = start_workbench(&runtime, &dirs, "auto", None);
    // The same, every message captured (the TUI's default capacity).
    let wire = Arc::new(WireLog::default());
    let wired = start_workbench(&runtime, &dirs, "auto", Some(Arc::clone(&wire)));
    let client = bare_client(
        &runtime,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    );
    let era = workbench
        .hub
        .snapshot()
        .server("t")
        .and_then(|s| s.info.as_ref().map(|i| i.protocol_version.clone()))
        .unwrap_or_default();
    assert_eq!(era, "2026-07-28", "auto settled on another generation");

    let gate_loop = || invoke_loop(&workbench, &args, &ctx);
    let reference = || bare_loop(&client, &args);
    // Where the difference goes: the hub's request path alone (no gate, no audit).
    let hub_loop = || hub_loop(&workbench, &args);
    support::print_ratio(
        "1,000 sequential echo calls through Registry::invoke, 2026-07-28",
        "a bare rmcp client, 2026-07-28",
        11,
        || runtime.block_on(gate_loop()),
        || runtime.block_on(reference()),
    );
    // And what 1,000 audit lines cost on their own (one write per line, as the gate
    // writes them: each is in the file before the call's result returns).
    let audit = AuditLog::open(&dir.path().join("probe-audit.jsonl"), false).expect("audit");
    let record = audit_record(&args);
    support::print_ratio(
        "1,000 audit lines appended",
        "1,000 bare rmcp calls",
        11,
        || {
            for _ in 0..CALLS {
                audit.append(&record);
            }
        },
        || runtime.block_on(reference()),
    );
    let timed_loop = || timed_calls(&client, &args);
    support::print_ratio(
        "1,000 bare rmcp calls with a timeout reset by progress",
        "a bare rmcp client",
        11,
        || runtime.block_on(timed_loop()),
        || runtime.block_on(reference()),
    );
    support::print_ratio(
        "1,000 sequential echo calls through the hub (no gate, no audit)",
        "a bare rmcp client",
        11,
        || runtime.block_on(hub_loop()),
        || runtime.block_on(reference()),
    );

    concurrency_ratios(&runtime, &workbench, &client, &args, &ctx);

    measure(c, &runtime, [&workbench, &wired], &client, &args, &ctx);
    assert!(
        wire.recorded() >= 2 * CALLS,
        "the wire saw {}",
        wire.recorded()
    );
    print_wire_ratio(&runtime, [&workbench, &wired], &args, &ctx);

    runtime.block_on(async {
        wired.shutdown().await;
        workbench.shutdown().await;
        let _ = client.cancel().await;
    });
}

/// How the cost grows with callers: 1,000 calls made by 4 concurrent callers (250
/// each) against the same 1,000 made by one, through the gate and bare. A ratio
/// below 1 is calls overlapping (the server answers one while the next is on its
/// way); the gate's ratio near the bare one says it serialises nothing of its own.
fn concurrency_ratios(
    runtime: &tokio::runtime::Runtime,
    workbench: &Workbench,
    client: &RunningService<RoleClient, ClientConfig>,
    args: &Map<String, Value>,
    ctx: &ToolContext,
) {
    const CALLERS: u64 = 4;
    let gate_by = |callers: u64| async move {
        let one = |_| async {
            for _ in 0..CALLS / callers {
                let result = workbench
                    .registry
                    .invoke("t__echo", args.clone(), ctx)
                    .await;
                assert!(matches!(result, CallOutcome::Ran(_)), "{result:?}");
            }
        };
        futures::future::join_all((0..callers).map(one)).await;
    };
    let bare_by = |callers: u64| async move {
        let one = |_| async {
            for _ in 0..CALLS / callers {
                let params = CallToolRequestParams::new("echo").with_arguments(args.clone());
                let result = client.call_tool(params).await;
                assert!(result.is_ok(), "{result:?}");
            }
        };
        futures::future::join_all((0..callers).map(one)).await;
    };
    support::print_ratio(
        "1,000 echo calls through Registry::invoke by 4 concurrent callers",
        "the same by one caller",
        11,
        || runtime.block_on(gate_by(CALLERS)),
        || runtime.block_on(gate_by(1)),
    );
    support::print_ratio(
        "1,000 bare rmcp echo calls by 4 concurrent callers",
        "the same by one caller",
        11,
        || runtime.block_on(bare_by(CALLERS)),
        || runtime.block_on(bare_by(1)),
    );
}

/// Rounds of 1,000 calls on each workbench in turn (so both see the same machine
/// load); the median round of each, and their ratio.
fn print_wire_ratio(
    runtime: &tokio::runtime::Runtime,
    [plain, wired]: [&Workbench; 2],
    args: &Map<String, Value>,
    ctx: &ToolContext,
) {
    const ROUNDS: usize = 7;
    let round = |workbench: &Workbench| {
        runtime.block_on(async {
            let started = Instant::now();
            for _ in 0..CALLS {
                let result = workbench
                    .registry
                    .invoke("t__echo", args.clone(), ctx)
                    .await;
                assert!(matches!(result, CallOutcome::Ran(_)), "{result:?}");
            }
            started.elapsed()
        })
    };
    let (mut without, mut with) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        without.push(round(plain));
        with.push(round(wired));
    }
    without.sort_unstable();
    with.sort_unstable();
    let (a, b) = (without[ROUNDS / 2], with[ROUNDS / 2]);
    println!(
        "RATIO wire/no-wire: {:.3} (median of {ROUNDS} rounds of {CALLS} calls: {:.1} ms with the wire, {:.1} ms without)",
        b.as_secs_f64() / a.as_secs_f64(),
        b.as_secs_f64() * 1e3,
        a.as_secs_f64() * 1e3
    );
}

criterion_group!(benches, bench_echo);
criterion_main!(benches);
