//! 1,000 sequential `tools/call` of `echo` over stdio, two ways: through `switchboard
//! serve --stdio` (the gateway: rmcp server, the gate with policy and audit log, the
//! MCP hub, the test server behind it) and straight to `switchboard-test-mcp-server`.
//! Both connections are made once, outside the timed loops.
//!
//! The `RATIO` line comes first: 20 rounds of 50 calls each way, a gateway round then
//! a direct one, each side's rounds summed, so a busy machine slows both alike (target:
//! at most 2.2×; two process hops put the floor near 2×). Then criterion measures each
//! on its own.
//!
//! `cargo bench --bench serve_gateway`.
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

mod support;

use std::process::Stdio;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rmcp::RoleClient;
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Map, Value, json};

const SWITCHBOARD: &str = env!("CARGO_BIN_EXE_switchboard");
const SERVER_BIN: &str = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");
const CALLS: u32 = 1_000;
/// The interleaved rounds: `ROUNDS` × `ROUND_CALLS` = `CALLS` each way.
const ROUNDS: usize = 20;
const ROUND_CALLS: u32 = 50;

type Client = RunningService<RoleClient, ClientConfig>;

fn echo_args() -> Map<String, Value> {
    let Value::Object(args) = json!({"text": "hello"}) else {
        unreachable!("a JSON object literal")
    };
    args
}

async fn connect(command: tokio::process::Command) -> Client {
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bench", "1"),
    )
    .with_protocol_version(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE);
    info.serve(transport).await.expect("connect")
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

fn bench_gateway(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let args = echo_args();
    let dir = tempfile::tempdir().expect("tempdir");
    // The person's own config: a folder's would first have to be trusted.
    std::fs::create_dir_all(dir.path().join("config/switchboard")).expect("config dir");
    std::fs::write(
        dir.path().join("config/switchboard/config.toml"),
        format!("[servers.t]\ncommand = {SERVER_BIN:?}\n"),
    )
    .expect("write config");
    let (gateway, direct) = runtime.block_on(async {
        let gateway = connect(tokio::process::Command::new(SWITCHBOARD).configure(|c| {
            c.args(["serve", "--stdio"])
                .current_dir(dir.path())
                .env("HOME", dir.path())
                .env("XDG_CONFIG_HOME", dir.path().join("config"))
                .env_remove("XDG_STATE_HOME");
        }))
        .await;
        // The first call waits for the server behind the gateway.
        let listed = gateway.list_all_tools().await.expect("tools");
        assert!(listed.iter().any(|t| t.name == "t__echo"), "{listed:?}");
        (
            gateway,
            connect(tokio::process::Command::new(SERVER_BIN)).await,
        )
    });

    support::print_summed_ratio(
        "1,000 sequential echo calls through serve --stdio",
        "direct to the server",
        ROUNDS,
        || runtime.block_on(calls(&gateway, "t__echo", &args, ROUND_CALLS)),
        || runtime.block_on(calls(&direct, "echo", &args, ROUND_CALLS)),
    );

    let mut group = c.benchmark_group("serve_1000_calls");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(u64::from(CALLS)));
    group.bench_function("through_serve_stdio", |b| {
        b.to_async(&runtime)
            .iter(|| calls(&gateway, "t__echo", &args, CALLS));
    });
    group.bench_function("direct_to_server", |b| {
        b.to_async(&runtime)
            .iter(|| calls(&direct, "echo", &args, CALLS));
    });
    group.finish();
    runtime.block_on(async {
        let _ = gateway.cancel().await;
        let _ = direct.cancel().await;
    });
}

criterion_group!(benches, bench_gateway);
criterion_main!(benches);
