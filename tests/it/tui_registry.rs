//! "Add server…" in the palette: the MCP Registry from the TUI. `update` as whole
//! values (typing sends a search, results fill the list, Enter shows the details, an
//! install with a required secret writes `${VAR}`, Esc closes), snapshots of each
//! state, and the executor against the stand-in registry of `registry.rs`.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use switchboard::keymap::{Key, KeyCode};
use switchboard::registry::ServerResponse;
use switchboard::tui::registry::{
    Installed, RegistryMsg, RegistryPhase, RegistryPlace, RegistryView, Results,
};
use switchboard::tui::state::{Overlay, State};
use switchboard::tui::{Cmd, Msg, RegistryCmd, update};

use crate::registry::{StandIn, fixture};
use crate::support;
use crate::support::tui::{shot, typed};

fn place(dir: &Path, url: &str) -> RegistryPlace {
    RegistryPlace {
        url: url.to_owned(),
        cache_dir: dir.join("cache"),
        user_config: dir.join("config/switchboard/config.toml"),
    }
}

fn entries() -> Vec<ServerResponse> {
    fixture()
        .into_iter()
        .map(|v: Value| serde_json::from_value(v).unwrap())
        .filter(|e: &ServerResponse| e.status() != switchboard::registry::Status::Deleted)
        .collect()
}

fn opened() -> State {
    let mut state = support::tui::state();
    state.registry_place = Some(place(Path::new("/home/me"), "http://127.0.0.1:9"));
    update(&mut state, Msg::Key(Key::ctrl('p')));
    typed(&mut state, "add server");
    update(&mut state, Msg::Key(Key::plain(KeyCode::Enter)));
    state
}

fn view(state: &State) -> &RegistryView {
    match state.overlays.top() {
        Some(Overlay::Registry(view)) => view,
        other => panic!("not the registry overlay: {other:?}"),
    }
}

fn enter(state: &mut State) -> Vec<Cmd> {
    update(state, Msg::Key(Key::plain(KeyCode::Enter)))
}

/// The overlay after typing `weather` and the results arriving.
fn with_results() -> State {
    let mut state = opened();
    typed(&mut state, "weather");
    let seq = view(&state).seq;
    update(
        &mut state,
        Msg::Registry(RegistryMsg::Found {
            seq,
            query: "weather".into(),
            result: Ok(Box::new(Results {
                servers: entries(),
                cached: None,
            })),
        }),
    );
    state
}

#[test]
fn the_palette_opens_it_and_typing_sends_a_search() {
    let mut state = opened();
    assert_eq!(view(&state), &RegistryView::default());
    let cmds = update(&mut state, Msg::Key(Key::char('w')));
    assert_eq!(
        cmds,
        vec![Cmd::Registry(RegistryCmd::Search {
            seq: 1,
            query: "w".into()
        })]
    );
    let cmds = update(&mut state, Msg::Key(Key::char('x')));
    assert_eq!(
        cmds,
        vec![Cmd::Registry(RegistryCmd::Search {
            seq: 2,
            query: "wx".into()
        })]
    );
    let cmds = update(&mut state, Msg::Paste("y\n".into()));
    assert_eq!(
        cmds,
        vec![Cmd::Registry(RegistryCmd::Search {
            seq: 3,
            query: "wxy".into()
        })]
    );
    assert_eq!(
        view(&state),
        &RegistryView {
            query: "wxy".into(),
            seq: 3,
            searching: true,
            ..RegistryView::default()
        }
    );
}

#[test]
fn results_fill_the_list_and_older_answers_are_dropped() {
    let mut state = opened();
    typed(&mut state, "we");
    // The answer to the first search ("w") comes late: dropped.
    update(
        &mut state,
        Msg::Registry(RegistryMsg::Found {
            seq: 1,
            query: "w".into(),
            result: Ok(Box::default()),
        }),
    );
    assert!(view(&state).searching);
    let servers = entries();
    update(
        &mut state,
        Msg::Registry(RegistryMsg::Found {
            seq: 2,
            query: "we".into(),
            result: Ok(Box::new(Results {
                servers: servers.clone(),
                cached: Some((
                    "3 h".into(),
                    "the registry at http://127.0.0.1:9 could not be reached: refused".into(),
                )),
            })),
        }),
    );
    assert_eq!(
        view(&state),
        &RegistryView {
            query: "we".into(),
            seq: 2,
            searching: false,
            results: servers,
            selected: 0,
            error: Some("the registry at http://127.0.0.1:9 could not be reached: refused".into()),
            cached_age: Some("3 h".into()),
            phase: RegistryPhase::List,
        }
    );
    update(&mut state, Msg::Key(Key::plain(KeyCode::Down)));
    assert_eq!(view(&state).selected, 1);
}

#[test]
fn enter_shows_the_details() {
    let mut state = with_results();
    assert_eq!(enter(&mut state), vec![]);
    assert_eq!(view(&state).phase, RegistryPhase::Details);
    assert_eq!(
        view(&state).results[view(&state).selected].server.name,
        "io.github.acme/weather"
    );
}

#[test]
fn install_with_a_required_secret_writes_a_reference() {
    let mut state = with_results();
    enter(&mut state);
    // Install: the form asks for WEATHER_UNITS (the secret is not asked).
    assert_eq!(enter(&mut state), vec![]);
    let RegistryPhase::Form(form) = &view(&state).phase else {
        panic!("no form: {:?}", view(&state).phase);
    };
    let asked: Vec<&str> = form.questions.iter().map(|q| q.key.as_str()).collect();
    assert_eq!(asked, ["WEATHER_UNITS"]);
    typed(&mut state, "imperial");
    assert_eq!(enter(&mut state), vec![]);
    assert!(matches!(view(&state).phase, RegistryPhase::Confirm { .. }));
    let cmds = update(&mut state, Msg::Key(Key::char('y')));
    let [Cmd::Registry(RegistryCmd::Install { key, server, shown })] = cmds.as_slice() else {
        panic!("no install: {cmds:?}");
    };
    assert_eq!(key, "weather");
    assert_eq!(server.command.as_deref(), Some("npx"));
    assert_eq!(server.args, ["-y", "@acme/weather-mcp@1.2.3"]);
    assert_eq!(server.env["WEATHER_API_KEY"], "${WEATHER_API_KEY}");
    assert_eq!(server.env["WEATHER_UNITS"], "imperial");
    assert_eq!(
        shown,
        &[
            "command: npx -y @acme/weather-mcp@1.2.3",
            "env: WEATHER_API_KEY=${WEATHER_API_KEY}",
            "env: WEATHER_UNITS=imperial",
            "secret: ${WEATHER_API_KEY} (environment variable WEATHER_API_KEY) is read from the environment when the server starts",
        ]
    );
    // The write done: the overlay closes and the transcript says what was written.
    update(
        &mut state,
        Msg::Registry(RegistryMsg::Installed(Ok(Installed {
            key: key.clone(),
            kind: "stdio".into(),
            path: "/home/me/.config/switchboard/config.toml".into(),
            shown: shown.clone(),
            notes: vec![],
        }))),
    );
    assert!(state.overlays.is_empty());
    let last = &state.chat.entries.last().unwrap().text;
    assert!(
        last.starts_with("added stdio server weather in /home/me/.config/switchboard/config.toml:"),
        "{last}"
    );
    assert!(
        last.contains("connects when switchboard next starts"),
        "{last}"
    );
}

#[test]
fn esc_steps_back_and_closes() {
    let mut state = with_results();
    enter(&mut state);
    update(&mut state, Msg::Key(Key::plain(KeyCode::Esc)));
    assert_eq!(view(&state).phase, RegistryPhase::List);
    update(&mut state, Msg::Key(Key::plain(KeyCode::Esc)));
    assert!(state.overlays.is_empty());
}

#[test]
fn snapshots_of_each_state() {
    let mut state = opened();
    insta::assert_snapshot!("registry_empty", shot(&state, 100, 30));
    state = with_results();
    insta::assert_snapshot!("registry_results", shot(&state, 100, 30));
    let mut down = opened();
    typed(&mut down, "x");
    update(
        &mut down,
        Msg::Registry(RegistryMsg::Found {
            seq: 1,
            query: "x".into(),
            result: Err(
                "the registry at http://127.0.0.1:9 could not be reached: connection refused"
                    .into(),
            ),
        }),
    );
    insta::assert_snapshot!("registry_down", shot(&down, 100, 30));
    enter(&mut state);
    insta::assert_snapshot!("registry_details", shot(&state, 100, 30));
    enter(&mut state);
    typed(&mut state, "imperial");
    insta::assert_snapshot!("registry_form", shot(&state, 100, 30));
    enter(&mut state);
    insta::assert_snapshot!("registry_confirm", shot(&state, 100, 30));
}

/// An executor over a state whose registry is `place`, and its inbox.
fn executor(
    place: RegistryPlace,
) -> (
    switchboard::tui::executor::Executor,
    tokio::sync::mpsc::UnboundedReceiver<Msg>,
) {
    let broker = Arc::new(switchboard::gate::ApprovalBroker::new(false));
    let tools = Arc::new(switchboard::tools::Registry::new(
        switchboard::policy::Policy::new(switchboard::policy::Mode::Ask),
        broker,
    ));
    let (tx, _route) = tokio::sync::mpsc::unbounded_channel();
    let (inbox, inbox_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut state = support::tui::state();
    state.registry_place = Some(place);
    let exec = switchboard::tui::executor::Executor::new(
        state,
        tools,
        switchboard::agent::EventSink::new(tx, None),
        inbox,
    );
    (exec, inbox_rx)
}

/// Pumps the executor's inbox into it until `done`, within the deadline.
async fn pump(
    exec: &mut switchboard::tui::executor::Executor,
    inbox: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
    done: impl Fn(&State) -> bool,
) {
    support::within(async {
        while !done(exec.state()) {
            let msg = inbox.recv().await.unwrap();
            exec.handle(msg);
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_executor_searches_the_stand_in_and_writes_the_users_file() {
    let registry = tokio::task::spawn_blocking(StandIn::start).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut exec, mut inbox_rx) = executor(place(dir.path(), &registry.url));
    exec.handle(Msg::Key(Key::ctrl('p')));
    for c in "add server".chars() {
        exec.handle(Msg::Key(Key::char(c)));
    }
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    // Typed fast: only the last search answers (the others were cut short).
    for c in "forecasts".chars() {
        exec.handle(Msg::Key(Key::char(c)));
    }
    pump(
        &mut exec,
        &mut inbox_rx,
        |s| matches!(s.overlays.top(), Some(Overlay::Registry(v)) if !v.searching),
    )
    .await;
    let names: Vec<String> = view(exec.state())
        .results
        .iter()
        .map(|e| e.server.name.clone())
        .collect();
    assert_eq!(
        names,
        ["io.github.acme/weather"],
        "{:?}",
        view(exec.state()).error
    );
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    // WEATHER_UNITS has a default: Enter takes it.
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    exec.handle(Msg::Key(Key::char('y')));
    assert!(
        exec.state().overlays.is_empty(),
        "{:?}",
        exec.state().status.notice
    );
    let written =
        std::fs::read_to_string(dir.path().join("config/switchboard/config.toml")).unwrap();
    assert!(written.contains("[servers.weather]"), "{written}");
    assert!(
        written.contains("WEATHER_API_KEY = \"${WEATHER_API_KEY}\""),
        "{written}"
    );
    assert!(written.contains("WEATHER_UNITS = \"metric\""), "{written}");
}

/// Opens "Add server…" in `exec` and types `query`; waits for the answer.
async fn search_in(
    exec: &mut switchboard::tui::executor::Executor,
    inbox: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
    query: &str,
) {
    exec.handle(Msg::Key(Key::ctrl('p')));
    for c in "add server".chars() {
        exec.handle(Msg::Key(Key::char(c)));
    }
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    exec.handle(Msg::Paste(query.into()));
    pump(
        exec,
        inbox,
        |s| matches!(s.overlays.top(), Some(Overlay::Registry(v)) if !v.searching),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registry_down_names_its_url_and_the_kept_list_says_its_age() {
    let registry = tokio::task::spawn_blocking(StandIn::start).await.unwrap();
    let url = registry.url.clone();
    let dir = tempfile::tempdir().unwrap();
    let (mut exec, mut inbox_rx) = executor(place(dir.path(), &url));
    // Once with the registry up: the whole list is kept.
    search_in(&mut exec, &mut inbox_rx, "tides").await;
    assert_eq!(view(exec.state()).results.len(), 1);
    assert_eq!(view(exec.state()).cached_age, None);
    exec.handle(Msg::Key(Key::plain(KeyCode::Esc)));
    drop(registry);
    // Down: the kept list answers, saying its age and the registry's error.
    search_in(&mut exec, &mut inbox_rx, "tides").await;
    let shown = view(exec.state());
    assert_eq!(shown.results.len(), 1, "{:?}", shown.error);
    assert!(shown.cached_age.is_some());
    let error = shown.error.clone().unwrap();
    assert!(error.contains(&url), "{error}");
    exec.handle(Msg::Key(Key::plain(KeyCode::Esc)));
    // Down and nothing kept for it: the error alone, naming the registry.
    let mut elsewhere = place(&dir.path().join("other"), &url);
    elsewhere.cache_dir = dir.path().join("empty-cache");
    let (mut exec, mut inbox_rx) = executor(elsewhere);
    search_in(&mut exec, &mut inbox_rx, "tides").await;
    let shown = view(exec.state());
    assert!(shown.results.is_empty());
    assert_eq!(shown.cached_age, None);
    let error = shown.error.clone().unwrap();
    assert!(
        error.starts_with(&format!("the registry at {url}")),
        "{error}"
    );
}
