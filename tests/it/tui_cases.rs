//! Saving test cases from the TUI: `/save-case [FILE]` and the `save_case` key (`S`)
//! append the person's last call, read or prompt with what came back; the file then
//! passes `switchboard test`.
#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use switchboard::cases::{Observed, Target};
use switchboard::config::ProtocolChoice;
use switchboard::keymap::{Key, KeyCode};
use switchboard::tui::msg::FileCmd;
use switchboard::tui::state::{LastCase, Pane, State};
use switchboard::tui::{Cmd, Msg, update};

use crate::support;
use crate::support::mcp::SERVER_BIN;

fn last_read() -> LastCase {
    LastCase {
        server: "t".into(),
        target: Target::Read {
            uri: "test://text/1".into(),
        },
        observed: Observed::from_text(true, "contents of test://text/1\n"),
    }
}

#[test]
fn the_key_and_the_command_save_the_last_one_or_say_what_to_do_first() {
    let mut s = support::tui::state();
    s.focus = Pane::Chat;
    // Nothing made yet: the transcript says what to do.
    assert!(update(&mut s, Msg::Key(Key::char('S'))).is_empty());
    assert_eq!(
        s.chat.entries.last().unwrap().text,
        "nothing to save as a case: call a tool, /read or /prompt first"
    );
    update(&mut s, Msg::CaseSource(Box::new(last_read())));
    let expected = |path: &str| -> Vec<Cmd> {
        vec![
            FileCmd::SaveCase {
                case: Box::new(last_read()),
                path: path.into(),
            }
            .into(),
        ]
    };
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('S'))),
        expected("switchboard.calls.toml")
    );
    s.focus = Pane::Composer;
    update(&mut s, Msg::Paste("/save-case ci/smoke.toml".into()));
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Enter))),
        expected("ci/smoke.toml")
    );
    update(
        &mut s,
        Msg::Saved(Ok(
            "saved case \"read test://text/1\" to ci/smoke.toml; edit its expect, then `switchboard test ci/smoke.toml`".into(),
        )),
    );
    insta::assert_snapshot!(support::tui::shot(&s, 100, 16));
}

/// Whether a saved-case source is the kind a step made.
type Made = fn(&Target) -> bool;

fn has_case(s: &State, pick: Made) -> bool {
    s.last_case.as_ref().is_some_and(|c| pick(&c.target))
}

#[tokio::test]
async fn cases_saved_on_screen_pass_switchboard_test() {
    let mut live =
        support::tui::LiveTui::start(ProtocolChoice::Auto, support::tui::registered_tools).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("saved.toml");
    let steps: [(&str, Made); 3] = [
        ("/call t__add {\"a\": 1, \"b\": 2}", |t| {
            matches!(t, Target::Tool { .. })
        }),
        ("/read t test://text/4", |t| {
            matches!(t, Target::Read { .. })
        }),
        ("/prompt t greet name=Al", |t| {
            matches!(t, Target::Prompt { .. })
        }),
    ];
    for (line, made) in steps {
        support::tui::type_line(&mut live.exec, line);
        while !has_case(live.exec.state(), made) {
            live.step(|s| format!("{line}: {:?}", s.chat.entries)).await;
        }
        let saved = |s: &State| {
            s.chat
                .entries
                .iter()
                .filter(|e| e.text.starts_with("saved case"))
                .count()
        };
        let before = saved(live.exec.state());
        support::tui::type_line(&mut live.exec, &format!("/save-case {}", file.display()));
        while saved(live.exec.state()) == before {
            live.step(|s| format!("saving after {line}: {:?}", s.chat.entries))
                .await;
        }
    }
    live.workbench.shutdown().await;
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("name = \"add a=1 b=2\""), "{text}");
    assert!(text.contains("resource = \"test://text/4\""), "{text}");
    assert!(text.contains("prompt = \"greet\""), "{text}");

    // The same server, configured for the command line: the three cases pass.
    std::fs::write(
        dir.path().join("switchboard.toml"),
        format!("[servers.t]\ncommand = {SERVER_BIN:?}\nargs = [\"--asking\"]\n"),
    )
    .unwrap();
    support::trust_folder(dir.path(), &dir.path().join(".local/state"));
    let out = Command::cargo_bin("switchboard")
        .unwrap()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .args(["test", "saved.toml"])
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.contains("3 cases: 3 passed"), "{stderr}");
}

/// A result too large for a model (past `max_result_chars`) from the person's own
/// call is theirs: the card ends ok and shows its first part, `/save` keeps it whole.
#[tokio::test]
async fn your_own_oversized_result_is_ok_and_shown() {
    use switchboard::tui::cards::CardStatus;
    let mut live =
        support::tui::LiveTui::start(ProtocolChoice::Auto, support::tui::registered_tools).await;
    support::tui::type_line(&mut live.exec, "/call t__big {\"chars\": 300000}");
    let card = |s: &State| {
        s.chat
            .entries
            .iter()
            .find_map(|e| e.card.clone())
            .filter(|c| c.status != CardStatus::Running && c.result.is_some())
    };
    while card(live.exec.state()).is_none() {
        live.step(|s| format!("{:?}", s.chat.entries.last())).await;
    }
    let card = card(live.exec.state()).unwrap();
    assert_eq!(card.status, CardStatus::Ok);
    let shown = card.result.unwrap_or_default();
    assert!(
        shown.starts_with("▸ larger than a model is sent (max_result_chars); kept whole for you"),
        "{}",
        &shown[..200.min(shown.len())]
    );
    live.workbench.shutdown().await;
}
