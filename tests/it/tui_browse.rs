//! The Skills and Memory panes.
#![allow(clippy::unwrap_used)]

use crate::support;

use switchboard::keymap::{Key, KeyCode};
use switchboard::tui::library::{BrowseKind, SkillRow};
use switchboard::tui::state::{Overlay, State};
use switchboard::tui::{Cmd, FileCmd, Msg, update};

fn state() -> State {
    let mut s = support::tui::booted();
    s.library.skills = vec![
        SkillRow {
            name: "policy-writing".into(),
            description: "Write a [policy] for a new MCP server.".into(),
            version: Some("1.0".into()),
            sha256: "ab12cd34ef56ab12cd34ef56".into(),
            path: "skills/policy-writing/SKILL.md".into(),
            visible: true,
            body: "# Policy writing\n\n1. List the server's tools with `switchboard catalog`.\n2. \x1b[2JClassify each by effect.".into(),
        },
        SkillRow {
            name: "safe-file-editing".into(),
            description: "Edit files with previews.".into(),
            version: None,
            sha256: "99".into(),
            path: "skills/safe-file-editing/SKILL.md".into(),
            visible: false,
            body: "body".into(),
        },
    ];
    s.library.skipped =
        vec!["skills/Bad Name/SKILL.md: name `bad` does not match the folder".into()];
    s.library.memory_dir = Some("/home/me/.local/share/switchboard/memories/proj".into());
    s
}

#[test]
fn f3_opens_skills_and_arrows_select() {
    let mut s = state();
    update(&mut s, Msg::Key(Key::plain(KeyCode::F(3))));
    assert_eq!(
        s.overlays.top().cloned(),
        Some(Overlay::Browse {
            kind: BrowseKind::Skills,
            sel: 0,
            scroll: 0
        })
    );
    let first = support::tui::shot(&s, 100, 30);
    assert!(!first.contains('\x1b'));
    insta::assert_snapshot!("skills_pane", first);
    update(&mut s, Msg::Key(Key::char('j')));
    assert_eq!(
        s.overlays.top().cloned(),
        Some(Overlay::Browse {
            kind: BrowseKind::Skills,
            sel: 1,
            scroll: 0
        })
    );
    update(&mut s, Msg::Key(Key::plain(KeyCode::Esc)));
    assert_eq!(s.overlays.top().cloned(), None);
}

#[test]
fn memory_pane_lists_then_reads_through_the_runtime() {
    let mut s = state();
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::F(4)))),
        vec![Cmd::Files(FileCmd::ListMemory)]
    );
    update(
        &mut s,
        Msg::MemoryFiles(vec![
            ("/memories/notes.md".into(), 1200),
            ("/memories/todo/next.md".into(), 40),
        ]),
    );
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Enter))),
        vec![Cmd::Files(FileCmd::ReadMemory("/memories/notes.md".into()))]
    );
    update(
        &mut s,
        Msg::MemoryFile {
            path: "/memories/notes.md".into(),
            text: "The build needs `cargo test`.\nRemember the audit log.".into(),
        },
    );
    insta::assert_snapshot!("memory_pane", support::tui::shot(&s, 100, 30));
    // Moving on closes the shown file.
    update(&mut s, Msg::Key(Key::plain(KeyCode::Down)));
    assert_eq!(s.library.memory_open, None);
}
