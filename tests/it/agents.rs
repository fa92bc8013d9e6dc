//! Sub-agents as tools (`[agents.NAME]` → `agent__NAME`), with the offline scripted
//! provider: every call a sub-agent makes passes the gate as that agent (scope,
//! allowlist, approvals, audit), nesting is bounded, cancelling the caller stops the
//! agent, and a chain feeds each output to the next agent.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use switchboard::agent::{Session, SessionOptions};
use switchboard::gate::{ApprovalBroker, ApprovalDecision, GateEvent, GateObserver};
use switchboard::llm::ScriptedProvider;
use switchboard::llm::scripted_script::parse_script;
use switchboard::policy::{AuditLog, Mode, Policy};
use switchboard::tools::builtin_specs::fs_spec;
use switchboard::tools::{
    CallOutcome, Origin, Registry, Tool, ToolContext, ToolEffect, ToolResult, ToolSpec,
};

use crate::support;
use crate::support::gate::FakeTool;

/// Echoes its `text` argument: shows what an agent was given.
struct Echo(ToolSpec);

#[async_trait::async_trait]
impl Tool for Echo {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn invoke(&self, args: Map<String, Value>, _ctx: &ToolContext) -> ToolResult {
        ToolResult::text(format!("echo: {}", args["text"].as_str().unwrap_or("")))
    }
}

struct World {
    registry: Arc<Registry>,
    fs: Arc<FakeTool>,
    audit: PathBuf,
    dir: tempfile::TempDir,
}

impl World {
    fn audit_lines(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.audit)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// A registry with `fs` (a fake), `echo` and the agents of `agents_toml`; each
/// `script NAME` in it is replaced by the path of a script file written from
/// `scripts`.
async fn world(
    agents_toml: &str,
    scripts: &[(&str, &str)],
    mode: Mode,
    interactive: bool,
) -> World {
    let dir = tempfile::tempdir().unwrap();
    let mut toml = agents_toml.to_owned();
    for (name, body) in scripts {
        let path = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&path, body).unwrap();
        toml = toml.replace(&format!("@{name}"), &path.display().to_string());
    }
    let config = switchboard::settings::parse_str(&toml, Path::new("t.toml")).unwrap();
    let audit = dir.path().join("audit.jsonl");
    let broker = Arc::new(ApprovalBroker::new(interactive));
    let registry = Arc::new(
        Registry::new(Policy::new(mode), broker).with_audit(AuditLog::open(&audit, false).unwrap()),
    );
    let fs = Arc::new(FakeTool::new(fs_spec()));
    registry.register(fs.clone()).await.unwrap();
    let echo = ToolSpec::builder("echo")
        .default_effect(ToolEffect::Read)
        .build();
    registry.register(Arc::new(Echo(echo))).await.unwrap();
    let failed = switchboard::agents::register_agents(&registry, &config, dir.path()).await;
    assert!(failed.is_empty(), "{failed:?}");
    World {
        registry,
        fs,
        audit,
        dir,
    }
}

/// One main-agent turn replaying `script`, printed as JSONL events.
async fn main_turn(w: &World, script: &str) -> Vec<Value> {
    let turns = parse_script(script, "main").unwrap();
    let options = SessionOptions::new(
        Arc::new(ScriptedProvider::with_script(turns)),
        Arc::clone(&w.registry),
    );
    let handle = Session::spawn(options);
    crate::support::headless::json_turn(handle, "go", ApprovalDecision::Once)
        .await
        .1
}

const SUB_WRITES: &str = r#"{"tool_calls":[{"name":"fs","arguments":{"operation":"write","path":"a.txt","content":"x"}}]}
{"text":"the write was refused"}"#;
const MAIN_CALLS_SCOUT: &str = r#"{"tool_calls":[{"id":"m1","name":"agent__scout","arguments":{"task":"write a.txt"}}]}
{"text":"main done"}"#;

#[tokio::test]
async fn a_read_only_sub_agent_cannot_write_whatever_the_mode() {
    let toml = "[providers.sub]\nkind = \"scripted\"\nscript = \"@sub\"\n\n[agents.scout]\nprovider = \"sub\"\n";
    let w = world(toml, &[("sub", SUB_WRITES)], Mode::FullAuto, false).await;
    let lines = main_turn(&w, MAIN_CALLS_SCOUT).await;
    assert_eq!(w.fs.calls(), 0, "the write must not run");
    let refused = lines
        .iter()
        .find(|l| l["type"] == "tool_call_finished" && l["tool"] == "fs")
        .expect("the sub-agent's call is reported to the caller");
    assert_eq!(refused["outcome"], "denied");
    assert_eq!(refused["ruling"]["by"], "scope");
    assert!(
        refused["call_id"]
            .as_str()
            .unwrap()
            .starts_with("m1/scout/"),
        "{refused}"
    );
    let started = lines
        .iter()
        .find(|l| l["type"] == "tool_call_started" && l["tool"] == "fs")
        .unwrap();
    assert_eq!(started["origin"], "agent");
    let result = lines
        .iter()
        .find(|l| l["type"] == "tool_result" && l["tool"] == "agent__scout")
        .unwrap();
    assert_eq!(result["content"], "the write was refused");
    assert_eq!(result["is_error"], false);
    let audit = w.audit_lines();
    let fs_line = audit.iter().find(|l| l["tool"] == "fs").unwrap();
    assert_eq!(
        (
            &fs_line["agent"],
            &fs_line["origin"],
            &fs_line["decided_by"]
        ),
        (&json!("scout"), &json!("agent"), &json!("scope"))
    );
    let run = audit.iter().find(|l| l["event"] == "agent_run").unwrap();
    assert_eq!(
        (&run["agent"], &run["denied"], &run["steps"]),
        (&json!("scout"), &json!(1), &json!(2))
    );
    assert!(
        !run.to_string().contains("a.txt"),
        "no task text in the trace: {run}"
    );
}

#[tokio::test]
async fn a_sub_agent_is_offered_and_allowed_only_its_tools() {
    let sub = r#"{"tool_calls":[{"name":"fs","arguments":{"operation":"read","path":"a.txt"}}]}
{"text":"done"}"#;
    let toml = "[providers.sub]\nkind = \"scripted\"\nscript = \"@sub\"\n\n[agents.scout]\nprovider = \"sub\"\ntools = [\"echo\"]\n\n[agents.plain]\ntools = [\"echo\"]\n";
    let w = world(toml, &[("sub", sub)], Mode::FullAuto, false).await;
    let ctx = ToolContext::new("r", Origin::Cli);
    let task = |t: &str| support::gate::args(json!({"task": t}));
    let out = w
        .registry
        .invoke("agent__scout", task("read a.txt"), &ctx)
        .await;
    assert!(
        matches!(out, CallOutcome::Ran(ref r) if !r.is_error),
        "{out:?}"
    );
    assert_eq!(w.fs.calls(), 0);
    let audit = w.audit_lines();
    let fs_line = audit.iter().find(|l| l["tool"] == "fs").unwrap();
    assert_eq!(fs_line["rule"], "the agent's tool allowlist");
    // The offline provider lists the tools it was offered.
    let CallOutcome::Ran(r) = w.registry.invoke("agent__plain", task("hello"), &ctx).await else {
        panic!()
    };
    assert!(
        r.text_content().contains("Tools offered: echo."),
        "{}",
        r.text_content()
    );
}

/// Records gate events; cancels a token at the first approval request.
struct Watcher(Mutex<Vec<GateEvent>>, tokio_util::sync::CancellationToken);

impl GateObserver for Watcher {
    fn event(&self, event: GateEvent) {
        if matches!(event, GateEvent::ApprovalRequested(_)) {
            self.1.cancel();
        }
        self.0.lock().unwrap().push(event);
    }
}

#[tokio::test]
async fn a_full_scope_agent_asks_in_the_callers_pane_and_cancelling_stops_it() {
    let toml = "[providers.sub]\nkind = \"scripted\"\nscript = \"@sub\"\n\n[agents.scout]\nprovider = \"sub\"\nscope = \"full\"\n";
    let w = world(toml, &[("sub", SUB_WRITES)], Mode::Ask, true).await;
    let cancel = tokio_util::sync::CancellationToken::new();
    let watcher = Arc::new(Watcher(Mutex::default(), cancel.clone()));
    let ctx = ToolContext::new("r", Origin::Model)
        .with_cancel(cancel)
        .with_observer(watcher.clone());
    let args = support::gate::args(json!({"task": "write"}));
    let out = tokio::time::timeout(
        Duration::from_secs(10),
        w.registry.invoke("agent__scout", args, &ctx),
    )
    .await
    .unwrap();
    assert_eq!(out, CallOutcome::Cancelled);
    // The sub-agent's pending approval is withdrawn and its call ends aborted.
    let mut ended = false;
    for _ in 0..100 {
        ended = watcher.0.lock().unwrap().iter().any(|e| {
            matches!(e, GateEvent::ToolCallFinished { tool, outcome, .. }
                if tool == "fs" && *outcome == switchboard::gate::CallEnd::Aborted)
        });
        if ended {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ended, "{:?}", watcher.0.lock().unwrap());
    let events = watcher.0.lock().unwrap();
    let request = events
        .iter()
        .find_map(|e| match e {
            GateEvent::ApprovalRequested(r) => Some(r.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        (request.client.as_deref(), request.origin),
        (Some("scout"), Origin::Agent)
    );
    assert_eq!(w.fs.calls(), 0);
}

#[tokio::test]
async fn agents_nest_at_most_three_deep() {
    let deep = r#"{"tool_calls":[{"name":"agent__deep","arguments":{"task":"again"}}]}
{"text":"level done"}"#;
    let toml = "[providers.sub]\nkind = \"scripted\"\nscript = \"@deep\"\n\n[agents.deep]\nprovider = \"sub\"\n";
    let w = world(toml, &[("deep", deep)], Mode::Ask, false).await;
    let ctx = ToolContext::new("r", Origin::Cli);
    let out = w
        .registry
        .invoke(
            "agent__deep",
            support::gate::args(json!({"task": "go"})),
            &ctx,
        )
        .await;
    assert!(
        matches!(out, CallOutcome::Ran(ref r) if r.text_content() == "level done"),
        "{out:?}"
    );
    let audit = w.audit_lines();
    let runs: Vec<&Value> = audit.iter().filter(|l| l["event"] == "agent_run").collect();
    let depths: Vec<&Value> = runs.iter().map(|r| &r["depth"]).collect();
    assert_eq!(depths, [&json!(3), &json!(2), &json!(1)], "{runs:?}");
    // Each level counts only its own call; the deepest one's was refused.
    assert!(runs.iter().all(|r| r["tool_calls"] == 1), "{runs:?}");
    assert_eq!(runs[0]["failed"], 1, "{runs:?}");
    let _ = &w.dir;
}

#[tokio::test]
async fn a_chain_feeds_each_output_to_the_next_agent() {
    let first = r#"{"text":"echo {\"text\":\"from-first\"}"}"#;
    let toml = "[providers.one]\nkind = \"scripted\"\nscript = \"@first\"\n\n[agents.first]\nprovider = \"one\"\n\n[agents.second]\ntools = [\"echo\"]\n\n[agents.both]\nkind = \"chain\"\nagents = [\"first\", \"second\"]\n";
    let w = world(toml, &[("first", first)], Mode::Ask, false).await;
    let ctx = ToolContext::new("r", Origin::Cli);
    let out = w
        .registry
        .invoke(
            "agent__both",
            support::gate::args(json!({"task": "start"})),
            &ctx,
        )
        .await;
    let CallOutcome::Ran(r) = out else {
        panic!("{out:?}")
    };
    assert!(
        r.text_content().contains("echo: from-first"),
        "{}",
        r.text_content()
    );
    assert_eq!(r.metadata["kind"], "chain");
}
