//! The trust question, asked full-screen before anything from a project starts: what
//! the folder's files would do, one line each, and three answers — trust (remembered
//! until a file changes), once (this run), ignore (the user's config only).
//! `TrustPrompt` is plain data driven by keys; `ask` is the small loop around it on
//! the real terminal.

use std::io;

use crossterm::event::{self, Event};

use crate::keymap::{Key, KeyCode};
use crate::theme::Theme;
use crate::trust::{Answer, Effect, ProjectFile, State};

use super::input::to_key;
use super::term;

/// One line of the list: a file's heading or one thing it would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// `./switchboard.toml — changed since trusted: not trusted`.
    File {
        shown: String,
        state: State,
    },
    Item {
        effect: Effect,
        text: String,
    },
}

/// The question about the folder's untrusted files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustPrompt {
    /// The folder, as shown.
    pub folder: String,
    pub rows: Vec<Row>,
    /// The first row shown.
    pub scroll: usize,
}

/// What a key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pending,
    Answered(Answer),
    /// Leave switchboard.
    Quit,
}

impl TrustPrompt {
    pub fn new(folder: &std::path::Path, files: &[&ProjectFile]) -> Self {
        let mut rows = Vec::new();
        for file in files {
            rows.push(Row::File {
                shown: crate::sanitize::sanitize_line(&file.shown),
                state: file.state,
            });
            if file.items.is_empty() {
                rows.push(Row::Item {
                    effect: Effect::Sets,
                    text: "nothing but cosmetic keys".into(),
                });
            }
            rows.extend(file.items.iter().map(|item| Row::Item {
                effect: item.effect,
                text: item.text.clone(),
            }));
        }
        Self {
            folder: crate::sanitize::sanitize_line(&folder.display().to_string()),
            rows,
            scroll: 0,
        }
    }

    /// `t` trust, `o` once, `i` or Esc ignore, `q` or Ctrl+C quit; arrows and
    /// PageUp/PageDown scroll (`page` rows at a time).
    pub fn key(&mut self, key: Key, page: usize) -> Outcome {
        let last = self.rows.len().saturating_sub(1);
        match (key.code, key.mods.ctrl) {
            (KeyCode::Char('c'), true) | (KeyCode::Char('q'), false) => return Outcome::Quit,
            (KeyCode::Char('t' | 'T'), false) => return Outcome::Answered(Answer::Trust),
            (KeyCode::Char('o' | 'O'), false) => return Outcome::Answered(Answer::Once),
            (KeyCode::Char('i' | 'I'), false) | (KeyCode::Esc, _) => {
                return Outcome::Answered(Answer::Ignore);
            }
            (KeyCode::Down | KeyCode::Char('j'), false) => {
                self.scroll = (self.scroll + 1).min(last);
            }
            (KeyCode::Up | KeyCode::Char('k'), false) => {
                self.scroll = self.scroll.saturating_sub(1);
            }
            (KeyCode::PageDown | KeyCode::Char(' '), false) => {
                self.scroll = (self.scroll + page.max(1)).min(last);
            }
            (KeyCode::PageUp, _) => self.scroll = self.scroll.saturating_sub(page.max(1)),
            (KeyCode::Home, _) => self.scroll = 0,
            (KeyCode::End, _) => self.scroll = last,
            _ => {}
        }
        Outcome::Pending
    }
}

/// Asks on the real terminal (full screen) and puts the terminal back afterwards,
/// also when drawing or reading fails.
pub fn ask(prompt: &mut TrustPrompt, theme: &Theme) -> io::Result<Answer> {
    let mut guard = term::enter(false)?;
    loop {
        let mut page = 10;
        guard.terminal.draw(|frame| {
            page = super::ui::trust_prompt::render(prompt, theme, frame);
        })?;
        if let Event::Key(key) = event::read()?
            && let Some(key) = to_key(key)
        {
            match prompt.key(key, page) {
                Outcome::Pending => {}
                Outcome::Answered(answer) => return Ok(answer),
                Outcome::Quit => return Err(io::Error::new(io::ErrorKind::Interrupted, "quit")),
            }
        }
    }
}
