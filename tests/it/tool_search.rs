//! Tool search through a recording provider: the first request declares the direct
//! tools and `tool_search`; what a search finds is declared from the next request on,
//! appended, and a found tool's call passes the gate like any other.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use serde_json::json;
use switchboard::agent::exposure::ToolSearchOptions;
use switchboard::agent::{AgentEvent, Session, SessionOptions};
use switchboard::config::ToolSearchSetting;
use switchboard::gate::{ApprovalBroker, ApprovalDecision, CallEnd, GateEvent};
use switchboard::llm::ChatRequest;
use switchboard::llm::scripted_script::{ScriptedCall, ScriptedTurn};
use switchboard::policy::{Mode, Policy};
use switchboard::tools::search::{TOOL_SEARCH, ensure_registered};
use switchboard::tools::{Registry, ToolEffect, ToolSpec};

use crate::support::gate::FakeTool;
use crate::support::llm::Recording;

fn tool(name: &str, description: &str, effect: ToolEffect) -> Arc<FakeTool> {
    Arc::new(FakeTool::new(
        ToolSpec::builder(name)
            .description(description)
            .input_schema(json!({"type": "object", "properties": {"city": {"type": "string"}}}))
            .default_effect(effect)
            .build(),
    ))
}

/// A registry with one built-in-like tool, a forecast, a deletion and 40 others on
/// server `big`; the gate asks in `Mode::Ask` and nobody answers (headless).
async fn registry() -> (Arc<Registry>, Arc<FakeTool>, Arc<FakeTool>) {
    let registry = Arc::new(Registry::new(
        Policy::new(Mode::Ask),
        Arc::new(ApprovalBroker::new(false)),
    ));
    let forecast = tool(
        "big__get_forecast",
        "Weather forecast for a city.",
        ToolEffect::Read,
    );
    let delete = tool(
        "big__delete_city",
        "Delete a saved place.",
        ToolEffect::Delete,
    );
    registry.register(forecast.clone()).await.unwrap();
    registry.register(delete.clone()).await.unwrap();
    for i in 0..40 {
        let filler = tool(
            &format!("big__report_{i}"),
            "Summarise the quarterly sales figures by region and product line.",
            ToolEffect::Read,
        );
        registry.register(filler).await.unwrap();
    }
    registry
        .register(tool("notes", "Keep a note.", ToolEffect::Write))
        .await
        .unwrap();
    ensure_registered(&registry).await.unwrap();
    (registry, forecast, delete)
}

fn call(name: &str, args: &serde_json::Value) -> ScriptedTurn {
    ScriptedTurn {
        tool_calls: vec![ScriptedCall {
            id: None,
            name: name.into(),
            arguments: args.as_object().unwrap().clone(),
        }],
        ..ScriptedTurn::default()
    }
}

fn answer(text: &str) -> ScriptedTurn {
    ScriptedTurn {
        text: text.into(),
        ..ScriptedTurn::default()
    }
}

struct Run {
    events: Vec<AgentEvent>,
    requests: Vec<ChatRequest>,
}

async fn run(registry: Arc<Registry>, search: ToolSearchOptions, turns: Vec<ScriptedTurn>) -> Run {
    let provider = Recording::new(turns);
    let mut options = SessionOptions::new(provider.clone(), registry);
    options.tool_search = search;
    let handle = Session::spawn(options);
    let (_, events) =
        crate::support::headless::json_turn(handle, "go", ApprovalDecision::Deny { reason: None })
            .await;
    let requests = provider.requests();
    Run { events, requests }
}

fn on() -> ToolSearchOptions {
    ToolSearchOptions {
        setting: ToolSearchSetting::On,
        deferred_servers: ["big".to_owned()].into(),
        ..ToolSearchOptions::default()
    }
}

fn declared(request: &ChatRequest) -> Vec<&str> {
    request.tools.iter().map(|t| t.name.as_str()).collect()
}

fn finished(events: &[AgentEvent], tool: &str) -> Option<CallEnd> {
    events.iter().find_map(|e| match e {
        AgentEvent::Gate(GateEvent::ToolCallFinished {
            tool: t, outcome, ..
        }) if t == tool => Some(*outcome),
        _ => None,
    })
}

#[tokio::test]
async fn a_search_declares_what_it_found_and_the_call_passes_the_gate() {
    let (registry, forecast, _) = registry().await;
    let run = run(
        registry,
        on(),
        vec![
            call(TOOL_SEARCH, &json!({"query": "weather forecast"})),
            call("big__get_forecast", &json!({"city": "Paris"})),
            answer("sunny"),
        ],
    )
    .await;
    assert_eq!(run.requests.len(), 3);
    // The first request: the direct tool and the search, not the 42 on `big`.
    assert_eq!(declared(&run.requests[0]), ["notes", TOOL_SEARCH]);
    // The next ones: the found tool appended after them.
    assert_eq!(
        declared(&run.requests[1]),
        ["notes", TOOL_SEARCH, "big__get_forecast"]
    );
    assert_eq!(declared(&run.requests[2]), declared(&run.requests[1]));
    let loaded = run.events.iter().find_map(|e| match e {
        AgentEvent::ToolsLoaded { tools, .. } => Some(tools.clone()),
        _ => None,
    });
    assert_eq!(loaded, Some(vec!["big__get_forecast".to_owned()]));
    // Both calls went through the gate: the search is a read, the forecast too.
    assert_eq!(finished(&run.events, TOOL_SEARCH), Some(CallEnd::Ok));
    assert_eq!(
        finished(&run.events, "big__get_forecast"),
        Some(CallEnd::Ok)
    );
    assert_eq!(forecast.calls(), 1);
    let report = run.events.iter().find_map(|e| match e {
        AgentEvent::ToolsOffered { report, .. } => Some(report.clone()),
        _ => None,
    });
    let report = report.unwrap();
    assert!(report.search);
    assert_eq!((report.offered, report.total), (2, 43));
    assert!(
        report.offered_tokens * 10 < report.total_tokens,
        "{report:?}"
    );
}

#[tokio::test]
async fn a_found_tool_that_deletes_is_still_refused_without_an_answer() {
    let (registry, _, delete) = registry().await;
    let run = run(
        registry,
        on(),
        vec![
            call(TOOL_SEARCH, &json!({"query": "select:big__delete_city"})),
            call("big__delete_city", &json!({"city": "Paris"})),
            answer("could not"),
        ],
    )
    .await;
    assert_eq!(
        declared(&run.requests[1]),
        ["notes", TOOL_SEARCH, "big__delete_city"]
    );
    assert_eq!(
        finished(&run.events, "big__delete_city"),
        Some(CallEnd::Denied)
    );
    assert_eq!(delete.calls(), 0);
}

#[tokio::test]
async fn auto_declares_everything_until_the_tools_pass_the_threshold() {
    let (registry, _, _) = registry().await;
    let auto = ToolSearchOptions {
        setting: ToolSearchSetting::Auto,
        ..on()
    };
    // 43 small tools are far below 5 % of 128k tokens: all declared, no search tool.
    let run1 = run(Arc::clone(&registry), auto.clone(), vec![answer("ok")]).await;
    assert_eq!(run1.requests[0].tools.len(), 43);
    assert!(!declared(&run1.requests[0]).contains(&TOOL_SEARCH));
    // A 20k-token window: they pass 5 % of it, and search takes over.
    let small = ToolSearchOptions {
        window: 20_000,
        ..auto
    };
    let run2 = run(registry, small, vec![answer("ok")]).await;
    assert_eq!(declared(&run2.requests[0]), ["notes", TOOL_SEARCH]);
}
