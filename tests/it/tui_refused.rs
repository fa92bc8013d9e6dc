//! A server's details name what its catalog is made of beyond the items: a tool the
//! transport refused (an invalid `x-mcp-header` annotation), with the reason — never
//! dropped without a word — and lists kept from cache by their `ttlMs`.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use crate::support::tui::{booted, shot};
use switchboard::keymap::{Key, KeyCode};
use switchboard::mcp::catalog::{CatalogSnapshot, ListKind};
use switchboard::mcp::freshness::ListFreshness;
use switchboard::mcp::{HubSnapshot, ServerSnapshot, ServerStatus as Hub, TransportKind};
use switchboard::tui::hub_view::server_rows;
use switchboard::tui::state::Pane;
use switchboard::tui::{Msg, update};

#[test]
fn server_details_list_refused_tools_with_the_reason() {
    let mut state = booted();
    let mut snap = ServerSnapshot::new(
        "regions",
        TransportKind::Http,
        "https://mcp.example.com/mcp".into(),
        Hub::Ready,
    );
    snap.catalog = Arc::new(CatalogSnapshot {
        refused: vec![(
            "bad_header".into(),
            "property `region`: x-mcp-header `Bad Region` is not a valid HTTP token".into(),
        )],
        ..CatalogSnapshot::default()
    });
    let hub = HubSnapshot {
        servers: vec![Arc::new(snap)],
    };
    state.servers.rows = server_rows(&state.servers.rows, &hub);
    assert!(
        state.servers.rows[1].facts.contains(&(
            "refused".into(),
            "bad_header — property `region`: x-mcp-header `Bad Region` is not a valid HTTP token"
                .into()
        ))
    );
    state.focus = Pane::Servers;
    state.servers.sel = 1;
    update(&mut state, Msg::Key(Key::plain(KeyCode::Enter)));
    insta::assert_snapshot!("server_details_refused", shot(&state, 100, 24));
}

#[test]
fn server_details_say_when_lists_came_from_cache() {
    let mut state = booted();
    let mut snap = ServerSnapshot::new(
        "regions",
        TransportKind::Http,
        "https://mcp.example.com/mcp".into(),
        Hub::Ready,
    );
    let listed_at = std::time::SystemTime::now() - std::time::Duration::from_secs(12);
    let cached = |kind| ListFreshness {
        kind,
        listed_at,
        ttl_ms: Some(600_000),
        scope: Some("private".into()),
        from_cache: true,
    };
    snap.catalog = Arc::new(CatalogSnapshot {
        fresh: vec![cached(ListKind::Tools), cached(ListKind::Prompts)],
        ..CatalogSnapshot::default()
    });
    let hub = HubSnapshot {
        servers: vec![Arc::new(snap)],
    };
    state.servers.rows = server_rows(&state.servers.rows, &hub);
    assert!(state.servers.rows[1].facts.contains(&(
        "cached".into(),
        "tools, prompts 12s ago (ttl 600s, private)".into()
    )));
    state.focus = Pane::Servers;
    state.servers.sel = 1;
    update(&mut state, Msg::Key(Key::plain(KeyCode::Enter)));
    insta::assert_snapshot!("server_details_cached", shot(&state, 100, 24));
}
