//! The Tasks view: a call the real test server turns into a task shows there (status,
//! server, tool, age, poll interval) as the hub follows it; Enter asks the server
//! again (the result once done), `x` cancels it — in both protocol generations.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use switchboard::config::ProtocolChoice;
use switchboard::keymap::{Key, KeyCode, Layer};
use switchboard::mcp::TaskView;
use switchboard::tui::{Msg, State, update};

fn view(status: &str, message: Option<&str>) -> TaskView {
    TaskView {
        server: "build".into(),
        task_id: "task-7".into(),
        status: status.into(),
        status_message: message.map(str::to_owned),
        ttl_ms: Some(600_000),
        poll_interval_ms: Some(500),
        wire: serde_json::Value::Null,
    }
}

#[test]
fn the_view_lists_tasks_and_its_keys_ask_the_server() {
    let mut s: State = support::tui::state();
    s.clock_ms = 1_000;
    update(
        &mut s,
        Msg::TaskSeen {
            tool: "run_suite".into(),
            view: Box::new(view("working", Some("40% done"))),
        },
    );
    let mut other = view("completed", None);
    other.task_id = "task-3".into();
    other.server = "docs".into();
    update(
        &mut s,
        Msg::TaskSeen {
            tool: "render\x1b[2J".into(),
            view: Box::new(other),
        },
    );
    s.clock_ms = 73_000;
    update(&mut s, Msg::Key(Key::plain(KeyCode::F(5))));
    assert_eq!(s.layer(), Layer::Tasks);
    insta::assert_snapshot!("tasks_view", support::tui::shot(&s, 100, 30));
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('x'))),
        [switchboard::tui::Cmd::Server(
            switchboard::tui::ServerCmd::CancelTask {
                server: "build".into(),
                task_id: "task-7".into()
            }
        )]
    );
    update(&mut s, Msg::Key(Key::plain(KeyCode::Down)));
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Enter))),
        [switchboard::tui::Cmd::Server(
            switchboard::tui::ServerCmd::GetTask {
                server: "docs".into(),
                task_id: "task-3".into()
            }
        )]
    );
    // A later poll updates the row in place.
    update(
        &mut s,
        Msg::TaskAnswer {
            view: Some(Box::new(view("cancelled", None))),
            text: Ok("task task-7 on build: cancel sent".into()),
        },
    );
    assert_eq!(s.tasks.len(), 2);
    assert_eq!(s.tasks[0].status, "cancelled");
    assert_eq!(s.tasks[0].tool, "run_suite");
    update(&mut s, Msg::Key(Key::plain(KeyCode::Esc)));
    assert!(s.overlays.is_empty());
    update(&mut s, Msg::Paste("/tasks".into()));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    assert_eq!(s.layer(), Layer::Tasks);
}

/// Runs `long_task` from the TUI's executor against the real test server; hub task
/// events reach the view as the event loop passes them.
async fn follow(protocol: ProtocolChoice) {
    let era = protocol.as_str();
    let mut live = support::tui::LiveTui::start(protocol, support::tui::registered_tools).await;
    live.exec
        .handle(Msg::Paste("/call t__long_task {\"millis\": 300}".into()));
    live.exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    let note = |s: &State| s.chat.entries.iter().any(|e| e.text.contains("completed"));
    let mut asked = false;
    while !note(live.exec.state()) {
        // Once the task has finished, ask the server for it from the view.
        if !asked
            && live
                .exec
                .state()
                .tasks
                .first()
                .is_some_and(|t| t.status == "completed")
        {
            live.exec.handle(Msg::Key(Key::plain(KeyCode::F(5))));
            live.exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
            asked = true;
        }
        live.step(|s| format!("{era}: {:?} {:?}", s.tasks, s.chat.entries))
            .await;
    }
    let row = &live.exec.state().tasks[0];
    assert_eq!(
        (row.server.as_str(), row.tool.as_str()),
        ("t", "long_task"),
        "{era}"
    );
    let text = live.exec.state().chat.entries.last().unwrap().text.clone();
    assert!(
        text.starts_with(&format!("task {} on t: completed", row.task_id)),
        "{era}: {text}"
    );
    live.workbench.shutdown().await;
}

#[tokio::test]
async fn a_task_is_followed_and_fetched_from_the_view_in_both_eras() {
    follow(ProtocolChoice::V2026).await;
    follow(ProtocolChoice::V2025).await;
}

/// A tool the server runs only as a task (MCP 2025-11-25 `execution.taskSupport`)
/// says so among its details in the catalog.
#[test]
fn a_tool_that_runs_as_a_task_says_so_in_its_details() {
    use std::sync::Arc;
    use switchboard::config::AnnotationTrust;
    use switchboard::mcp::catalog::{CatalogSnapshot, CatalogTool};
    use switchboard::mcp::{HubSnapshot, ServerSnapshot, ServerStatus, TaskMode, TransportKind};
    let tool = |name: &str, task| CatalogTool {
        name: name.into(),
        title: None,
        description: String::new(),
        input_schema: serde_json::json!({"type": "object"}),
        output_schema: None,
        annotations: None,
        icons: 0,
        task,
        ui: None,
    };
    let tools = vec![
        tool("research", Some(TaskMode::Required)),
        tool("echo", None),
    ];
    let specs: Vec<_> = tools
        .iter()
        .map(|t| switchboard::mcp::tool_spec("t", t, AnnotationTrust::Trust))
        .collect();
    let mut server =
        ServerSnapshot::new("t", TransportKind::Stdio, "t".into(), ServerStatus::Ready);
    server.catalog = Arc::new(CatalogSnapshot {
        tools,
        ..CatalogSnapshot::default()
    });
    let snapshot = HubSnapshot {
        servers: vec![Arc::new(server)],
    };
    let catalog = switchboard::tui::hub_view::catalog(&specs, &snapshot);
    let facts = |name: &str| {
        catalog
            .tools
            .iter()
            .find(|e| e.name == name)
            .unwrap()
            .facts
            .clone()
    };
    assert!(facts("t__research").contains(&(
        "task".to_owned(),
        "required: every call runs as a task".to_owned()
    )));
    assert!(!facts("t__echo").iter().any(|(k, _)| k == "task"));
}
