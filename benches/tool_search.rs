//! Tool search: what the first model request declares with five test servers (12
//! tools each, listed 4 per page) plus the built-ins, `tool_search = "off"` versus
//! `"on"` (estimated tokens, and their ratio), and what one search costs through the
//! gate against a no-op read through the same gate, measured in the same run.
//!
//! `cargo bench --bench tool_search` (Cargo builds the test server for benches).
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use switchboard::agent::exposure::{ToolSearchOptions, offer};
use switchboard::config::{Config, ServerConfig, ToolSearchSetting};
use switchboard::tools::search::ensure_registered;
use switchboard::tools::{CallOutcome, Origin, Registry, Scope, ToolContext, ToolEffect, ToolSpec};
use switchboard::workbench::{Workbench, WorkbenchOptions};

mod support;
use support::Noop;

const SERVER_BIN: &str = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");

fn config() -> Config {
    let mut config = Config::default();
    for i in 1..=5 {
        config.servers.insert(
            format!("paged{i}"),
            ServerConfig {
                command: Some(SERVER_BIN.into()),
                ..ServerConfig::default()
            },
        );
    }
    config
}

fn first_request(registry: &Registry, setting: ToolSearchSetting) -> (usize, usize) {
    let options = ToolSearchOptions {
        setting,
        deferred_servers: (1..=5).map(|i| format!("paged{i}")).collect(),
        ..ToolSearchOptions::default()
    };
    let all = switchboard::agent::declarations(registry, Scope::Full);
    let (tools, report) = offer(&options, all, &[]);
    (tools.len(), report.offered_tokens)
}

fn bench_tool_search(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let home = tempfile::tempdir().expect("tempdir");
    let dirs = switchboard::paths::Dirs::new(home.path(), home.path(), home.path(), home.path());
    let workbench = runtime
        .block_on(Workbench::start(
            &config(),
            &dirs,
            WorkbenchOptions::default(),
        ))
        .expect("workbench");
    runtime.block_on(workbench.settle());
    let registry = Arc::clone(&workbench.registry);
    runtime
        .block_on(ensure_registered(&registry))
        .expect("tool_search");

    let (off_tools, off_tokens) = first_request(&registry, ToolSearchSetting::Off);
    let (on_tools, on_tokens) = first_request(&registry, ToolSearchSetting::On);
    #[allow(clippy::cast_precision_loss)]
    let ratio = on_tokens as f64 / off_tokens as f64;
    println!(
        "first request declares: off {off_tools} tools, {off_tokens} tok; on {on_tools} tools, \
         {on_tokens} tok; RATIO on/off {ratio:.3}"
    );

    // The reference tool comes after the declarations are weighed.
    let noop = ToolSpec::builder("bench__noop")
        .default_effect(ToolEffect::Read)
        .build();
    runtime
        .block_on(registry.register(Arc::new(Noop(noop))))
        .expect("noop");
    let ctx = ToolContext::new("bench", Origin::Model);
    let Value::Object(query) = json!({"query": "echo text back"}) else {
        return;
    };
    let search = || async {
        let out = registry.invoke("tool_search", query.clone(), &ctx).await;
        assert!(matches!(out, CallOutcome::Ran(ref r) if !r.is_error));
    };
    let reference = || async {
        let out = registry.invoke("bench__noop", Map::new(), &ctx).await;
        assert!(matches!(out, CallOutcome::Ran(ref r) if !r.is_error));
    };
    let mut group = c.benchmark_group("tool_search");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("search through the gate", |b| {
        b.to_async(&runtime).iter(search);
    });
    group.bench_function("no-op read through the gate", |b| {
        b.to_async(&runtime).iter(reference);
    });
    group.finish();

    // The ratio, from the same run: rounds of 100 of each, interleaved.
    let searched = registry.specs().len() - 1;
    support::print_ratio(
        &format!("100 tool_search calls over {searched} tools"),
        "100 no-op reads",
        20,
        || {
            runtime.block_on(async {
                for _ in 0..100 {
                    search().await;
                }
            });
        },
        || {
            runtime.block_on(async {
                for _ in 0..100 {
                    reference().await;
                }
            });
        },
    );
    runtime.block_on(workbench.shutdown());
}

criterion_group!(benches, bench_tool_search);
criterion_main!(benches);
