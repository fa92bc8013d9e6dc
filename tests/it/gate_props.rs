//! Properties of the gate over random specs, arguments and rule sets.
#![allow(clippy::unwrap_used)] // helpers outside #[test] fns unwrap too

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use switchboard::gate::ApprovalBroker;
use switchboard::policy::{GrantScope, Mode, Policy, RuleList, SessionGrants, Verdict};
use switchboard::tools::{Registry, Scope, Subject, ToolEffect, ToolSpec};

use crate::support::gate::{FakeTool, ctx};

const NAMES: [&str; 4] = ["fs", "srv__echo", "weather__now", "x"];
const SELECTORS: [&str; 3] = ["read", "write", "drop"];
const RULES: [&str; 12] = [
    "*",
    "fs",
    "srv__*",
    "weather__*",
    "x(read:*)",
    "*(write:*)",
    "*(delete:docs/**)",
    "fs(src/*)",
    "*(drop:*)",
    "weather__now(*:a)",
    "srv__echo(compute:*)",
    "nothing",
];

fn effect() -> impl Strategy<Value = ToolEffect> {
    prop::sample::select(ToolEffect::ALL.to_vec())
}

fn spec() -> impl Strategy<Value = ToolSpec> {
    (
        prop::sample::select(NAMES.to_vec()),
        effect(),
        any::<bool>(),
        prop::collection::vec(effect(), SELECTORS.len()),
        prop::option::of(prop::sample::select(SELECTORS.to_vec())),
    )
        .prop_map(|(name, default, selector, mapped, absent)| {
            let mut b = ToolSpec::builder(name)
                .default_effect(default)
                .subject(Subject::Argument("path".into()));
            if selector {
                b = b.effect_argument("op");
                for (value, effect) in SELECTORS.iter().zip(mapped) {
                    b = b.map_effect(value, effect);
                }
                if let Some(v) = absent {
                    b = b.effect_argument_default(v);
                }
            }
            b.build()
        })
}

fn call_args() -> impl Strategy<Value = Map<String, Value>> {
    let op = prop_oneof![
        Just(None),
        prop::sample::select(vec!["read", "WRITE", "Drop", "zap"]).prop_map(|s| Some(json!(s))),
        Just(Some(json!(7))),
    ];
    let path = prop::option::of(prop::sample::select(vec!["docs/a.md", "src/x", "a"]));
    (op, path).prop_map(|(op, path)| {
        let mut m = Map::new();
        if let Some(op) = op {
            m.insert("op".into(), op);
        }
        if let Some(p) = path {
            m.insert("path".into(), json!(p));
        }
        m
    })
}

fn rules() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(RULES.to_vec()), 0..5)
}

fn mode() -> impl Strategy<Value = Mode> {
    prop::sample::select(Mode::ALL.to_vec())
}

fn with_rules(mut policy: Policy, list: RuleList, rules: &[&str]) -> Policy {
    for r in rules {
        policy = policy.with_rule(list, r).unwrap();
    }
    policy
}

fn run<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

proptest! {
    /// Under a read-only scope no non-Read call reaches the tool, even with allow = ["*"]
    /// in full-auto.
    #[test]
    fn read_only_scope_never_runs_non_reads(
        spec in spec(), args in call_args(), allow in rules(), ask in rules(),
    ) {
        let effect = spec.effect_for(&args);
        let name = spec.name.clone();
        let policy = with_rules(Policy::new(Mode::FullAuto), RuleList::Allow, &allow);
        let policy = with_rules(policy.with_rule(RuleList::Allow, "*").unwrap(), RuleList::Ask, &ask);
        let (result, calls) = run(async {
            let registry = Registry::new(policy, Arc::new(ApprovalBroker::new(false)));
            let tool = Arc::new(FakeTool::new(spec));
            registry.register(tool.clone()).await.unwrap();
            let cx = ctx("run").with_scope(Scope::ReadOnly);
            let result = registry.invoke(&name, args, &cx).await.into_result();
            (result, tool.calls())
        });
        if effect != ToolEffect::Read {
            prop_assert_eq!(calls, 0);
            prop_assert!(result.is_error);
        }
    }

    /// In mode ask without allow rules every Compute/Write/Delete/Unknown call asks.
    #[test]
    fn ask_mode_without_allow_rules_asks(spec in spec(), args in call_args(), ask in rules()) {
        let effect = spec.effect_for(&args);
        prop_assume!(effect != ToolEffect::Read);
        let policy = with_rules(Policy::new(Mode::Ask), RuleList::Ask, &ask);
        let facts = spec.facts(&args, effect);
        prop_assert_eq!(policy.decide(&facts).verdict, Verdict::Ask);
    }

    /// A matching deny rule wins over allow and ask rules, any mode and session grants,
    /// and the tool never runs.
    #[test]
    fn deny_always_wins(
        spec in spec(), args in call_args(), mode in mode(),
        allow in rules(), ask in rules(), deny in rules(),
        deny_kind in 0..3usize, at in 0..6usize,
    ) {
        let effect = spec.effect_for(&args);
        let name = spec.name.clone();
        let matching = match deny_kind {
            0 => name.clone(),
            1 => "*".to_owned(),
            _ => format!("{name}(*:*)"),
        };
        let mut deny: Vec<String> = deny.into_iter().map(str::to_owned).collect();
        deny.insert(at.min(deny.len()), matching);
        let deny: Vec<&str> = deny.iter().map(String::as_str).collect();
        let policy = with_rules(Policy::new(mode), RuleList::Allow, &allow);
        let policy = with_rules(policy, RuleList::Ask, &ask);
        let policy = with_rules(policy, RuleList::Deny, &deny);
        let facts = spec.facts(&args, effect);
        let grants = SessionGrants::new();
        grants.add(GrantScope::offered_for(&facts));
        prop_assert_eq!(policy.decide_with(&facts, &grants).verdict, Verdict::Deny);

        let (result, calls) = run(async {
            let registry = Registry::new(policy, Arc::new(ApprovalBroker::new(true)));
            let tool = Arc::new(FakeTool::new(spec));
            registry.register(tool.clone()).await.unwrap();
            let result = registry.invoke(&name, args, &ctx("run")).await.into_result();
            (result, tool.calls())
        });
        prop_assert_eq!(calls, 0);
        prop_assert!(result.text_content().contains("denied by rule deny"));
    }
}
