//! The message composer: a multi-line textarea kept as part of the UI state.

use tui_textarea::{Input, Key as TaKey, TextArea, WrapMode};

use crate::keymap::{Action, Key, KeyCode};

use super::msg::Handled;
use super::state::{Overlay, Pane, State};

/// The composer's text and cursor. Compared by content, so `State` stays comparable.
#[derive(Debug, Clone)]
pub struct Composer(TextArea<'static>);

impl Default for Composer {
    fn default() -> Self {
        let mut area = TextArea::default();
        area.set_wrap_mode(WrapMode::WordOrGlyph);
        area.set_max_histories(200);
        Self(area)
    }
}

impl PartialEq for Composer {
    fn eq(&self, other: &Self) -> bool {
        self.0.lines() == other.0.lines() && self.0.cursor() == other.0.cursor()
    }
}

impl Composer {
    /// Composer holding `text`, cursor at the end.
    pub fn with_text(text: &str) -> Self {
        let mut c = Self::default();
        c.0.insert_str(text);
        c
    }

    /// Type a key that no binding claimed. Returns whether the text changed.
    pub fn input(&mut self, key: Key) -> bool {
        let Some(code) = textarea_key(key.code) else {
            return false;
        };
        self.0.input(Input {
            key: code,
            ctrl: key.mods.ctrl,
            alt: key.mods.alt,
            shift: key.mods.shift,
        })
    }

    pub fn insert_newline(&mut self) {
        self.0.insert_newline();
    }

    /// Bracketed paste: inserted as typed text, newlines kept, `\r\n` normalised.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.0.insert_str(text);
    }

    pub fn text(&self) -> String {
        self.0.lines().join("\n")
    }

    pub fn is_blank(&self) -> bool {
        self.0.lines().iter().all(|l| l.trim().is_empty())
    }

    /// Take the text out, leaving the composer empty.
    pub fn take(&mut self) -> String {
        let text = self.text();
        *self = Self::default();
        text
    }

    pub fn line_count(&self) -> usize {
        self.0.lines().len()
    }

    /// The textarea, for drawing.
    pub fn textarea(&self) -> &TextArea<'static> {
        &self.0
    }
}

/// Keys while typing a message: Enter sends (or runs a slash command), Esc
/// interrupts what runs or leaves; other keys edit the text.
pub fn key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    match action {
        Some(Action::Send) => super::slash::submit(state).into(),
        Some(Action::Newline) => {
            state.composer.insert_newline();
            Handled::nothing()
        }
        Some(Action::Close) if state.turn.is_some() || !state.open_manual_calls().is_empty() => {
            Handled::Unhandled(Action::CancelTurn)
        }
        Some(Action::Close) => {
            state.focus = Pane::Chat;
            Handled::nothing()
        }
        Some(other) => Handled::Unhandled(other),
        None => {
            state.composer.input(key);
            Handled::nothing()
        }
    }
}

/// Pasted text goes where the keys go: the palette, the catalog filter, else the
/// composer.
pub fn paste(state: &mut State, text: &str) {
    match (&mut state.overlay, state.focus) {
        (Some(Overlay::Palette(p)), _) => {
            p.query.push_str(&crate::sanitize::sanitize_line(text));
            p.selected = 0;
        }
        (Some(_), _) => {}
        (None, Pane::Catalog) if state.filter.editing => {
            state
                .filter
                .query
                .push_str(&crate::sanitize::sanitize_line(text));
            state.catalog_sel = 0;
        }
        (None, _) => {
            state.focus = Pane::Composer;
            state.composer.paste(text);
        }
    }
}

fn textarea_key(code: KeyCode) -> Option<TaKey> {
    Some(match code {
        KeyCode::Char(c) => TaKey::Char(c),
        KeyCode::Enter => TaKey::Enter,
        KeyCode::Backspace => TaKey::Backspace,
        KeyCode::Delete => TaKey::Delete,
        KeyCode::Up => TaKey::Up,
        KeyCode::Down => TaKey::Down,
        KeyCode::Left => TaKey::Left,
        KeyCode::Right => TaKey::Right,
        KeyCode::Home => TaKey::Home,
        KeyCode::End => TaKey::End,
        KeyCode::PageUp => TaKey::PageUp,
        KeyCode::PageDown => TaKey::PageDown,
        KeyCode::F(n) => TaKey::F(n),
        KeyCode::Esc | KeyCode::Tab | KeyCode::BackTab | KeyCode::Insert => return None,
    })
}
