//! The catalog's Agents tab: shown only when `[agents.*]` are configured, listing
//! each `agent__NAME` with what it is; `c` opens the call form for it.
#![allow(clippy::unwrap_used)]

use crate::support;

use std::path::Path;
use std::sync::Arc;

use switchboard::gate::ApprovalBroker;
use switchboard::keymap::{Key, KeyCode};
use switchboard::policy::{Mode, Policy};
use switchboard::tools::Registry;
use switchboard::tui::state::{CatalogTab, Overlay, Pane};
use switchboard::tui::{Msg, update};

async fn with_agents(toml: &str) -> switchboard::tui::state::State {
    let config = switchboard::settings::parse_str(toml, Path::new("t.toml")).unwrap();
    let broker = Arc::new(ApprovalBroker::new(false));
    let registry = Arc::new(Registry::new(Policy::new(Mode::Ask), broker));
    switchboard::agents::register_agents(&registry, &config, Path::new(".")).await;
    let mut state = support::tui::state();
    switchboard::tui::boot::with_tools(
        &mut state,
        "ask".into(),
        Err("none"),
        None,
        &registry.specs(),
    );
    let lines: Vec<(String, String)> = (config.agents.iter())
        .map(|(n, d)| {
            (
                switchboard::config::AgentDef::tool_name(n),
                switchboard::agents::describe(n, d),
            )
        })
        .collect();
    switchboard::tui::boot::describe_agents(&mut state, &lines);
    state.focus = Pane::Catalog;
    state
}

#[tokio::test]
async fn the_agents_tab_lists_configured_agents_and_calls_them_with_a_form() {
    let mut state = with_agents(
        "[agents.scout]\ndescription = \"Reads the repository.\"\n\n[agents.pair]\nkind = \"chain\"\nagents = [\"scout\", \"scout\"]\n",
    )
    .await;
    // Tools → Resources → Templates → Prompts → Agents.
    for _ in 0..4 {
        update(&mut state, Msg::Key(Key::char(']')));
    }
    assert_eq!(state.catalog.tab, CatalogTab::Agents);
    let screen = support::tui::shot(&state, 110, 30);
    assert!(screen.contains("Agt 2"), "{screen}");
    assert!(
        screen.contains("agent pair") && screen.contains("agent scout"),
        "{screen}"
    );
    update(&mut state, Msg::Key(Key::plain(KeyCode::Enter)));
    let detail = support::tui::shot(&state, 110, 30);
    assert!(detail.contains("chain: scout → scout"), "{detail}");
    update(&mut state, Msg::Key(Key::char('c')));
    let Some(Overlay::Form(form)) = state.overlays.top() else {
        panic!("no form: {:?}", state.overlays.top().cloned())
    };
    assert!(
        format!("{:?}", form.target).contains("agent__pair"),
        "{:?}",
        form.target
    );
    // Wrapping forward from Agents comes back to Tools.
    state.overlays.clear();
    update(&mut state, Msg::Key(Key::char(']')));
    assert_eq!(state.catalog.tab, CatalogTab::Tools);
}

#[tokio::test]
async fn without_agents_there_is_no_agents_tab() {
    let mut state = with_agents("").await;
    for _ in 0..4 {
        update(&mut state, Msg::Key(Key::char(']')));
    }
    assert_eq!(state.catalog.tab, CatalogTab::Tools);
    let screen = support::tui::shot(&state, 110, 30);
    assert!(
        screen.contains("Tools 0│Res 0│Tpl 0│Prm 0 ") && !screen.contains("Agt"),
        "{screen}"
    );
}
