//! The login overlay as `update` sees it (whole values) and as it is drawn: a server
//! that needs a login is shown as such, `l` and the palette start a login, the
//! overlay follows the login task, a paste and Enter hand the redirect over, Ctrl+Y
//! copies the URL, Esc cancels; a stored login shows in the server's details.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use crate::support::tui::{booted, shot};
use switchboard::keymap::{Key, KeyCode};
use switchboard::mcp::oauth::LoginSummary;
use switchboard::mcp::{HubSnapshot, ServerSnapshot, ServerStatus as Hub, TransportKind};
use switchboard::tui::hub_view::server_rows;
use switchboard::tui::login::{LoginMsg, LoginPhase, LoginView};
use switchboard::tui::msg::{Cmd, LoginCmd, ServerCmd, UiCmd};
use switchboard::tui::state::{NoticeLevel, Overlay, Pane, ServerStatus, State};
use switchboard::tui::{Msg, update};

fn hub(status: Hub, login: Option<LoginSummary>) -> HubSnapshot {
    let mut snap = ServerSnapshot::new(
        "linear",
        TransportKind::Http,
        "https://mcp.example.com/mcp".into(),
        status,
    );
    snap.login = login;
    HubSnapshot {
        servers: vec![Arc::new(snap)],
    }
}

fn needs_login() -> State {
    let mut state = booted();
    let snapshot = hub(
        Hub::NeedsLogin {
            reason: "the server answered 401 (authorization required)".into(),
        },
        None,
    );
    state.servers.rows = server_rows(&state.servers.rows, &snapshot);
    state.focus = Pane::Servers;
    state
}

fn waiting(state: &mut State) {
    update(
        state,
        Msg::Login(LoginMsg::Waiting {
            server: "linear".into(),
            url: "https://auth.example.com/authorize?client_id=abc&state=xyz&code_challenge=q"
                .into(),
            port: 41234,
            opened: Err("xdg-open: No such file or directory (os error 2)".into()),
        }),
    );
}

fn key(state: &mut State, code: KeyCode) -> Vec<Cmd> {
    update(state, Msg::Key(Key::plain(code)))
}

#[test]
fn a_server_that_asks_shows_needs_login_not_failed() {
    let state = needs_login();
    let row = &state.servers.rows[1];
    assert_eq!(row.status, ServerStatus::NeedsLogin);
    assert_eq!(
        row.detail.as_deref(),
        Some("the server answered 401 (authorization required)")
    );
    assert!(
        row.facts
            .contains(&("login".into(), "not logged in: press l".into()))
    );
    insta::assert_snapshot!("servers_needs_login", shot(&state, 100, 24));
}

#[test]
fn l_starts_the_login_of_the_one_server_that_asks() {
    let mut state = needs_login();
    // The selection is on the built-in row; the one server that asks is meant.
    assert_eq!(state.servers.sel, 0);
    let cmds = key(&mut state, KeyCode::Char('l'));
    assert_eq!(cmds, vec![Cmd::Login(LoginCmd::Start("linear".into()))]);
    assert_eq!(
        state.overlays.top().cloned(),
        Some(Overlay::Login(LoginView {
            server: "linear".into(),
            phase: LoginPhase::Starting,
            pasted: String::new(),
        }))
    );
    insta::assert_snapshot!("login_starting", shot(&state, 100, 24));
}

#[test]
fn l_without_a_server_that_asks_only_says_so() {
    let mut state = booted();
    state.focus = Pane::Servers;
    assert!(key(&mut state, KeyCode::Char('l')).is_empty());
    assert_eq!(state.overlays.top().cloned(), None);
    let notice = state.status.notice.clone().unwrap();
    assert_eq!(
        (notice.level, notice.text.as_str()),
        (NoticeLevel::Info, "no server asks for a login")
    );
}

#[test]
fn the_palette_offers_the_login() {
    let mut state = needs_login();
    state.overlays.replace_top(Overlay::Palette(
        switchboard::tui::palette::PaletteState::default(),
    ));
    for c in "log in".chars() {
        key(&mut state, KeyCode::Char(c));
    }
    let cmds = key(&mut state, KeyCode::Enter);
    assert_eq!(cmds, vec![Cmd::Login(LoginCmd::Start("linear".into()))]);
    assert!(matches!(state.overlays.top(), Some(Overlay::Login(_))));
}

#[test]
fn a_paste_and_enter_hand_the_redirect_to_the_login() {
    let mut state = needs_login();
    key(&mut state, KeyCode::Char('l'));
    waiting(&mut state);
    insta::assert_snapshot!("login_waiting", shot(&state, 100, 24));
    // Enter with nothing pasted does nothing.
    assert!(key(&mut state, KeyCode::Enter).is_empty());
    let redirect = "http://127.0.0.1:41234/callback?code=c0de&state=xyz";
    update(&mut state, Msg::Paste(format!("{redirect}\n")));
    let Some(Overlay::Login(view)) = state.overlays.top() else {
        panic!("overlay closed")
    };
    assert_eq!(view.pasted, redirect);
    assert_eq!(
        key(&mut state, KeyCode::Enter),
        vec![Cmd::Login(LoginCmd::Paste(redirect.into()))]
    );
    let Some(Overlay::Login(view)) = state.overlays.top() else {
        panic!("overlay closed")
    };
    assert_eq!(view.phase, LoginPhase::Exchanging);
    let cmds = update(
        &mut state,
        Msg::Login(LoginMsg::Finished {
            server: "linear".into(),
            result: Ok("logged in (issuer https://auth.example.com)".into()),
        }),
    );
    assert_eq!(
        cmds,
        vec![Cmd::Server(ServerCmd::Reconnect("linear".into()))]
    );
    assert_eq!(state.overlays.top().cloned(), None);
    assert_eq!(
        state.status.notice.as_ref().map(|n| n.text.as_str()),
        Some("logged in to linear")
    );
}

#[test]
fn ctrl_y_copies_the_url_and_esc_cancels() {
    let mut state = needs_login();
    key(&mut state, KeyCode::Char('l'));
    waiting(&mut state);
    let cmds = update(&mut state, Msg::Key(Key::ctrl('y')));
    assert_eq!(
        cmds,
        vec![Cmd::Ui(UiCmd::CopyText(
            "https://auth.example.com/authorize?client_id=abc&state=xyz&code_challenge=q".into()
        ))]
    );
    assert_eq!(
        key(&mut state, KeyCode::Esc),
        vec![Cmd::Login(LoginCmd::Cancel)]
    );
    assert_eq!(state.overlays.top().cloned(), None);
    assert_eq!(
        state.status.notice.as_ref().map(|n| n.text.as_str()),
        Some("login to linear cancelled")
    );
}

#[test]
fn a_failed_login_stays_readable_and_esc_only_closes_it() {
    let mut state = needs_login();
    key(&mut state, KeyCode::Char('l'));
    let cmds = update(
        &mut state,
        Msg::Login(LoginMsg::Finished {
            server: "linear".into(),
            result: Err("oauth: token endpoint refused the code: invalid_grant".into()),
        }),
    );
    assert!(cmds.is_empty());
    insta::assert_snapshot!("login_failed", shot(&state, 100, 24));
    assert!(key(&mut state, KeyCode::Esc).is_empty());
    assert_eq!(state.overlays.top().cloned(), None);
}

#[test]
fn server_details_show_issuer_scopes_and_expiry() {
    let mut state = booted();
    let login = LoginSummary {
        issuer: Some("https://auth.example.com".into()),
        scopes: vec!["read".into(), "offline_access".into()],
        expires_at: Some(4_102_444_800),
        refreshable: true,
    };
    state.servers.rows = server_rows(&state.servers.rows, &hub(Hub::Ready, Some(login)));
    let facts = &state.servers.rows[1].facts;
    let get = |k: &str| facts.iter().find(|(l, _)| l == k).map(|(_, v)| v.as_str());
    assert_eq!(get("login issuer"), Some("https://auth.example.com"));
    assert_eq!(get("login scopes"), Some("read offline_access"));
    let expiry = get("login expiry").unwrap();
    assert!(
        expiry.starts_with("expires Fri, 01 Jan 2100 00:00:00 GMT (in ")
            && expiry.ends_with(", refreshed automatically"),
        "{expiry}"
    );
}
