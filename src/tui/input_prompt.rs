//! VS Code `${input:id}` answers, asked full-screen before the workbench starts: an
//! imported file's servers cannot be configured without them. Password inputs are
//! masked. `InputPrompt` is plain data driven by keys; `ask` is the small loop
//! around it on the real terminal.

use std::collections::BTreeMap;
use std::io;

use crossterm::event::{self, Event};

use crate::config::import::InputSpec;
use crate::keymap::{Key, KeyCode};
use crate::sanitize::sanitize_line;
use crate::theme::Theme;

use super::input::to_key;
use super::term;

/// One question: what the file's `inputs` entry says, and what was typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub spec: InputSpec,
    pub answer: String,
}

/// The prompt for one file's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputPrompt {
    /// The file that needs them, as the user named it.
    pub file: String,
    pub questions: Vec<Question>,
    pub sel: usize,
}

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Keep asking.
    Pending,
    /// Every question answered (empty answers allowed, as in VS Code).
    Done(BTreeMap<String, String>),
    /// Go on without this file's servers.
    Skip,
    /// Leave switchboard.
    Quit,
}

impl InputPrompt {
    pub fn new(file: &str, specs: &[InputSpec]) -> Self {
        Self {
            file: sanitize_line(file),
            questions: specs
                .iter()
                .map(|spec| Question {
                    spec: spec.clone(),
                    answer: String::new(),
                })
                .collect(),
            sel: 0,
        }
    }

    /// Enter moves to the next question and, on the last, finishes; Tab / Shift+Tab
    /// (or Down / Up) move between them; Esc skips the file; Ctrl+C quits.
    pub fn key(&mut self, key: Key) -> Outcome {
        let last = self.questions.len().saturating_sub(1);
        match (key.code, key.mods.ctrl) {
            (KeyCode::Char('c'), true) => return Outcome::Quit,
            (KeyCode::Char('u'), true) => {
                if let Some(q) = self.questions.get_mut(self.sel) {
                    q.answer.clear();
                }
            }
            (KeyCode::Esc, _) => return Outcome::Skip,
            (KeyCode::Enter, _) if self.sel >= last => return Outcome::Done(self.answers()),
            (KeyCode::Enter | KeyCode::Tab | KeyCode::Down, _) => {
                self.sel = (self.sel + 1).min(last);
            }
            (KeyCode::BackTab | KeyCode::Up, _) => self.sel = self.sel.saturating_sub(1),
            (KeyCode::Backspace, _) => {
                if let Some(q) = self.questions.get_mut(self.sel) {
                    q.answer.pop();
                }
            }
            (KeyCode::Char(c), false) => {
                if let Some(q) = self.questions.get_mut(self.sel) {
                    q.answer.push(c);
                }
            }
            _ => {}
        }
        Outcome::Pending
    }

    /// Pasted text goes into the current answer, one line (secrets are single-line).
    pub fn paste(&mut self, text: &str) {
        if let Some(q) = self.questions.get_mut(self.sel) {
            q.answer
                .extend(text.chars().filter(|c| *c != '\n' && *c != '\r'));
        }
    }

    fn answers(&self) -> BTreeMap<String, String> {
        self.questions
            .iter()
            .map(|q| (q.spec.id.clone(), q.answer.clone()))
            .collect()
    }
}

/// Asks on the real terminal (full screen) and puts the terminal back afterwards,
/// also when drawing or reading fails.
pub fn ask(file: &str, specs: &[InputSpec], theme: &Theme) -> io::Result<Outcome> {
    let mut prompt = InputPrompt::new(file, specs);
    let mut guard = term::enter(false)?;
    loop {
        guard
            .terminal
            .draw(|frame| super::ui::input_prompt::render(&prompt, theme, frame))?;
        let outcome = match event::read()? {
            Event::Key(key) => match to_key(key) {
                Some(key) => prompt.key(key),
                None => Outcome::Pending,
            },
            Event::Paste(text) => {
                prompt.paste(&text);
                Outcome::Pending
            }
            _ => Outcome::Pending,
        };
        if outcome != Outcome::Pending {
            return Ok(outcome);
        }
    }
}
