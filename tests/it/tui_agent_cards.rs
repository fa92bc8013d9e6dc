//! Remote (`kind = "a2a"`) agents' cards in the catalog's Agents tab: read in the
//! background by the executor against the loopback A2A agent (tests/support), shown
//! as reading, read (name, description, protocol, streaming, skills) or unreadable
//! with the reason; a server refresh keeps them; hostile card text is sanitised.
#![allow(clippy::unwrap_used)]

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use switchboard::agent::EventSink;
use switchboard::gate::ApprovalBroker;
use switchboard::keymap::{Key, KeyCode};
use switchboard::policy::{Mode, Policy};
use switchboard::tools::Registry;
use switchboard::tui::agent_cards::{self, RemoteCard};
use switchboard::tui::executor::Executor;
use switchboard::tui::state::{CatalogTab, Pane, State};
use switchboard::tui::{Cmd, Msg, ServerCmd, update};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::support::a2a_server::{Options, Server};

/// The booted state for `toml` (agents registered, described), on the Agents tab,
/// and the command that reads the remote cards.
async fn booted(toml: &str) -> (State, Arc<Registry>, Option<Cmd>) {
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
    state.status.notice = None;
    let cmd = agent_cards::start(&mut state, &config);
    state.focus = Pane::Catalog;
    state.catalog.tab = CatalogTab::Agents;
    (state, registry, cmd)
}

/// The executor's answers: `n` messages from its inbox, each handled.
async fn answers(exec: &mut Executor, inbox: &mut UnboundedReceiver<Msg>, n: usize) {
    for _ in 0..n {
        let msg = tokio::time::timeout(Duration::from_secs(20), inbox.recv())
            .await
            .unwrap()
            .unwrap();
        assert!(matches!(msg, Msg::AgentCard { .. }), "{msg:?}");
        exec.handle(msg);
    }
}

/// The screen with the loopback agent's port (random) written as PORT.
fn shot(state: &State, port: &str) -> String {
    support::tui::shot(state, 140, 30).replace(port, "PORT1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cards_are_read_in_the_background_and_shown_with_their_skills() {
    let server = Server::start(Options {
        streaming: true,
        ..Options::default()
    })
    .await;
    let port = server.url.rsplit(':').next().unwrap().to_owned();
    // The agent serves no card at that path: HTTP 404, so it cannot be read.
    let toml = format!(
        "[agents.echo]\nkind = \"a2a\"\nurl = \"{0}\"\n\n[agents.gone]\nkind = \"a2a\"\nurl = \"{0}/nowhere/card.json\"\n\n[agents.scout]\ndescription = \"Reads the repository.\"\n",
        server.url
    );
    let (state, registry, cmd) = booted(&toml).await;
    let Some(Cmd::Server(ServerCmd::ReadAgentCards { agents, timeout })) = &cmd else {
        panic!("{cmd:?}")
    };
    let names: Vec<&str> = agents.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        names,
        ["agent__echo", "agent__gone"],
        "local agents have no card"
    );
    assert_eq!(*timeout, agent_cards::CARD_TIMEOUT);
    // Before any answer (the first frame): the rows say the cards are being read.
    assert_eq!(
        state.catalog.items.cards.get("agent__echo"),
        Some(&RemoteCard::Reading)
    );
    insta::assert_snapshot!("agent_cards_reading", shot(&state, &port));

    let (tx, _route) = unbounded_channel();
    let (inbox, mut inbox_rx) = unbounded_channel();
    let mut exec = Executor::new(state, registry, EventSink::new(tx, None), inbox);
    assert!(!exec.handle_cmd(cmd.unwrap()), "reading does not wait");
    answers(&mut exec, &mut inbox_rx, 2).await;
    let mut state = exec.state().clone();
    let Some(RemoteCard::Read(card)) = state.catalog.items.cards.get("agent__echo") else {
        panic!("{:?}", state.catalog.items.cards)
    };
    assert_eq!(
        (
            card.name.as_str(),
            card.streaming,
            card.skills[0].tags.len()
        ),
        ("Echo agent", true, 1)
    );
    let Some(RemoteCard::Unreadable(why)) = state.catalog.items.cards.get("agent__gone") else {
        panic!("{:?}", state.catalog.items.cards)
    };
    assert_eq!(
        why,
        &format!(
            "A2A server at {}/nowhere/card.json answered HTTP 404",
            server.url
        )
    );
    let rows = shot(&state, &port);
    assert!(
        rows.contains("agent echo  Echo agent · 1 skill") && rows.contains("card unreadable"),
        "{rows}"
    );
    insta::assert_snapshot!("agent_cards_rows", rows);

    // The detail of the read card: its description, protocol, streaming and skills.
    update(&mut state, Msg::Key(Key::plain(KeyCode::Enter)));
    let detail = shot(&state, &port);
    for part in [
        "Echo agent 1.0.0",
        "Repeats tasks",
        "protocol: A2A 1.0 · JSON-RPC at http://127.0.0.1:PORT1/",
        "streaming: yes",
        "Skills (1)",
        "Echo  [test]",
        "Repeats the task",
    ] {
        assert!(detail.contains(part), "{part}: {detail}");
    }
    insta::assert_snapshot!("agent_card_detail", detail);
    // The unreadable one says why.
    update(&mut state, Msg::Key(Key::plain(KeyCode::Esc)));
    update(&mut state, Msg::Key(Key::plain(KeyCode::Down)));
    update(&mut state, Msg::Key(Key::plain(KeyCode::Enter)));
    let detail = shot(&state, &port);
    assert!(
        detail.contains("could not be read: A2A server at http://127.0.0.1:PORT1/nowhere"),
        "{detail}"
    );
    insta::assert_snapshot!("agent_card_unreadable", detail);

    // A change of the servers' catalog keeps the agents and their cards.
    let before = state.catalog.items.cards.clone();
    let rows = state.servers.rows.clone();
    update(
        &mut state,
        Msg::Servers {
            rows,
            catalog: switchboard::tui::state::Catalog::default(),
            snapshot: std::sync::Arc::default(),
        },
    );
    assert_eq!(state.catalog.items.agents.len(), 3);
    assert_eq!(state.catalog.items.cards, before);
    assert!(state.catalog.items.tools.is_empty());
}

#[tokio::test]
async fn an_agent_that_never_answers_or_lacks_its_token_is_unreadable_with_the_reason() {
    // Accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hold = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            open.push(stream);
        }
    });
    let toml = format!(
        "[agents.mute]\nkind = \"a2a\"\nurl = \"{url}\"\n\n[agents.locked]\nkind = \"a2a\"\nurl = \"{url}\"\nbearer_token_env_var = \"SWITCHBOARD_TEST_NEVER_SET\"\n"
    );
    let (state, registry, cmd) = booted(&toml).await;
    let Some(Cmd::Server(ServerCmd::ReadAgentCards { agents, .. })) = cmd else {
        panic!()
    };
    let (tx, _route) = unbounded_channel();
    let (inbox, mut inbox_rx) = unbounded_channel();
    let mut exec = Executor::new(state, registry, EventSink::new(tx, None), inbox);
    let started = std::time::Instant::now();
    exec.handle_cmd(Cmd::Server(ServerCmd::ReadAgentCards {
        agents,
        timeout: Duration::from_millis(300),
    }));
    answers(&mut exec, &mut inbox_rx, 2).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    // A token variable that is not set: nothing is sent, and the entry says so.
    assert_eq!(
        exec.state().catalog.items.cards.get("agent__locked"),
        Some(&RemoteCard::Unreadable(
            "A2A credentials: set the environment variable SWITCHBOARD_TEST_NEVER_SET".into()
        ))
    );
    assert_eq!(
        exec.state().catalog.items.cards.get("agent__mute"),
        Some(&RemoteCard::Unreadable(format!(
            "no answer from {url} within 0.3 s"
        )))
    );
    hold.abort();
}

#[tokio::test]
async fn a_hostile_card_reaches_the_screen_sanitised() {
    let toml = "[agents.evil]\nkind = \"a2a\"\nurl = \"http://127.0.0.1:1\"\n";
    let (mut state, _registry, _) = booted(toml).await;
    let card = switchboard::a2a::AgentCard {
        name: "Evil\u{1b}]52;c;aGk=\u{7} agent".into(),
        description: "line one\u{1b}[2J\nline two".into(),
        version: "9\u{1b}[31m".into(),
        streaming: false,
        skills: vec![switchboard::a2a::Skill {
            id: "x".into(),
            name: "Wipe\u{1b}[H".into(),
            description: "\u{9b}31mred".into(),
            tags: vec!["t\u{1b}[1m".into()],
        }],
        interface: switchboard::a2a::Interface {
            url: "http://h/\u{1b}[5m".into(),
            version: switchboard::a2a::ProtocolVersion::V0_3,
        },
        security: vec!["bearer\u{1b}[2J (http bearer)".into()],
    };
    update(
        &mut state,
        Msg::AgentCard {
            tool: "agent__evil".into(),
            card: Ok(Box::new(card)),
        },
    );
    let rows = support::tui::shot(&state, 110, 30);
    update(&mut state, Msg::Key(Key::plain(KeyCode::Enter)));
    let detail = support::tui::shot(&state, 110, 30);
    for screen in [&rows, &detail] {
        assert!(
            !screen.contains('\u{1b}') && !screen.contains('\u{7}') && !screen.contains('\u{9b}'),
            "{screen:?}"
        );
    }
    assert!(rows.contains("Evil"), "{rows}");
    assert!(
        detail.contains("line one") && detail.contains("line two") && detail.contains("A2A 0.3"),
        "{detail}"
    );
    assert!(detail.contains("streaming: no (polls)"), "{detail}");
}
