//! 1,000 sequential `tools/call` of `echo` over stdio, two ways: through `switchboard
//! serve --stdio` (the gateway: rmcp server, the gate with policy and audit log, the
//! MCP hub, the test server behind it) and straight to `switchboard-test-mcp-server`.
//! Every connection is made once, outside the timed loops.
//!
//! The `RATIO` lines come first: 60 rounds of 50 calls each way, a gateway round then
//! a direct one, each side's rounds summed, so a busy machine slows both alike (target:
//! at most 2.2×; two process hops put the floor near 2×). Each compares like with like:
//! one protocol generation on every hop (2025-11-25: `initialize`, the gateway's
//! server pinned with `protocol = "2025-11-25"`; 2026-07-28: `server/discover` and the
//! gateway's `auto`). A third line is the mix this bench measured before: a 2025-11-25
//! client, the gateway speaking 2026-07-28 to its server (every upstream request then
//! carries the client's info and capabilities in `_meta`, which the direct call does
//! not). Then criterion measures the 2025-11-25 pair, each on its own.
//!
//! `cargo bench --bench serve_gateway`.
//!
//! Instruction counts per call: `SERVE_GATEWAY_ONLY=PAIR SERVE_GATEWAY_CALLS=N` runs
//! only N calls through one gateway (`2025`, `2026` or `mix`, as the `RATIO` lines
//! pair them), or straight to the server (`direct-2025`, `direct-2026`), nothing
//! else. Run the executable under `valgrind --tool=callgrind
//! --trace-children=yes` at two N; the difference of the gateway process's totals over
//! the difference of N is its instructions per call (set-up and shutdown cancel out).
//! If valgrind does not follow the spawn, `SERVE_GATEWAY_WRAP="valgrind
//! --tool=callgrind"` starts the gateway (or the direct server) under that command
//! (split on spaces) instead.
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Map, Value, json};

const SWITCHBOARD: &str = env!("CARGO_BIN_EXE_switchboard");
const SERVER_BIN: &str = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");
const CALLS: u32 = 1_000;
/// The interleaved rounds: `ROUNDS` × `ROUND_CALLS` = 3 × `CALLS` each way.
const ROUNDS: usize = 60;
const ROUND_CALLS: u32 = 50;

type Client = RunningService<RoleClient, ClientConfig>;

fn echo_args() -> Map<String, Value> {
    let Value::Object(args) = json!({"text": "hello"}) else {
        unreachable!("a JSON object literal")
    };
    args
}

/// A client of `generation` (`initialize` for 2025-11-25, `server/discover` for
/// 2026-07-28) on the process `command` starts.
async fn connect(command: tokio::process::Command, generation: ProtocolVersion) -> Client {
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mode = if generation == ProtocolVersion::V_2026_07_28 {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![generation.clone()],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bench", "1"),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    .serve_with_lifecycle(transport, mode)
    .await
    .expect("connect");
    let spoken = client.peer_info().map(|i| i.protocol_version.clone());
    assert_eq!(
        spoken,
        Some(generation),
        "the client speaks another generation"
    );
    client
}

/// `switchboard serve --stdio` in front of the test server, its config in `home`
/// (`protocol`: the `[servers.t] protocol` line, if any), its tools listed.
async fn gateway(home: &Path, protocol: &str, generation: ProtocolVersion) -> Client {
    // The person's own config: a folder's would first have to be trusted.
    std::fs::create_dir_all(home.join("config/switchboard")).expect("config dir");
    std::fs::write(
        home.join("config/switchboard/config.toml"),
        format!("[servers.t]\ncommand = {SERVER_BIN:?}\n{protocol}"),
    )
    .expect("write config");
    let command = wrapped(SWITCHBOARD).configure(|c| {
        c.args(["serve", "--stdio"])
            .current_dir(home)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env_remove("XDG_STATE_HOME");
    });
    let client = connect(command, generation).await;
    // The first call waits for the server behind the gateway.
    let listed = client.list_all_tools().await.expect("tools");
    assert!(listed.iter().any(|t| t.name == "t__echo"), "{listed:?}");
    client
}

/// `n` calls of `tool`, one after another.
async fn calls(client: &Client, tool: &str, args: &Map<String, Value>, n: u32) {
    for _ in 0..n {
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args.clone());
        let result = client.call_tool(params).await;
        assert!(
            matches!(result, Ok(ref r) if r.is_error != Some(true)),
            "{result:?}"
        );
    }
}

/// The interleaved rounds of one pair and its `RATIO` line.
fn ratio(runtime: &tokio::runtime::Runtime, label: &str, [through, direct]: [&Client; 2]) {
    let args = echo_args();
    support::print_summed_ratio(
        &format!("3,000 sequential echo calls through serve --stdio, {label}"),
        "direct to the server",
        ROUNDS,
        || runtime.block_on(calls(through, "t__echo", &args, ROUND_CALLS)),
        || runtime.block_on(calls(direct, "echo", &args, ROUND_CALLS)),
    );
}

/// `program`, or `SERVE_GATEWAY_WRAP` (a profiler) with `program` as its argument.
fn wrapped(program: &str) -> tokio::process::Command {
    let wrap = std::env::var("SERVE_GATEWAY_WRAP").unwrap_or_default();
    let mut wrap = wrap.split_whitespace();
    let Some(wrapper) = wrap.next() else {
        return tokio::process::Command::new(program);
    };
    let mut command = tokio::process::Command::new(wrapper);
    command.args(wrap).arg(program);
    command
}

/// `SERVE_GATEWAY_ONLY`: `n` calls through the gateway of one pair, nothing else.
fn only(runtime: &tokio::runtime::Runtime, pair: &str, n: u32) {
    let home = tempfile::tempdir().expect("tempdir");
    let (protocol, generation) = match pair {
        "2025" => (
            "protocol = \"2025-11-25\"\n",
            ProtocolVersion::LATEST_WITH_INITIALIZE,
        ),
        "2026" => ("", ProtocolVersion::V_2026_07_28),
        "mix" => ("", ProtocolVersion::LATEST_WITH_INITIALIZE),
        "direct-2025" | "direct-2026" => {
            let generation = if pair == "direct-2025" {
                ProtocolVersion::LATEST_WITH_INITIALIZE
            } else {
                ProtocolVersion::V_2026_07_28
            };
            runtime.block_on(async {
                let client = connect(wrapped(SERVER_BIN), generation).await;
                calls(&client, "echo", &echo_args(), n).await;
                let _ = client.cancel().await;
            });
            return;
        }
        other => panic!(
            "SERVE_GATEWAY_ONLY: no pair {other:?} (2025, 2026, mix, direct-2025, direct-2026)"
        ),
    };
    let args = echo_args();
    runtime.block_on(async {
        let client = gateway(home.path(), protocol, generation).await;
        calls(&client, "t__echo", &args, n).await;
        let _ = client.cancel().await;
    });
}

fn bench_gateway(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    if let Ok(pair) = std::env::var("SERVE_GATEWAY_ONLY") {
        let n = std::env::var("SERVE_GATEWAY_CALLS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(CALLS);
        only(&runtime, &pair, n);
        return;
    }
    let (old, new) = (
        ProtocolVersion::LATEST_WITH_INITIALIZE,
        ProtocolVersion::V_2026_07_28,
    );
    let homes: Vec<_> = (0..3)
        .map(|_| tempfile::tempdir().expect("tempdir"))
        .collect();
    let pinned = "protocol = \"2025-11-25\"\n";
    let clients = runtime.block_on(async {
        [
            gateway(homes[0].path(), pinned, old.clone()).await,
            connect(tokio::process::Command::new(SERVER_BIN), old.clone()).await,
            gateway(homes[1].path(), "", new.clone()).await,
            connect(tokio::process::Command::new(SERVER_BIN), new.clone()).await,
            gateway(homes[2].path(), "", old.clone()).await,
        ]
    });
    let [through_old, direct_old, through_new, direct_new, mixed] = &clients;
    ratio(&runtime, "2025-11-25", [through_old, direct_old]);
    ratio(&runtime, "2026-07-28", [through_new, direct_new]);
    ratio(
        &runtime,
        "a 2025-11-25 client, 2026-07-28 upstream",
        [mixed, direct_old],
    );

    let args = echo_args();
    let mut group = c.benchmark_group("serve_1000_calls");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(u64::from(CALLS)));
    group.bench_function("through_serve_stdio", |b| {
        b.to_async(&runtime)
            .iter(|| calls(through_old, "t__echo", &args, CALLS));
    });
    group.bench_function("direct_to_server", |b| {
        b.to_async(&runtime)
            .iter(|| calls(direct_old, "echo", &args, CALLS));
    });
    group.finish();
    runtime.block_on(async {
        for client in clients {
            let _ = client.cancel().await;
        }
    });
}

criterion_group!(benches, bench_gateway);
criterion_main!(benches);
