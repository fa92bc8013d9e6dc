//! Servers started on demand (`start = "on_demand"`) and stopped when idle
//! (`idle_timeout`): not spawned at launch, a cached catalog meanwhile, started once by
//! the first use (however many come at once), stopped after the idle time and started
//! again by the next use; the gate still rules calls to cached tools.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::{Value, json};
use switchboard::config::{ServerConfig, StartPolicy};
use switchboard::mcp::catalog_cache::CatalogCache;
use switchboard::mcp::{CallContext, HubOptions, McpHub, ServerStatus};
use switchboard::tools::{CallOutcome, ToolContext};

use crate::support::mcp::{SERVER_BIN, args, settled, stdio_config, wait_snapshot};
use crate::support::trust_folder;

/// How many times the test server was spawned with `SWITCHBOARD_TEST_SPAWN_LOG=log`.
fn spawns(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |text| text.lines().count())
}

fn on_demand(log: &Path) -> ServerConfig {
    let mut config = stdio_config(&[]);
    config.start = Some(StartPolicy::OnDemand);
    config.env = BTreeMap::from([(
        "SWITCHBOARD_TEST_SPAWN_LOG".to_owned(),
        log.display().to_string(),
    )]);
    config
}

fn hub(config: &ServerConfig, cache: &Path) -> McpHub {
    McpHub::start_with(
        &BTreeMap::from([("t".to_owned(), config.clone())]),
        HubOptions {
            cache: Some(CatalogCache::new(cache)),
            ..HubOptions::default()
        },
    )
}

async fn echo(hub: &McpHub, text: &str) -> String {
    let result = hub
        .call_tool(
            "t",
            "echo",
            args(json!({ "text": text })),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    result.text_content()
}

#[tokio::test]
async fn a_first_call_starts_the_server_once_even_when_calls_come_together() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spawns");
    let hub = hub(&on_demand(&log), &dir.path().join("cache"));
    let snap = settled(&hub).await;
    let server = snap.server("t").unwrap();
    assert_eq!(server.status, ServerStatus::Idle { stopped: false });
    assert_eq!(server.status.label(), "on demand (not started)");
    assert!(server.catalog.tools.is_empty() && server.catalog.cached_at.is_none());
    let note = server.idle_note(std::time::SystemTime::now()).unwrap();
    assert!(note.contains("no cached catalog"), "{note}");
    assert_eq!(spawns(&log), 0);

    let calls = (0..6).map(|i| {
        let hub = hub.clone();
        async move { echo(&hub, &format!("call {i}")).await }
    });
    let answers = futures::future::join_all(calls).await;
    assert_eq!(answers[5], "call 5");
    assert_eq!(spawns(&log), 1, "one spawn for six concurrent first calls");
    let snap = hub.snapshot();
    assert_eq!(snap.server("t").unwrap().status, ServerStatus::Ready);
    // The listing was cached, without the environment.
    let cache = CatalogCache::new(dir.path().join("cache"));
    let file = std::fs::read_to_string(cache.path("t", &on_demand(&log))).unwrap();
    assert!(
        file.contains("\"echo\"") && !file.contains("SPAWN_LOG"),
        "{file}"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn the_cached_catalog_shows_until_a_use_and_an_idle_server_stops_and_starts_again() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spawns");
    let cache = dir.path().join("cache");
    let mut config = on_demand(&log);
    // A first session lists the server (an explicit start) and caches its catalog.
    let first = hub(&config, &cache);
    first.start_server("t").await.unwrap();
    let listed = first.snapshot().server("t").unwrap().catalog.tools.clone();
    assert!(!listed.is_empty());
    first.shutdown().await;
    assert_eq!(spawns(&log), 1);

    // The next session shows that catalog as cached, without spawning anything.
    config.idle_timeout = Some(0.3);
    let hub = hub(&config, &cache);
    let snap = settled(&hub).await;
    let server = snap.server("t").unwrap();
    assert_eq!(server.status, ServerStatus::Idle { stopped: false });
    assert!(server.catalog.cached_at.is_some());
    assert_eq!(server.catalog.tools, listed);
    let note = server.idle_note(std::time::SystemTime::now()).unwrap();
    assert!(
        note.starts_with("cached ") && note.contains(" ago"),
        "{note}"
    );
    assert_eq!(spawns(&log), 1);

    // A call starts it; with nothing more to do it stops after its idle time …
    assert_eq!(echo(&hub, "one").await, "one");
    assert_eq!(spawns(&log), 2);
    let stopped = wait_snapshot(&hub, "the idle stop", |s| {
        s.server("t")
            .is_some_and(|s| s.status == ServerStatus::Idle { stopped: true })
    })
    .await;
    let server = stopped.server("t").unwrap();
    assert_eq!(server.status.label(), "stopped (idle)");
    assert!(server.catalog.cached_at.is_some());
    assert_eq!(server.catalog.tools, listed);
    // … and the next call starts it again.
    assert_eq!(echo(&hub, "two").await, "two");
    assert_eq!(spawns(&log), 3);
    hub.shutdown().await;
}

#[tokio::test]
async fn a_model_call_to_a_cached_tool_passes_the_gate_and_a_denied_one_spawns_nothing() {
    use switchboard::workbench::{Workbench, WorkbenchOptions};
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("spawns");
    let state = home.path().join("state");
    let dirs = switchboard::paths::Dirs::new(home.path(), home.path(), &state, home.path());
    let config_text = format!(
        "[mcp]\nstart = \"on_demand\"\n\n[servers.t]\ncommand = {SERVER_BIN:?}\nenv = {{ SWITCHBOARD_TEST_SPAWN_LOG = {:?} }}\n\n[policy]\nmode = \"full-auto\"\ndeny = [\"t__add\"]\n",
        log.display().to_string()
    );
    let config: switchboard::config::Config = toml::from_str(&config_text).unwrap();
    // What the last listing left in the cache: `echo` read-only, `add` too.
    let tools = [
        json!({"name": "echo", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "add", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}}),
    ];
    let catalog = switchboard::mcp::CatalogSnapshot {
        tools: tools
            .iter()
            .filter_map(switchboard::mcp::catalog::tool_from_wire)
            .collect(),
        ..switchboard::mcp::CatalogSnapshot::default()
    };
    CatalogCache::new(dirs.catalog_cache_dir())
        .store(
            "t",
            &config.servers["t"],
            &catalog,
            std::time::SystemTime::now() - Duration::from_secs(7_300),
        )
        .unwrap();

    let workbench = Workbench::start(&config, &dirs, WorkbenchOptions::default())
        .await
        .unwrap();
    // The registry takes the cached tools by itself (the TUI never calls `settle`):
    // nothing about an on-demand server changes until it is used.
    crate::support::within(async {
        while !workbench.registry.contains("t__echo") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let snapshot = workbench.settle().await;
    let note = snapshot
        .server("t")
        .unwrap()
        .idle_note(std::time::SystemTime::now())
        .unwrap();
    assert!(note.starts_with("cached 2 h ago"), "{note}");
    let specs = workbench.registry.specs();
    let echo_spec = specs.iter().find(|s| s.name == "t__echo").unwrap();
    assert_eq!(echo_spec.default_effect.to_string(), "read");
    assert!(specs.iter().any(|s| s.name == "t__add"));

    let ctx = ToolContext::new("run", switchboard::policy::Origin::Model);
    let denied = workbench
        .registry
        .invoke("t__add", args(json!({"a": 1, "b": 2})), &ctx)
        .await;
    assert!(matches!(denied, CallOutcome::Denied { .. }), "{denied:?}");
    assert_eq!(spawns(&log), 0, "a denied call spawns nothing");

    let ran = workbench
        .registry
        .invoke("t__echo", args(json!({"text": "from the cache"})), &ctx)
        .await;
    let CallOutcome::Ran(result) = ran else {
        panic!("{ran:?}");
    };
    assert_eq!(result.text_content(), "from the cache");
    assert_eq!(spawns(&log), 1);
    workbench.shutdown().await;
}

/// A folder with a trusted `switchboard.toml` whose servers start on demand.
struct Folder {
    dir: tempfile::TempDir,
}

impl Folder {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("spawns");
        let config = format!(
            "[mcp]\nstart = \"on_demand\"\n\n[servers.t]\ncommand = {SERVER_BIN:?}\nsandbox = false\nenv = {{ SWITCHBOARD_TEST_SPAWN_LOG = {:?} }}\n",
            log.display().to_string()
        );
        std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
        trust_folder(dir.path(), &dir.path().join(".local/state"));
        Self { dir }
    }

    fn spawns(&self) -> usize {
        spawns(&self.dir.path().join("spawns"))
    }

    fn stdout(&self, args: &[&str], code: i32) -> String {
        let out = crate::support::cli::switchboard_in(self.dir.path())
            .args(args)
            .assert()
            .code(code)
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    }
}

#[test]
fn servers_and_catalog_do_not_start_an_on_demand_server_and_call_does() {
    let folder = Folder::new();
    let out = folder.stdout(&["servers"], 0);
    assert!(
        out.contains("on demand (not started)") && out.contains("no cached catalog"),
        "{out}"
    );
    assert_eq!(folder.spawns(), 0);

    let out = folder.stdout(&["call", "t", "echo", "-a", "text=hello"], 0);
    assert!(out.contains("hello"), "{out}");
    assert_eq!(folder.spawns(), 1);

    let json: Value = serde_json::from_str(&folder.stdout(&["servers", "--json"], 0)).unwrap();
    let t = &json["servers"][0];
    assert_eq!(t["status"], "on demand (not started)");
    assert!(t["counts"]["tools"].as_u64().unwrap() > 0, "{t}");
    assert!(t["catalog_cached_at_ms"].is_u64(), "{t}");
    assert!(t["detail"].as_str().unwrap().starts_with("cached "), "{t}");
    let out = folder.stdout(&["catalog"], 0);
    assert!(out.contains("cached ") && out.contains("t__echo"), "{out}");
    assert_eq!(folder.spawns(), 1, "servers and catalog start nothing");

    let out = folder.stdout(&["catalog", "--start"], 0);
    assert!(out.contains("t (ready") && out.contains("t__echo"), "{out}");
    assert_eq!(folder.spawns(), 2);
}

#[test]
fn idle_timeout_must_be_positive() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(
        &path,
        "[servers.t]\ncommand = \"x\"\nstart = \"on_demand\"\nidle_timeout = 0\n",
    )
    .unwrap();
    let out = Command::cargo_bin("switchboard")
        .unwrap()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .args(["--config", path.to_str().unwrap(), "config", "check"])
        .timeout(Duration::from_secs(60))
        .assert()
        .failure()
        .get_output()
        .clone();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.contains("idle_timeout"), "{out}");
}

#[test]
fn the_servers_pane_shows_on_demand_servers_with_their_cached_tools() {
    use switchboard::mcp::{CatalogSnapshot, HubSnapshot, ServerSnapshot, TransportKind};
    use switchboard::tui::hub_view::server_rows;
    let mut state = crate::support::tui::booted();
    let tools = ["echo", "add"]
        .map(|name| switchboard::mcp::catalog::tool_from_wire(&json!({"name": name})).unwrap());
    let mut cached = ServerSnapshot::new(
        "files",
        TransportKind::Stdio,
        "npx files".into(),
        ServerStatus::Idle { stopped: false },
    );
    cached.catalog = std::sync::Arc::new(CatalogSnapshot {
        tools: tools.to_vec(),
        cached_at: Some(std::time::SystemTime::now() - Duration::from_secs(7_300)),
        ..CatalogSnapshot::default()
    });
    let fresh = ServerSnapshot::new(
        "search",
        TransportKind::Http,
        "https://mcp.example.com/mcp".into(),
        ServerStatus::Idle { stopped: false },
    );
    let hub = HubSnapshot {
        servers: vec![std::sync::Arc::new(cached), std::sync::Arc::new(fresh)],
    };
    state.servers.rows = server_rows(&state.servers.rows, &hub);
    assert_eq!(
        state.servers.rows[1].detail.as_deref(),
        Some("cached 2 h ago")
    );
    assert!(
        state.servers.rows[1]
            .facts
            .contains(&("status".into(), "on demand (not started)".into()))
    );
    insta::assert_snapshot!(
        "servers_on_demand",
        crate::support::tui::shot(&state, 100, 24)
    );
}

#[tokio::test]
async fn a_server_refused_before_start_fails_its_call_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = on_demand(&dir.path().join("spawns"));
    config.command = Some("x | y".into());
    let hub = hub(&config, &dir.path().join("cache"));
    let call = hub.call_tool("t", "echo", args(json!({})), None, CallContext::default());
    let error = Box::pin(crate::support::within(call)).await.unwrap_err();
    assert_eq!(error.kind(), "mcp_handshake_failed", "{error}");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_server_that_cannot_start_fails_the_call_that_started_it_and_the_next_tries_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = on_demand(&dir.path().join("spawns"));
    config.command = Some(dir.path().join("missing").display().to_string());
    let hub = hub(&config, &dir.path().join("cache"));
    for _ in 0..2 {
        let call = hub.call_tool(
            "t",
            "echo",
            args(json!({"text": "x"})),
            None,
            CallContext::default(),
        );
        let error = Box::pin(crate::support::within(call)).await.unwrap_err();
        assert_eq!(error.kind(), "mcp_handshake_failed", "{error}");
        let status = hub.snapshot().server("t").unwrap().status.clone();
        assert!(
            matches!(status, ServerStatus::Failed { retry_in: None, .. }),
            "{status:?}"
        );
    }
    hub.shutdown().await;
}
