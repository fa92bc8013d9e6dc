#![allow(clippy::unwrap_used)]
//! The `${input:…}` prompt shown before the workbench starts: keys as whole values,
//! and the screen (password answers masked) on a fixed-size TestBackend.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::config::import::InputSpec;
use switchboard::keymap::{Key, KeyCode, Mods};
use switchboard::theme::ThemeSet;
use switchboard::tui::input_prompt::{InputPrompt, Outcome};

fn specs() -> Vec<InputSpec> {
    vec![
        InputSpec {
            id: "api-key".into(),
            description: Some("The API key".into()),
            password: true,
        },
        InputSpec {
            id: "region".into(),
            description: None,
            password: false,
        },
    ]
}

fn key(code: KeyCode) -> Key {
    Key {
        code,
        mods: Mods::default(),
    }
}

fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: Mods {
            ctrl: true,
            ..Mods::default()
        },
    }
}

fn typed(prompt: &mut InputPrompt, text: &str) {
    for c in text.chars() {
        assert_eq!(prompt.key(key(KeyCode::Char(c))), Outcome::Pending);
    }
}

#[test]
fn enter_walks_the_questions_and_finishes_with_every_answer() {
    let mut p = InputPrompt::new("mcp.json", &specs());
    typed(&mut p, "s3cret!");
    assert_eq!(p.key(key(KeyCode::Backspace)), Outcome::Pending);
    assert_eq!(p.key(key(KeyCode::Enter)), Outcome::Pending);
    assert_eq!(p.sel, 1);
    p.paste("eu-west\n");
    let done = p.key(key(KeyCode::Enter));
    assert_eq!(
        done,
        Outcome::Done(
            [
                ("api-key".to_owned(), "s3cret".to_owned()),
                ("region".to_owned(), "eu-west".to_owned()),
            ]
            .into()
        )
    );
}

#[test]
fn tab_moves_ctrl_u_clears_esc_skips_ctrl_c_quits() {
    let mut p = InputPrompt::new("mcp.json", &specs());
    p.key(key(KeyCode::Tab));
    typed(&mut p, "us");
    p.key(key(KeyCode::BackTab));
    typed(&mut p, "k");
    assert_eq!(p.questions[0].answer, "k");
    assert_eq!(p.questions[1].answer, "us");
    p.key(key(KeyCode::Down));
    p.key(ctrl('u'));
    assert_eq!(p.questions[1].answer, "");
    // Moving past either end stays put.
    p.key(key(KeyCode::Tab));
    assert_eq!(p.sel, 1);
    assert_eq!(p.key(key(KeyCode::Esc)), Outcome::Skip);
    assert_eq!(p.key(ctrl('c')), Outcome::Quit);
}

#[test]
fn the_prompt_masks_passwords_and_shows_plain_answers() {
    let theme = ThemeSet::new(None).load("default").unwrap();
    let mut p = InputPrompt::new("~/.vscode/mcp.json", &specs());
    typed(&mut p, "hunter2");
    p.key(key(KeyCode::Tab));
    typed(&mut p, "eu-\u{1b}[31mwest");
    let mut terminal = Terminal::new(TestBackend::new(80, 16)).unwrap();
    terminal
        .draw(|f| switchboard::tui::ui::input_prompt::render(&p, &theme, f))
        .unwrap();
    let screen = format!("{:?}", terminal.backend());
    assert!(!screen.contains("hunter2"), "password shown:\n{screen}");
    assert!(screen.contains("•••••••"), "{screen}");
    insta::assert_snapshot!(terminal.backend());
}
