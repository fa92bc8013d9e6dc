//! Resource subscriptions from the Catalog: `s` on a resource subscribes (the real
//! test server, both protocol generations), a change marks the row and says so, `r`
//! reads it again and clears the mark, `s` again stops. Titles are shown before names,
//! and items with icons carry a glyph.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use switchboard::agent::EventSink;
use switchboard::config::{Config, ProtocolChoice};
use switchboard::keymap::Key;
use switchboard::mcp::McpEvent;
use switchboard::paths::Dirs;
use switchboard::policy::Mode;
use switchboard::tui::executor::Executor;
use switchboard::tui::state::{CatalogEntry, CatalogTab, Pane};
use switchboard::tui::{CallCmd, Cmd, Msg, ServerCmd, State, update};
use switchboard::workbench::{Workbench, WorkbenchOptions};

const WAIT: Duration = Duration::from_secs(20);

fn resource(
    server: &str,
    name: &str,
    title: Option<&str>,
    uri: &str,
    icons: usize,
) -> CatalogEntry {
    CatalogEntry {
        server: server.into(),
        name: name.into(),
        title: title.map(str::to_owned),
        facts: vec![("uri".into(), uri.into())],
        icons,
        ..CatalogEntry::default()
    }
}

fn on_resources(s: &mut State) {
    s.focus = Pane::Catalog;
    s.catalog.tab = CatalogTab::Resources;
}

#[test]
fn a_subscription_lost_at_a_reconnect_is_no_longer_shown_as_on() {
    let mut s = support::tui::state();
    for uri in ["docs://readme", "docs://log"] {
        update(
            &mut s,
            Msg::Subscribed {
                server: "docs".into(),
                uri: uri.into(),
                on: true,
                result: Ok(()),
            },
        );
    }
    update(
        &mut s,
        Msg::SubscriptionLost {
            server: "docs".into(),
            uri: "docs://log".into(),
            reason: "mcp_remote_error: no such resource\x1b[31m (server docs, code -32002)".into(),
        },
    );
    assert!(!s.subscriptions.is_on("docs", "docs://log"));
    assert!(s.subscriptions.is_on("docs", "docs://readme"));
    assert_eq!(
        s.status.notice.as_ref().unwrap().text,
        "docs docs://log: no longer subscribed (mcp_remote_error: no such resource (server docs, code -32002))"
    );
}

#[test]
fn marks_titles_and_icons_in_the_list() {
    let mut s = support::tui::state();
    s.catalog.items.resources = vec![
        resource("docs", "readme", Some("Read me first"), "docs://readme", 2),
        resource("docs", "log", None, "docs://log", 0),
        resource("docs", "notes", None, "docs://notes", 0),
    ];
    on_resources(&mut s);
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('s'))),
        [Cmd::Server(ServerCmd::Subscribe {
            server: "docs".into(),
            uri: "docs://readme".into(),
            on: true
        })]
    );
    for uri in ["docs://readme", "docs://log"] {
        update(
            &mut s,
            Msg::Subscribed {
                server: "docs".into(),
                uri: uri.into(),
                on: true,
                result: Ok(()),
            },
        );
    }
    update(
        &mut s,
        Msg::ResourceUpdated {
            server: "docs".into(),
            uri: "docs://log".into(),
        },
    );
    assert_eq!(
        s.status.notice.as_ref().unwrap().text,
        "docs changed: docs://log (r reads it again)"
    );
    insta::assert_snapshot!("catalog_subscriptions", support::tui::shot(&s, 100, 30));
    // Subscribed: `s` stops.
    assert!(matches!(
        update(&mut s, Msg::Key(Key::char('s'))).as_slice(),
        [Cmd::Server(ServerCmd::Subscribe { on: false, .. })]
    ));
    // `r` on the changed one reads it again and clears its mark.
    update(&mut s, Msg::Key(Key::char('j')));
    let cmds = update(&mut s, Msg::Key(Key::char('r')));
    assert!(
        matches!(cmds.as_slice(), [Cmd::Call(CallCmd::ReadResource { server, uri, .. })] if server == "docs" && uri == "docs://log")
    );
    assert!(!s.subscriptions.is_changed("docs", "docs://log"));
    assert!(s.subscriptions.is_on("docs", "docs://log"));
}

async fn subscribe_touch_reread(protocol: ProtocolChoice) {
    let era = protocol.as_str();
    let dir = tempfile::tempdir().unwrap();
    let dirs = Dirs::new(dir.path(), dir.path(), dir.path(), dir.path());
    let mut config = Config::default();
    let mut server = support::mcp::stdio_config(&["--asking"]);
    server.protocol = Some(protocol);
    config.servers.insert("t".into(), server);
    let options = WorkbenchOptions {
        interactive: true,
        mode: Some(Mode::FullAuto),
        ..WorkbenchOptions::default()
    };
    let workbench = Workbench::start(&config, &dirs, options).await.unwrap();
    let snapshot = workbench.settle().await;
    let mut events = workbench.hub.events();
    let (tx, mut route) = tokio::sync::mpsc::unbounded_channel();
    let (inbox, mut inbox_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut state = support::tui::state();
    state.catalog.items =
        switchboard::tui::hub_view::catalog(&workbench.registry.specs(), &snapshot);
    on_resources(&mut state);
    let mut exec = Executor::new(
        state,
        Arc::clone(&workbench.registry),
        EventSink::new(tx, None),
        inbox,
    )
    .with_hub(workbench.hub.clone());
    exec.handle(Msg::Key(Key::char('s')));
    let mut touched = false;
    let mut reread = false;
    loop {
        let s = exec.state();
        if !touched && s.subscriptions.is_on("t", "test://text/1") {
            touched = true;
            exec.handle(Msg::Paste(
                r#"/call t__touch {"uri": "test://text/1"}"#.into(),
            ));
            exec.handle(Msg::Key(Key::plain(switchboard::keymap::KeyCode::Enter)));
            // Back to the Catalog: Composer → Chat → Catalog.
            for _ in 0..2 {
                exec.handle(Msg::Key(Key::plain(switchboard::keymap::KeyCode::F(6))));
            }
        } else if !reread && s.subscriptions.is_changed("t", "test://text/1") {
            reread = true;
            exec.handle(Msg::Key(Key::char('r')));
        }
        let read = exec.state().chat.entries.iter().any(|e| {
            e.card.as_ref().is_some_and(|c| {
                c.result
                    .as_deref()
                    .is_some_and(|r| r.contains("contents of test://text/1"))
            })
        });
        if reread && read {
            break;
        }
        tokio::select! {
            Some(e) = route.recv() => { exec.handle(Msg::Agent(Box::new(e))); }
            Some(m) = inbox_rx.recv() => { exec.handle(m); }
            Ok(event) = events.recv() => {
                if let McpEvent::ResourceUpdated { server, uri } = event {
                    exec.handle(Msg::ResourceUpdated { server, uri });
                }
            }
            () = tokio::time::sleep(WAIT) => panic!("{era}: stuck: {:?} {:?}", exec.state().subscriptions, exec.state().chat.entries),
        }
    }
    assert!(
        !exec.state().subscriptions.is_changed("t", "test://text/1"),
        "{era}"
    );
    workbench.shutdown().await;
}

#[tokio::test]
async fn subscribe_change_and_read_again_in_both_eras() {
    subscribe_touch_reread(ProtocolChoice::V2026).await;
    subscribe_touch_reread(ProtocolChoice::V2025).await;
}
