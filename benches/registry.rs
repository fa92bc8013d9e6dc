//! `Registry::invoke` around a no-op Read tool: the cost of the gate itself.
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use switchboard::gate::ApprovalBroker;
use switchboard::policy::{Mode, Policy, RuleList};
use switchboard::tools::{CallOutcome, Origin, Registry, ToolContext, ToolEffect, ToolSpec};

mod support;
use support::Noop;

fn bench_invoke(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let policy = Policy::new(Mode::Ask)
        .with_rule(RuleList::Deny, "fs(delete:*)")
        .and_then(|p| p.with_rule(RuleList::Allow, "weather__*"))
        .expect("rules");
    let registry = Registry::new(policy, Arc::new(ApprovalBroker::new(true)));
    let spec = ToolSpec::builder("srv__noop")
        .default_effect(ToolEffect::Read)
        .build();
    runtime
        .block_on(registry.register(Arc::new(Noop(spec))))
        .expect("register");
    let ctx = ToolContext::new("bench", Origin::Model);
    let Value::Object(args) = json!({"path": "docs/a.md", "n": 1}) else {
        return;
    };
    c.bench_function("registry_invoke_noop_read", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = registry.invoke("srv__noop", args.clone(), &ctx).await;
            assert!(matches!(result, CallOutcome::Ran(ref r) if !r.is_error));
        });
    });
}

criterion_group!(benches, bench_invoke);
criterion_main!(benches);
