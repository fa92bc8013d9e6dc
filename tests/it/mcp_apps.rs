//! MCP Apps (https://github.com/modelcontextprotocol/ext-apps,
//! `specification/2026-01-26/apps.mdx`) against the test server's `--apps` tools:
//! tools with a UI are marked in `catalog --json` and the TUI, an app-only tool is
//! never declared to a model (in any provider's request or `catalog --format`) and a
//! model's call to it is refused, and a UI tool's `structuredContent` stays out of the
//! model's context when the tool gave text.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use serde_json::Value;
use switchboard::agent::{AgentEvent, Session, SessionOptions};
use switchboard::gate::ApprovalDecision;
use switchboard::llm::scripted_script::{ScriptedCall, ScriptedTurn};
use switchboard::llm::{ChatRequest, Endpoint, Message};
use switchboard::policy::Origin;
use switchboard::tools::{CallOutcome, ToolContext};
use switchboard::workbench::{Workbench, WorkbenchOptions};

use crate::support::llm::Recording;
use crate::support::mcp::SERVER_BIN;
use crate::support::trust_folder;

const APP_ONLY: &str = "apps__clock_tick";

fn cli_env() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let config = format!("[servers.apps]\ncommand = {SERVER_BIN:?}\nargs = [\"--apps\"]\n");
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    trust_folder(dir.path(), &dir.path().join(".local/state"));
    dir
}

fn stdout(dir: &tempfile::TempDir, args: &[&str]) -> String {
    let out = crate::support::cli::switchboard_in(dir.path())
        .args(args)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn catalog_json_names_each_ui_and_marks_the_app_only_tool() {
    let dir = cli_env();
    let json: Value =
        serde_json::from_str(&stdout(&dir, &["catalog", "--server", "apps", "--json"])).unwrap();
    let tools = json["servers"][0]["tools"].as_array().unwrap();
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap();
    assert_eq!(tool("clock")["ui"], "ui://test/clock.html");
    // The deprecated flat `_meta["ui/resourceUri"]` is read too.
    assert_eq!(tool("legacy_clock")["ui"], "ui://test/clock.html");
    assert_eq!(tool("clock_tick")["ui"], "ui://test/clock.html");
    assert_eq!(tool("clock_tick")["app_only"], true);
    assert!(tool("clock").get("app_only").is_none());
    assert!(tool("echo").get("ui").is_none());
    // Listed for the person, with its mark.
    let human = stdout(&dir, &["catalog", "--server", "apps"]);
    assert!(human.contains("(ui, app only)"), "{human}");
    // The UI resource is readable though not listed.
    let read = stdout(&dir, &["read", "apps", "ui://test/clock.html", "--json"]);
    assert!(read.contains("text/html;profile=mcp-app"), "{read}");
}

#[test]
fn catalog_format_never_declares_the_app_only_tool() {
    let dir = cli_env();
    for format in ["openai", "anthropic", "gemini"] {
        let out = stdout(&dir, &["catalog", "--server", "apps", "--format", format]);
        assert!(out.contains("apps__clock\""), "{format}: {out}");
        assert!(out.contains("apps__legacy_clock"), "{format}: {out}");
        assert!(!out.contains("clock_tick"), "{format}: {out}");
    }
}

fn call(id: &str, name: &str) -> ScriptedTurn {
    ScriptedTurn {
        tool_calls: vec![ScriptedCall {
            id: Some(id.into()),
            name: name.into(),
            arguments: serde_json::Map::new(),
        }],
        ..ScriptedTurn::default()
    }
}

/// A workbench with the test server (`--apps`) as `apps`, every call allowed.
async fn workbench(dir: &tempfile::TempDir) -> (Workbench, Arc<switchboard::mcp::HubSnapshot>) {
    let state = dir.path().join("state");
    let dirs = switchboard::paths::Dirs::new(dir.path(), dir.path(), &state, dir.path());
    let mut config = switchboard::config::Config::default();
    config.servers.insert(
        "apps".into(),
        crate::support::mcp::stdio_config(&["--apps"]),
    );
    let options = WorkbenchOptions {
        interactive: true,
        mode: Some(switchboard::policy::Mode::FullAuto),
        ..WorkbenchOptions::default()
    };
    let workbench = Workbench::start(&config, &dirs, options).await.unwrap();
    let snapshot = workbench.settle().await;
    workbench.sync_now().await;
    (workbench, snapshot)
}

fn tool_answer<'a>(request: &'a ChatRequest, id: &str) -> (&'a str, bool) {
    request
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } if call_id == id => Some((content.as_str(), *is_error)),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn a_model_is_never_offered_the_app_only_tool_and_its_call_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (workbench, _) = workbench(&dir).await;
    let provider = Recording::new(vec![
        call("c1", APP_ONLY),
        call("c2", "apps__clock"),
        ScriptedTurn {
            text: "done".into(),
            ..ScriptedTurn::default()
        },
    ]);
    let handle = Session::spawn(SessionOptions::new(
        provider.clone(),
        Arc::clone(&workbench.registry),
    ));
    let (_, events): (_, Vec<AgentEvent>) = crate::support::headless::json_turn(
        handle,
        "what time is it?",
        ApprovalDecision::Deny { reason: None },
    )
    .await;
    let requests = provider.requests();
    assert_eq!(requests.len(), 3, "{events:?}");
    let declared: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert!(declared.contains(&"apps__clock"), "{declared:?}");
    assert!(declared.contains(&"apps__legacy_clock"), "{declared:?}");
    assert!(!declared.contains(&APP_ONLY), "{declared:?}");
    // Nor in any provider's request body (tools, system prompt, anything).
    let endpoint = Endpoint::new("test", "http://127.0.0.1:9", "k", "m", None).unwrap();
    let bodies = [
        switchboard::llm::openai::request_body(&requests[0], &endpoint),
        switchboard::llm::anthropic::request_body(&requests[0], &endpoint),
        switchboard::llm::gemini::request_body(&requests[0], &endpoint),
        switchboard::llm::bedrock::request_body(&requests[0], &endpoint),
        switchboard::llm::cohere::request_body(&requests[0], &endpoint),
    ];
    for body in &bodies {
        assert!(body.to_string().contains("apps__clock"), "{body}");
        assert!(!body.to_string().contains("clock_tick"), "{body}");
    }
    // The model's call anyway: refused by the gate, with a reason it can read.
    let (refusal, is_error) = tool_answer(&requests[2], "c1");
    assert!(is_error);
    assert!(refusal.contains("app-only"), "{refusal}");
    // A UI tool's text is what the model reads; the UI's structured content is not.
    let (clock, is_error) = tool_answer(&requests[2], "c2");
    assert!(!is_error);
    assert_eq!(clock, "It is 12:00 UTC.");
    // The result event still carries the structured content (the result view, replay).
    assert!(events.iter().any(|e| matches!(e,
        AgentEvent::ToolResult { tool, structured: Some(s), .. }
            if tool == "apps__clock" && s["ui_only_marker"] == "for-the-app")));
    workbench.shutdown().await;
}

#[tokio::test]
async fn the_person_may_still_call_the_app_only_tool_and_a_sub_agent_may_not() {
    let dir = tempfile::tempdir().unwrap();
    let (workbench, _) = workbench(&dir).await;
    let manual = ToolContext::new("r1", Origin::Manual);
    match workbench
        .registry
        .invoke(APP_ONLY, serde_json::Map::new(), &manual)
        .await
    {
        CallOutcome::Ran(result) => assert_eq!(result.text_content(), "ticked"),
        other => panic!("{other:?}"),
    }
    let agent = ToolContext::new("r2", Origin::Agent);
    match workbench
        .registry
        .invoke(APP_ONLY, serde_json::Map::new(), &agent)
        .await
    {
        CallOutcome::Denied { message, .. } => assert!(message.contains("app-only"), "{message}"),
        other => panic!("{other:?}"),
    }
    workbench.shutdown().await;
}

#[tokio::test]
async fn the_tui_catalog_marks_ui_tools_and_the_detail_names_the_resource() {
    use switchboard::tui::state::{Overlay, Pane};
    let dir = tempfile::tempdir().unwrap();
    let (workbench, snapshot) = workbench(&dir).await;
    let mut state = crate::support::tui::state();
    state.focus = Pane::Catalog;
    state.catalog.items =
        switchboard::tui::hub_view::catalog(&workbench.registry.specs(), &snapshot);
    state.catalog.filter.query = "clock".into();
    insta::assert_snapshot!("apps_catalog", crate::support::tui::shot(&state, 100, 24));
    state.overlays.replace_top(Overlay::Detail {
        scroll: 0,
        raw: false,
    });
    insta::assert_snapshot!(
        "apps_clock_detail",
        crate::support::tui::shot(&state, 100, 24)
    );
    // The app-only tool (second of the filtered rows) says so in its detail.
    state.catalog.sel = 1;
    let detail = crate::support::tui::shot(&state, 100, 24);
    assert!(detail.contains("apps__clock_tick"), "{detail}");
    assert!(
        detail.contains("app only: only its app may call it; never offered to a model"),
        "{detail}"
    );
    workbench.shutdown().await;
}
