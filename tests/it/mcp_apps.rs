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

/// A TUI state with the test server's catalog and one finished call of `tool` in the
/// transcript (its result text and `structuredContent`).
fn tui_with_call(
    workbench: &Workbench,
    snapshot: &switchboard::mcp::HubSnapshot,
    tool: &str,
) -> switchboard::tui::State {
    use switchboard::gate::CallId;
    use switchboard::tui::state::Pane;
    let mut state = crate::support::tui::booted();
    state.chat.entries.clear();
    state.catalog.items =
        switchboard::tui::hub_view::catalog(&workbench.registry.specs(), snapshot);
    crate::support::tui::ev(
        &mut state,
        AgentEvent::ToolCallRequested {
            run_id: "r1".into(),
            call_id: CallId::new("c1"),
            tool: tool.into(),
            args: serde_json::json!({"zone": "UTC"}),
            origin: Origin::Model,
        },
    );
    crate::support::tui::ev(
        &mut state,
        AgentEvent::ToolResult {
            run_id: "r1".into(),
            call_id: CallId::new("c1"),
            tool: tool.into(),
            is_error: false,
            content: "12:00 UTC".into(),
            truncated: false,
            outcome: None,
            structured: Some(serde_json::json!({"time": "12:00"})),
        },
    );
    state.focus = Pane::Chat;
    state
}

/// `o` in Chat opens the app of the result in view: the command carries the tool,
/// the call's arguments and its result as MCP sends it.
#[tokio::test]
async fn o_on_a_ui_result_asks_the_executor_to_open_its_app() {
    use switchboard::keymap::Key;
    use switchboard::tui::{AppCmd, AppOpen, Cmd, Msg, update};
    let dir = tempfile::tempdir().unwrap();
    let (workbench, snapshot) = workbench(&dir).await;
    let mut state = tui_with_call(&workbench, &snapshot, "apps__clock");
    let status = crate::support::tui::shot(&state, 100, 24);
    assert!(status.contains("o app"), "{status}");
    let cmds = update(&mut state, Msg::Key(Key::char('o')));
    let expected = AppOpen {
        server: "apps".into(),
        tool: "clock".into(),
        arguments: serde_json::json!({"zone": "UTC"})
            .as_object()
            .unwrap()
            .clone(),
        result: Ok(serde_json::json!({
            "content": [{"type": "text", "text": "12:00 UTC"}],
            "isError": false,
            "structuredContent": {"time": "12:00"},
        })),
    };
    assert_eq!(cmds, vec![Cmd::App(AppCmd::Open(Box::new(expected)))]);
    workbench.shutdown().await;
}

/// A result of a tool without a UI has no app: `o` says so, and the key is not
/// offered in the status bar.
#[tokio::test]
async fn o_without_a_ui_result_says_there_is_none() {
    use switchboard::keymap::Key;
    use switchboard::tui::{Msg, update};
    let dir = tempfile::tempdir().unwrap();
    let (workbench, snapshot) = workbench(&dir).await;
    let mut state = tui_with_call(&workbench, &snapshot, "apps__echo");
    assert!(!crate::support::tui::shot(&state, 100, 24).contains("o app"));
    assert!(update(&mut state, Msg::Key(Key::char('o'))).is_empty());
    let screen = crate::support::tui::shot(&state, 100, 24);
    assert!(
        screen.contains("no tool result with an MCP App in the transcript"),
        "{screen}"
    );
    workbench.shutdown().await;
}

/// The host's address goes to the browser and the transcript; what the app says is
/// shown, sanitised, never sent; its log goes to the Logs pane.
#[tokio::test]
async fn an_opened_app_and_what_it_says_are_shown_in_the_transcript() {
    use switchboard::apps::AppNote;
    use switchboard::tui::{Cmd, Msg, UiCmd, update};
    let dir = tempfile::tempdir().unwrap();
    let (workbench, snapshot) = workbench(&dir).await;
    let mut state = tui_with_call(&workbench, &snapshot, "apps__clock");
    let url = "http://127.0.0.1:40215/s/0123abcd/".to_owned();
    let cmds = update(
        &mut state,
        Msg::AppOpened {
            app: "apps__clock".into(),
            result: Ok(url.clone()),
        },
    );
    assert_eq!(cmds, vec![Cmd::Ui(UiCmd::OpenUrl(url))]);
    for note in [
        AppNote::Message {
            app: "ui://test/clock.html".into(),
            text: "set an alarm\u{1b}]0;owned\u{7} at 7".into(),
        },
        AppNote::Context {
            app: "ui://test/clock.html".into(),
            text: "the person looks at UTC".into(),
        },
        AppNote::Link {
            app: "ui://test/clock.html".into(),
            url: "https://example.com/tz".into(),
            opened: false,
        },
        AppNote::Log {
            app: "ui://test/clock.html".into(),
            level: "warning".into(),
            text: "tick late".into(),
        },
    ] {
        assert!(update(&mut state, Msg::App(note)).is_empty());
    }
    let log = state.logs.lines.back().unwrap();
    assert_eq!(log.message, "tick late");
    let texts: Vec<&str> = state.chat.entries.iter().map(|e| e.text.as_str()).collect();
    assert!(texts.iter().all(|t| !t.contains('\u{1b}')), "{texts:?}");
    crate::support::tui::zero_durations(&mut state);
    insta::assert_snapshot!("apps_opened", crate::support::tui::shot(&state, 100, 24));
    let failed = update(
        &mut state,
        Msg::AppOpened {
            app: "apps__clock".into(),
            result: Err("apps no longer lists clock".into()),
        },
    );
    assert!(failed.is_empty());
    assert_eq!(
        state.chat.entries.last().unwrap().text,
        "cannot open the app of apps__clock: apps no longer lists clock"
    );
    workbench.shutdown().await;
}

/// The executor reads the tool's page, starts its host and answers with the address,
/// where the host page is served.
#[tokio::test]
async fn the_executor_opens_the_app_and_its_host_serves_the_page() {
    use switchboard::agent::EventSink;
    use switchboard::tui::executor::Executor;
    use switchboard::tui::{AppCmd, AppOpen, Msg};
    let dir = tempfile::tempdir().unwrap();
    let (workbench, snapshot) = workbench(&dir).await;
    let state = tui_with_call(&workbench, &snapshot, "apps__clock");
    let (tx, _route) = tokio::sync::mpsc::unbounded_channel();
    let (inbox, mut inbox_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut exec = Executor::new(
        state,
        Arc::clone(&workbench.registry),
        EventSink::new(tx, None),
        inbox,
    )
    .with_hub(workbench.hub.clone());
    let open = AppOpen {
        server: "apps".into(),
        tool: "clock".into(),
        arguments: serde_json::Map::new(),
        result: Ok(serde_json::json!({"content": [{"type": "text", "text": "12:00"}]})),
    };
    exec.execute(AppCmd::Open(Box::new(open)).into());
    let url = loop {
        if let Msg::AppOpened { app, result } =
            crate::support::within(inbox_rx.recv()).await.unwrap()
        {
            assert_eq!(app, "apps__clock");
            break result.unwrap();
        }
    };
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let page = reqwest::get(&url).await.unwrap();
    assert_eq!(page.status(), 200);
    // A tool without a UI cannot be opened, and says why.
    let none = AppOpen {
        server: "apps".into(),
        tool: "echo".into(),
        arguments: serde_json::Map::new(),
        result: Err("the call has not finished".into()),
    };
    exec.execute(AppCmd::Open(Box::new(none)).into());
    let why = loop {
        if let Msg::AppOpened { result, .. } =
            crate::support::within(inbox_rx.recv()).await.unwrap()
        {
            break result.unwrap_err();
        }
    };
    assert_eq!(why, "echo has no MCP App");
    workbench.shutdown().await;
}

/// A call an open app makes has no request before it: its card opens when it reaches
/// the gate, marked as the app's, and ends with the gate's summary.
#[test]
fn an_apps_call_gets_a_card_of_its_own() {
    use switchboard::gate::{CallEnd, CallId, GateEvent, Ruling};
    use switchboard::policy::DecidedBy;
    use switchboard::tools::ToolEffect;
    let mut state = crate::support::tui::booted();
    state.chat.entries.clear();
    let call = |state: &mut switchboard::tui::State, n: u32, summary: &str| {
        let id = CallId::new(format!("app-call-{n}"));
        crate::support::tui::gate(
            state,
            GateEvent::ToolCallStarted {
                call_id: id.clone(),
                run_id: format!("app-{n}"),
                tool: "basic__get-time".into(),
                effect: ToolEffect::Read,
                origin: Origin::App,
            },
        );
        crate::support::tui::gate(
            state,
            GateEvent::ToolCallFinished {
                call_id: id,
                run_id: format!("app-{n}"),
                tool: "basic__get-time".into(),
                outcome: CallEnd::Ok,
                ruling: Some(Ruling::new(DecidedBy::Policy, "allow basic__get-time")),
                summary: summary.into(),
                duration_ms: 12,
            },
        );
    };
    call(&mut state, 1, "2026-12-06T01:14:10.273Z");
    let screen = crate::support::tui::shot(&state, 140, 24);
    assert!(
        screen.contains("app → basic__get-time · read · ok · 12 ms"),
        "{screen}"
    );
    assert!(screen.contains("2026-12-06T01:14:10.273Z"), "{screen}");
    // A page that polls: the next calls of the tool take the card over.
    call(&mut state, 2, "2026-12-06T01:14:12.273Z");
    call(&mut state, 3, "2026-12-06T01:14:14.273Z");
    assert_eq!(state.chat.entries.len(), 1);
    let screen = crate::support::tui::shot(&state, 140, 24);
    assert!(
        screen.contains("app → basic__get-time · read · ok · call 3 · 12 ms"),
        "{screen}"
    );
    assert!(
        screen.contains("01:14:14.273Z") && !screen.contains("01:14:10"),
        "{screen}"
    );
}
