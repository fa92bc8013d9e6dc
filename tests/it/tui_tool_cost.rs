//! What tools cost, as the TUI shows it: each server's declarations in tokens (the
//! Servers pane and its details), the total in the status bar once it matters, and
//! tool search's notes and status when it is on.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use serde_json::json;
use switchboard::agent::AgentEvent;
use switchboard::agent::exposure::{OfferReport, ToolBudget};
use switchboard::gate::CallId;
use switchboard::keymap::{Key, KeyCode};
use switchboard::mcp::{
    CatalogSnapshot, CatalogTool, HubSnapshot, ServerSnapshot, ServerStatus, TransportKind,
};
use switchboard::tui::hub_view::{catalog, server_rows};
use switchboard::tui::state::{Pane, State};
use switchboard::tui::{Msg, update};

use crate::support::tui::{ev, shot};

/// A server of `n` tools, each with a long description and a few arguments.
fn big(n: usize) -> HubSnapshot {
    let mut server = ServerSnapshot::new(
        "big",
        TransportKind::Stdio,
        "big-mcp".into(),
        ServerStatus::Ready,
    );
    let tools = (0..n)
        .map(|i| CatalogTool {
            name: format!("report_{i}"),
            title: None,
            description: "Summarise the quarterly sales figures by region and product line, \
                          with totals, growth against the last quarter and notes."
                .repeat(4),
            input_schema: json!({"type": "object", "properties": {
                "region": {"type": "string", "description": "Region code, e.g. EMEA."},
                "quarter": {"type": "string", "description": "Like 2026-Q3."},
                "detail": {"type": "boolean"}}}),
            output_schema: None,
            annotations: None,
            icons: 0,
            task: None,
            ui: None,
        })
        .collect();
    server.catalog = Arc::new(CatalogSnapshot {
        tools,
        ..CatalogSnapshot::default()
    });
    HubSnapshot {
        servers: vec![Arc::new(server)],
    }
}

fn started(kind: &str, window: u64) -> State {
    let mut s = crate::support::tui::booted();
    s.chat.entries.clear();
    ev(
        &mut s,
        AgentEvent::SessionStarted {
            session_id: "s1".into(),
            provider: "claude".into(),
            model: "claude-sonnet-4-5".into(),
            step_mode: false,
            workspace: None,
            tools: Some(ToolBudget {
                kind: kind.into(),
                window,
            }),
        },
    );
    let hub = big(120);
    let rows = server_rows(&s.servers.rows, &hub);
    update(
        &mut s,
        Msg::Servers {
            rows,
            catalog: catalog(&[], &hub),
            snapshot: Arc::new(hub),
        },
    );
    s
}

#[test]
fn servers_and_status_say_what_tools_cost() {
    let mut s = started("anthropic", 200_000);
    let row = s.servers.rows.iter().find(|r| r.name == "big").unwrap();
    let tokens = row.declared.tokens(s.status.declaration_shape());
    assert!(tokens > 20_000, "{tokens}");
    s.focus = Pane::Servers;
    let screen = shot(&s, 110, 24);
    assert!(screen.contains("120 tools · "), "{screen}");
    assert!(
        screen.contains(&format!("tools {}k tok", tokens / 1000)),
        "{screen}"
    );
    insta::assert_snapshot!("tool_cost_status", screen);
    update(&mut s, Msg::Key(Key::char('j')));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    let detail = shot(&s, 110, 24);
    assert!(detail.contains("tool declarations: ≈"), "{detail}");
    assert!(
        detail.contains("of a 200k window) as anthropic declares them"),
        "{detail}"
    );
    insta::assert_snapshot!("tool_cost_detail", detail);
}

#[test]
fn a_small_catalog_leaves_the_status_bar_alone() {
    // 120 tools in a 1M-token window: under 5 %, nothing to say.
    let s = started("gemini", 1_048_576);
    assert!(!shot(&s, 110, 24).contains("tok ("));
}

#[test]
fn tool_search_says_when_it_turns_on_and_what_it_found() {
    let mut s = started("anthropic", 200_000);
    ev(
        &mut s,
        AgentEvent::ToolsOffered {
            run_id: "r1".into(),
            report: OfferReport {
                offered: 6,
                offered_tokens: 2_140,
                total: 125,
                total_tokens: 41_200,
                window: 200_000,
                search: true,
            },
        },
    );
    ev(
        &mut s,
        AgentEvent::ToolsLoaded {
            run_id: "r1".into(),
            call_id: CallId::new("c1"),
            tools: vec!["big__report_3".into(), "big__report_7".into()],
        },
    );
    let screen = shot(&s, 110, 24);
    assert!(
        screen.contains("Tool search on: 125 tools (41k tok, 20 % of the 200k tok window)"),
        "{screen}"
    );
    assert!(
        screen.contains("tool_search found 2 tools: big__report_3, big__report_7"),
        "{screen}"
    );
    assert!(screen.contains("tools 2.1k tok · search"), "{screen}");
    insta::assert_snapshot!("tool_search_on", screen);
}

/// The hub's snapshot changes with every status change of any server; a server's
/// declarations are weighed again only when its catalog changed.
#[test]
fn a_servers_declarations_are_weighed_once_per_catalog() {
    use switchboard::tui::hub_view::{DeclaredSizes, server_rows_with};
    let mut sizes = DeclaredSizes::default();
    let hub = big(50);
    let first = server_rows_with(&[], &hub, &mut sizes);
    assert_eq!(sizes.weighed, 1);
    // Another status, the same catalog: reused, and the same figure.
    let mut moved = ServerSnapshot::clone(&hub.servers[0]);
    moved.status = ServerStatus::Disconnected {
        reason: "gone".into(),
    };
    let moved = HubSnapshot {
        servers: vec![Arc::new(moved)],
    };
    let again = server_rows_with(&[], &moved, &mut sizes);
    assert_eq!(sizes.weighed, 1);
    assert_eq!(again[0].declared, first[0].declared);
    // A new catalog is weighed again.
    let smaller = server_rows_with(&[], &big(10), &mut sizes);
    assert_eq!(sizes.weighed, 2);
    assert!(smaller[0].declared.tools < first[0].declared.tools);
    assert_eq!(server_rows(&[], &big(10))[0].declared, smaller[0].declared);
}
