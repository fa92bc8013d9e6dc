//! Resource subscriptions from the Catalog: `s` on a resource subscribes (the real
//! test server, both protocol generations), a change marks the row and says so, `r`
//! reads it again and clears the mark, `s` again stops. Titles are shown before names,
//! and items with icons carry a glyph.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use switchboard::config::ProtocolChoice;
use switchboard::keymap::Key;
use switchboard::tui::state::{CatalogEntry, CatalogTab, Pane};
use switchboard::tui::{CallCmd, Cmd, Msg, ServerCmd, State, update};

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
    let mut live = support::tui::LiveTui::start(protocol, |state, workbench, snapshot| {
        state.catalog.items =
            switchboard::tui::hub_view::catalog(&workbench.registry.specs(), snapshot);
        on_resources(state);
    })
    .await;
    live.exec.handle(Msg::Key(Key::char('s')));
    let mut touched = false;
    let mut reread = false;
    loop {
        let s = live.exec.state();
        if !touched && s.subscriptions.is_on("t", "test://text/1") {
            touched = true;
            live.exec.handle(Msg::Paste(
                r#"/call t__touch {"uri": "test://text/1"}"#.into(),
            ));
            live.exec
                .handle(Msg::Key(Key::plain(switchboard::keymap::KeyCode::Enter)));
            // Back to the Catalog: Composer → Chat → Catalog.
            for _ in 0..2 {
                live.exec
                    .handle(Msg::Key(Key::plain(switchboard::keymap::KeyCode::F(6))));
            }
        } else if !reread && s.subscriptions.is_changed("t", "test://text/1") {
            reread = true;
            live.exec.handle(Msg::Key(Key::char('r')));
        }
        let read = live.exec.state().chat.entries.iter().any(|e| {
            e.card.as_ref().is_some_and(|c| {
                c.result
                    .as_deref()
                    .is_some_and(|r| r.contains("contents of test://text/1"))
            })
        });
        if reread && read {
            break;
        }
        live.step(|s| format!("{era}: {:?} {:?}", s.subscriptions, s.chat.entries))
            .await;
    }
    assert!(
        !live
            .exec
            .state()
            .subscriptions
            .is_changed("t", "test://text/1"),
        "{era}"
    );
    live.workbench.shutdown().await;
}

#[tokio::test]
async fn subscribe_change_and_read_again_in_both_eras() {
    subscribe_touch_reread(ProtocolChoice::V2026).await;
    subscribe_touch_reread(ProtocolChoice::V2025).await;
}
