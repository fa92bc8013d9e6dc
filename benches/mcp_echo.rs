//! 1,000 sequential `echo` calls over stdio to `switchboard-test-mcp-server`, two ways:
//! through the `switchboard call` code path (config file → non-interactive
//! `Workbench` → `Registry::invoke` with origin cli: policy, audit log, MCP hub) and
//! through a bare rmcp client (`peer.call_tool`). The connection is made once, outside
//! the timed loop; the ratio of the two is switchboard's own cost per call.
//!
//! Cargo builds the server binary for benches (`CARGO_BIN_EXE_*`), so
//! `cargo bench --bench mcp_echo` is enough.
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

use std::process::Stdio;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use switchboard::config;
use switchboard::paths::Dirs;
use switchboard::tools::{CallOutcome, Origin, ToolContext};
use switchboard::workbench::{Workbench, WorkbenchOptions};

const SERVER_BIN: &str = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");
const CALLS: u64 = 1_000;

fn echo_args() -> Map<String, Value> {
    let Value::Object(args) = json!({"text": "hello"}) else {
        unreachable!("a JSON object literal")
    };
    args
}

fn bench_echo(c: &mut Criterion) {
    // The runtime `switchboard call` runs on (src/cli/mcp_session.rs `runtime()`).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let args = echo_args();

    // (a) What `open()` + `call` do: the config file found in the working directory,
    // a non-interactive workbench, the server settled, then the gate. `echo` has
    // `readOnlyHint: true`, so the default policy (mode ask) allows it as a Read.
    let dir = tempfile::tempdir().expect("tempdir");
    let dirs = Dirs::new(
        dir.path(),
        dir.path().join("config"),
        dir.path().join("state"),
        dir.path().join("data"),
    );
    std::fs::write(
        dir.path().join("switchboard.toml"),
        format!("[servers.t]\ncommand = {SERVER_BIN:?}\n"),
    )
    .expect("write config");
    let loaded = config::load(&dirs, None).expect("config");
    let options = WorkbenchOptions {
        interactive: false,
        ..WorkbenchOptions::default()
    };
    let workbench = runtime
        .block_on(async {
            let workbench = Workbench::start(&loaded.config, &dirs, options).await?;
            workbench.settle_server("t").await;
            Ok::<_, switchboard::workbench::WorkbenchError>(workbench)
        })
        .expect("workbench");
    assert!(
        workbench.registry.names().iter().any(|n| n == "t__echo"),
        "t__echo not registered: {:?}",
        workbench.hub.snapshot().server("t").map(|s| &s.status)
    );
    let ctx = ToolContext::new("bench", Origin::Cli);

    // (b) A bare rmcp client on its own server process.
    let client = runtime
        .block_on(async {
            let (transport, _) =
                TokioChildProcess::builder(tokio::process::Command::new(SERVER_BIN))
                    .stderr(Stdio::null())
                    .spawn()?;
            ().serve(transport)
                .await
                .map_err(|e| std::io::Error::other(e.to_string()))
        })
        .expect("rmcp client");

    let mut group = c.benchmark_group("mcp_echo_1000_calls");
    // One iteration is 1,000 round trips (≈ 0.2 s): 10 samples in about 10 s.
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(CALLS));
    group.bench_function("switchboard_registry_invoke", |b| {
        b.to_async(&runtime).iter(|| async {
            for _ in 0..CALLS {
                let result = workbench
                    .registry
                    .invoke("t__echo", args.clone(), &ctx)
                    .await;
                assert!(
                    matches!(result, CallOutcome::Ran(ref r) if !r.is_error),
                    "{result:?}"
                );
            }
        });
    });
    group.bench_function("bare_rmcp_call_tool", |b| {
        b.to_async(&runtime).iter(|| async {
            for _ in 0..CALLS {
                let params = CallToolRequestParams::new("echo").with_arguments(args.clone());
                let result = client.call_tool(params).await;
                assert!(
                    matches!(result, Ok(ref r) if r.is_error != Some(true)),
                    "{result:?}"
                );
            }
        });
    });
    group.finish();

    runtime.block_on(async {
        workbench.shutdown().await;
        let _ = client.cancel().await;
    });
}

criterion_group!(benches, bench_echo);
criterion_main!(benches);
