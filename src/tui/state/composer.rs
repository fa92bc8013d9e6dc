//! The message composer's data: a multi-line textarea with readline keys (Ctrl+U
//! kills to the line start, Alt+B / Alt+F move by word) and the messages sent before
//! (↑ on an empty composer recalls them).

use tui_textarea::{CursorMove, Input, Key as TaKey, TextArea, WrapMode};

use crate::keymap::{Key, KeyCode};

/// Messages kept for ↑ recall.
const HISTORY: usize = 100;

/// The composer's text and cursor, and what was sent before. Compared by what is
/// typed, so `State` stays comparable.
#[derive(Debug, Clone)]
pub struct Composer {
    area: TextArea<'static>,
    /// Sent texts, oldest first.
    history: Vec<String>,
    /// The history entry shown (↑ / ↓), if any.
    recalled: Option<usize>,
    /// The completion popup over a slash-command line.
    pub popup: Popup,
}

/// The completion popup's own state; what it lists follows from the text
/// (`tui::completion`).
#[derive(Debug, Clone, Default)]
pub struct Popup {
    /// The highlighted candidate.
    pub sel: usize,
    /// Closed with Esc; typing (or Tab) opens it again.
    pub closed: bool,
    /// The tool filter's remembered queries.
    pub memo: crate::catalog_filter::Narrowing,
}

impl Default for Composer {
    fn default() -> Self {
        Self {
            area: empty_area(),
            history: Vec::new(),
            recalled: None,
            popup: Popup::default(),
        }
    }
}

fn empty_area() -> TextArea<'static> {
    let mut area = TextArea::default();
    area.set_wrap_mode(WrapMode::WordOrGlyph);
    area.set_max_histories(200);
    area
}

/// Text and cursor: what is being typed (the history is a convenience, not state
/// worth comparing).
impl PartialEq for Composer {
    fn eq(&self, other: &Self) -> bool {
        self.area.lines() == other.area.lines() && self.area.cursor() == other.area.cursor()
    }
}

impl Composer {
    /// Composer holding `text`, cursor at the end.
    pub fn with_text(text: &str) -> Self {
        let mut c = Self::default();
        c.area.insert_str(text);
        c
    }

    /// Replace the text (history kept), cursor at the end.
    pub fn set_text(&mut self, text: &str) {
        self.area = empty_area();
        self.area.insert_str(text);
        self.recalled = None;
        self.popup.sel = 0;
    }

    /// Whether the cursor is after the last character.
    pub fn cursor_at_end(&self) -> bool {
        let tui_textarea::DataCursor(row, col) = self.area.cursor();
        let lines = self.area.lines();
        row + 1 == lines.len() && lines.get(row).is_some_and(|l| col == l.chars().count())
    }

    /// Type a key that no binding claimed. Returns whether the text changed.
    pub fn input(&mut self, key: Key) -> bool {
        match (key.code, key.mods.ctrl, key.mods.alt) {
            (KeyCode::Char('u'), true, false) => {
                self.recalled = None;
                return self.area.delete_line_by_head();
            }
            (KeyCode::Char('b'), false, true) => {
                self.area.move_cursor(CursorMove::WordBack);
                return false;
            }
            (KeyCode::Char('f'), false, true) => {
                self.area.move_cursor(CursorMove::WordForward);
                return false;
            }
            (KeyCode::Up, false, false) if self.is_blank() || self.recalled.is_some() => {
                return self.recall(1);
            }
            (KeyCode::Down, false, false) if self.recalled.is_some() => return self.recall(-1),
            _ => {}
        }
        let Some(code) = textarea_key(key.code) else {
            return false;
        };
        self.recalled = None;
        self.area.input(Input {
            key: code,
            ctrl: key.mods.ctrl,
            alt: key.mods.alt,
            shift: key.mods.shift,
        })
    }

    /// ↑ (`step` 1) shows an older sent text, ↓ (`-1`) a newer one, past the newest
    /// an empty composer again.
    fn recall(&mut self, step: isize) -> bool {
        let n = self.history.len();
        let next = match (self.recalled, step) {
            (None, 1) if n > 0 => Some(n - 1),
            (Some(i), 1) => Some(i.saturating_sub(1)),
            (Some(i), -1) if i + 1 < n => Some(i + 1),
            (Some(_), -1) => None,
            _ => return false,
        };
        self.area = empty_area();
        if let Some(i) = next {
            self.area.insert_str(&self.history[i]);
        }
        self.recalled = next;
        true
    }

    pub fn insert_newline(&mut self) {
        self.area.insert_newline();
    }

    /// Bracketed paste: inserted as typed text, newlines kept, `\r\n` normalised.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.area.insert_str(text);
    }

    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    pub fn is_blank(&self) -> bool {
        self.area.lines().iter().all(|l| l.trim().is_empty())
    }

    /// Take the text out (it is kept for ↑), leaving the composer empty.
    pub fn take(&mut self) -> String {
        let text = self.text();
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            self.history.push(text.clone());
            if self.history.len() > HISTORY {
                self.history.remove(0);
            }
        }
        self.area = empty_area();
        self.recalled = None;
        text
    }

    pub fn line_count(&self) -> usize {
        self.area.lines().len()
    }

    /// The textarea, for drawing.
    pub fn textarea(&self) -> &TextArea<'static> {
        &self.area
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
