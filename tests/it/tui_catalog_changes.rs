//! A server that reconnects with another catalog: one line in the transcript saying
//! what changed (`weather: +1 tool, −1 prompt, get_weather input changed`), drawn as
//! the TUI draws it. A change on the same connection (`list_changed`), a server still
//! reconnecting, or a reconnect to the same catalog adds none.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use serde_json::{Value, json};
use switchboard::mcp::catalog::{CatalogPrompt, CatalogSnapshot, CatalogTool};
use switchboard::mcp::{HubSnapshot, ServerSnapshot, ServerStatus, TransportKind};
use switchboard::tui::hub_view::{catalog, server_rows};
use switchboard::tui::state::{ChatKind, Pane, State};
use switchboard::tui::{Msg, update};

use crate::support::tui::{booted, shot};

fn tool(name: &str, input: Value) -> CatalogTool {
    CatalogTool {
        name: name.into(),
        title: None,
        description: String::new(),
        input_schema: input,
        output_schema: None,
        annotations: None,
        icons: 0,
        task: None,
        ui: None,
    }
}

fn prompt(name: &str) -> CatalogPrompt {
    CatalogPrompt {
        name: name.into(),
        title: None,
        description: None,
        arguments: Vec::new(),
        icons: 0,
    }
}

fn before() -> CatalogSnapshot {
    CatalogSnapshot {
        tools: vec![tool(
            "get_weather",
            json!({"type": "object", "properties": {"city": {}}}),
        )],
        prompts: vec![prompt("forecast"), prompt("brief")],
        ..CatalogSnapshot::default()
    }
}

/// What the executor sends for the hub's snapshot of `weather`.
fn weather(status: ServerStatus, generation: u64, catalog_now: CatalogSnapshot) -> Msg {
    let mut server = ServerSnapshot::new(
        "weather",
        TransportKind::Stdio,
        "weather-mcp".into(),
        status,
    );
    server.generation = generation;
    server.catalog = Arc::new(catalog_now);
    let snapshot = Arc::new(HubSnapshot {
        servers: vec![Arc::new(server)],
    });
    Msg::Servers {
        rows: server_rows(&[], &snapshot),
        catalog: catalog(&[], &snapshot),
        snapshot,
    }
}

fn notes(state: &State) -> Vec<&str> {
    state
        .chat
        .entries
        .iter()
        .filter(|e| e.kind == ChatKind::Note)
        .map(|e| e.text.as_str())
        .collect()
}

#[test]
fn a_reconnect_with_another_catalog_says_what_changed_in_one_line() {
    let mut state = booted();
    state.focus = Pane::Chat;
    let quiet = notes(&state).len();
    update(&mut state, weather(ServerStatus::Ready, 1, before()));
    // `list_changed` on the same connection: the new list is remembered, no line.
    let mut listed = before();
    listed.revision = 2;
    listed.prompts.push(prompt("later"));
    update(&mut state, weather(ServerStatus::Ready, 1, listed.clone()));
    // Lost and reconnecting: nothing to compare yet.
    let lost = ServerStatus::Disconnected {
        reason: "exited".into(),
    };
    update(&mut state, weather(lost, 1, listed.clone()));
    update(
        &mut state,
        weather(ServerStatus::Connecting { attempt: 2 }, 1, listed),
    );
    assert_eq!(notes(&state).len(), quiet);

    // Back on a new connection: a tool more, two prompts fewer, an input schema changed.
    let mut after = before();
    after.tools[0].input_schema = json!({"type": "object", "properties": {"lat": {}}});
    after.tools.push(tool("radar", json!({})));
    after.prompts.truncate(1);
    update(&mut state, weather(ServerStatus::Ready, 2, after.clone()));
    let said = &notes(&state)[quiet..];
    assert_eq!(
        said,
        ["weather: +1 tool, −2 prompts, get_weather input changed"]
    );
    // Again on another connection, the same catalog: nothing more.
    update(&mut state, weather(ServerStatus::Ready, 3, after));
    assert_eq!(notes(&state).len(), quiet + 1);
    insta::assert_snapshot!("catalog_changed_after_reconnect", shot(&state, 90, 18));
}

/// The executor over a real hub: the test server reconnects as one with two tools
/// more, and the refresh the hub's change asks for brings the line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_reconnect_to_a_server_with_more_tools_is_said() {
    use switchboard::tui::executor::Executor;
    use switchboard::workbench::{Workbench, WorkbenchOptions};
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("more-tools");
    let bin = crate::support::mcp::SERVER_BIN;
    let script = format!(
        "if [ -f '{}' ]; then exec '{bin}' --misbehave long-name; else exec '{bin}'; fi",
        flag.display()
    );
    let mut config = switchboard::config::Config::default();
    config.servers.insert(
        "demo".into(),
        switchboard::config::ServerConfig {
            command: Some("/bin/sh".into()),
            args: vec!["-c".into(), script],
            ..switchboard::config::ServerConfig::default()
        },
    );
    let dirs = switchboard::paths::Dirs::new(dir.path(), dir.path(), dir.path(), dir.path());
    let workbench = Workbench::start(&config, &dirs, WorkbenchOptions::default())
        .await
        .unwrap();
    workbench.settle().await;
    let (route, _route_rx) = tokio::sync::mpsc::unbounded_channel();
    let (inbox, _inbox_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut exec = Executor::new(
        booted(),
        Arc::clone(&workbench.registry),
        switchboard::agent::EventSink::new(route, None),
        inbox,
    )
    .with_hub(workbench.hub.clone());
    exec.handle(Msg::HubChanged);
    let quiet = notes(exec.state()).len();

    std::fs::write(&flag, "").unwrap();
    let mut snapshots = workbench.hub.subscribe();
    workbench.hub.reconnect("demo").unwrap();
    let deadline = tokio::time::Instant::now() + crate::support::EVENT_DEADLINE;
    loop {
        let back = snapshots
            .borrow_and_update()
            .server("demo")
            .is_some_and(|s| s.generation == 2 && s.status == ServerStatus::Ready);
        if back {
            break;
        }
        tokio::time::timeout_at(deadline, snapshots.changed())
            .await
            .unwrap()
            .unwrap();
    }
    exec.handle(Msg::HubChanged);
    assert_eq!(&notes(exec.state())[quiet..], ["demo: +2 tools"]);
    drop(exec);
    workbench.shutdown().await;
}

/// A disabled server leaves the catalog entirely — its resources, templates and
/// prompts too, not only its tools — and comes back when it is enabled.
#[test]
fn a_disabled_server_leaves_the_catalog_and_comes_back() {
    let mut s = booted();
    update(&mut s, weather(ServerStatus::Ready, 1, before()));
    assert_eq!(s.catalog.items.prompts.len(), 2);
    update(&mut s, weather(ServerStatus::Disabled, 1, before()));
    assert!(s.catalog.items.prompts.is_empty());
    update(&mut s, weather(ServerStatus::Ready, 2, before()));
    assert_eq!(s.catalog.items.prompts.len(), 2);
}

/// A catalog change hands the new entries' filter haystacks to a worker
/// (`UiCmd::MakeHaystacks`), whose haystacks come back as `Msg::HaystacksMade` and land
/// on the entries they were made for; entries whose text did not change keep theirs
/// and are not handed over; with a query typed, the filter has made the shown tab's.
#[test]
fn new_catalog_entries_have_their_haystacks_made_off_the_ui_thread() {
    use switchboard::tui::msg::{Cmd, UiCmd};
    use switchboard::tui::state::Unmade;
    let handed = |state: &mut State, cmds: Vec<Cmd>| -> Vec<String> {
        let [Cmd::Ui(UiCmd::MakeHaystacks(unmade))] = cmds.as_slice() else {
            panic!("{cmds:?}");
        };
        let names = unmade.iter().map(|u| u.parts[0].clone()).collect();
        let made = unmade.iter().cloned().map(Unmade::make).collect();
        assert_eq!(update(state, Msg::HaystacksMade(made)), []);
        names
    };
    let made = |state: &State| -> Vec<bool> {
        let prompts = &state.catalog.items.prompts;
        prompts.iter().map(|p| p.search.get().is_some()).collect()
    };
    let mut state = booted();
    let cmds = update(&mut state, weather(ServerStatus::Ready, 1, before()));
    assert_eq!(made(&state), [false, false]);
    assert_eq!(handed(&mut state, cmds), ["forecast", "brief"]);
    assert_eq!(made(&state), [true, true], "the worker's are the catalog's");

    // One prompt more: only it is handed over.
    let mut more = before();
    more.prompts.push(prompt("radar"));
    let cmds = update(&mut state, weather(ServerStatus::Ready, 1, more.clone()));
    assert_eq!(handed(&mut state, cmds), ["radar"]);

    // With a query typed, the filter makes the shown tab's as the catalog arrives;
    // the other tabs' go to the worker.
    state.catalog.filter.query = "w".into();
    more.prompts.push(prompt("wind"));
    let cmds = update(&mut state, weather(ServerStatus::Ready, 1, more.clone()));
    assert_eq!(handed(&mut state, cmds), ["wind"]);
    state.catalog.tab = switchboard::tui::state::CatalogTab::Prompts;
    more.prompts.push(prompt("warm"));
    let cmds = update(&mut state, weather(ServerStatus::Ready, 1, more));
    assert_eq!(cmds, []);
    assert_eq!(made(&state), [true; 5]);

    // Haystacks made for a catalog that has changed since land on no other entry.
    let mut state = booted();
    let cmds = update(&mut state, weather(ServerStatus::Ready, 1, before()));
    let [Cmd::Ui(UiCmd::MakeHaystacks(stale))] = cmds.as_slice() else {
        panic!("{cmds:?}");
    };
    let stale: Vec<_> = stale.iter().cloned().map(Unmade::make).collect();
    let mut swapped = before();
    swapped.prompts.reverse();
    update(&mut state, weather(ServerStatus::Ready, 1, swapped));
    update(&mut state, Msg::HaystacksMade(stale));
    assert_eq!(made(&state), [false, false]);
}
