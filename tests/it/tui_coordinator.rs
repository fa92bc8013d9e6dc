//! The coordinator from the TUI: `/agents a,b --mode M TASK` (or the palette's "Run
//! agents…") runs the agents through the executor and the real gate; one card for
//! the run, each agent's call and the agents' own calls nested under it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::fmt::Write as _;
use std::path::Path;

use switchboard::agent::EventSink;
use switchboard::keymap::{Key, KeyCode};
use switchboard::policy::{Mode, Policy};
use switchboard::tools::builtin_specs::fs_spec;
use switchboard::tui::cards::{CardStatus, ToolCard};
use switchboard::tui::executor::Executor;
use switchboard::tui::state::Overlay;
use switchboard::tui::{Msg, State};
use tokio::sync::mpsc::unbounded_channel;

const SCOUT: &str = r#"{"tool_calls":[{"name":"fs","arguments":{"operation":"list","path":"."}}]}
{"text":"three files"}"#;
const WRITER: &str = r#"{"text":"a summary of three files"}"#;

/// An executor whose registry has a fake `fs` and the agents `scout` and `writer`
/// (scripted), in full-auto.
async fn executor(
    dir: &Path,
) -> (
    Executor,
    tokio::sync::mpsc::UnboundedReceiver<switchboard::agent::AgentEvent>,
) {
    let mut toml = String::new();
    for (name, script) in [("scout", SCOUT), ("writer", WRITER)] {
        let path = dir.join(format!("{name}.jsonl"));
        std::fs::write(&path, script).unwrap();
        let _ = write!(
            toml,
            "[providers.{name}]\nkind = \"scripted\"\nscript = \"{}\"\n\n[agents.{name}]\nprovider = \"{name}\"\n\n",
            path.display()
        );
    }
    let config = switchboard::settings::parse_str(&toml, Path::new("t.toml")).unwrap();
    let (registry, _fs) =
        support::gate::registry_with(Policy::new(Mode::FullAuto), true, fs_spec()).await;
    switchboard::agents::register_agents(&registry, &config, dir).await;
    let (tx, route) = unbounded_channel();
    let (inbox, rx) = unbounded_channel();
    std::mem::forget(rx); // background results are not needed here
    let mut state = support::tui::booted();
    switchboard::tui::boot::with_tools(
        &mut state,
        "full-auto".into(),
        Err("none"),
        None,
        &registry.specs(),
    );
    let exec = Executor::new(state, registry, EventSink::new(tx, None), inbox);
    (exec, route)
}

fn run_card(state: &State) -> &ToolCard {
    state
        .chat
        .entries
        .iter()
        .find_map(|e| e.card.as_ref())
        .unwrap()
}

#[tokio::test]
async fn agents_run_from_the_composer_nest_under_one_card() {
    let dir = tempfile::tempdir().unwrap();
    let (mut exec, mut route) = executor(dir.path()).await;
    exec.handle(Msg::Paste(
        "/agents scout,writer --mode pipeline list the files".into(),
    ));
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    let open = |s: &State| {
        s.chat
            .entries
            .iter()
            .filter_map(|e| e.card.as_ref())
            .all(|c| c.status.is_open())
    };
    while open(exec.state()) {
        let wait = std::time::Duration::from_secs(30);
        let event = tokio::time::timeout(wait, route.recv())
            .await
            .unwrap()
            .unwrap();
        exec.handle(Msg::Agent(Box::new(event)));
    }
    let card = run_card(exec.state());
    assert_eq!(card.status, CardStatus::Ok);
    assert_eq!(card.tool, "run agents scout, writer · pipeline");
    let steps: Vec<&str> = card.children.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(steps, vec!["agent__scout", "agent__writer"]);
    let scouts: Vec<&str> = (card.children[0].children.iter())
        .map(|c| c.tool.as_str())
        .collect();
    assert_eq!(
        scouts,
        vec!["fs"],
        "the scout's own call nests under its step"
    );
    let result = card.result.as_deref().unwrap();
    assert_eq!(
        result,
        "== scout ==\nthree files\n== writer ==\na summary of three files\n"
    );
    let mut state = exec.state().clone();
    support::tui::zero_durations(&mut state);
    state.chat.cards_expanded = true;
    insta::assert_snapshot!("agents_run_expanded", support::tui::shot(&state, 100, 26));
}

#[tokio::test]
async fn the_palette_starts_the_line_and_unknown_agents_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let (mut exec, _route) = executor(dir.path()).await;
    exec.handle(Msg::Key(Key::ctrl('p')));
    assert!(matches!(
        exec.state().overlays.top().cloned(),
        Some(Overlay::Palette(_))
    ));
    exec.handle(Msg::Paste("run agents".into()));
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    assert_eq!(
        exec.state().composer.text(),
        "/agents scout,writer --mode sequential "
    );
    let (mut exec, _route) = executor(dir.path()).await;
    exec.handle(Msg::Paste("/agents scuot hello".into()));
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    let last = exec.state().chat.entries.last().unwrap();
    assert!(
        last.text.contains("there is no agent named scuot") && last.text.contains("scout"),
        "{}",
        last.text
    );
}
