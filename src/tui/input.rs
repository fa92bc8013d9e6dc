//! Terminal events to messages.

use crossterm::event::{
    Event, KeyCode as CtCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};

use crate::keymap::{Key, KeyCode, Mods};

use super::msg::{Mouse, MouseKind, Msg};

pub fn to_msg(event: Event) -> Option<Msg> {
    match event {
        Event::Key(key) => to_key(key).map(Msg::Key),
        Event::Paste(text) => Some(Msg::Paste(text)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        Event::Mouse(m) => {
            let kind = match m.kind {
                MouseEventKind::Down(MouseButton::Left) => MouseKind::Click,
                MouseEventKind::ScrollUp => MouseKind::ScrollUp,
                MouseEventKind::ScrollDown => MouseKind::ScrollDown,
                _ => return None,
            };
            Some(Msg::Mouse(Mouse {
                kind,
                column: m.column,
                row: m.row,
            }))
        }
        Event::FocusGained | Event::FocusLost => None,
    }
}

pub fn to_key(key: KeyEvent) -> Option<Key> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let code = match key.code {
        CtCode::Char(c) => KeyCode::Char(c),
        CtCode::Enter => KeyCode::Enter,
        CtCode::Esc => KeyCode::Esc,
        CtCode::Tab => KeyCode::Tab,
        CtCode::BackTab => KeyCode::BackTab,
        CtCode::Backspace => KeyCode::Backspace,
        CtCode::Delete => KeyCode::Delete,
        CtCode::Insert => KeyCode::Insert,
        CtCode::Up => KeyCode::Up,
        CtCode::Down => KeyCode::Down,
        CtCode::Left => KeyCode::Left,
        CtCode::Right => KeyCode::Right,
        CtCode::Home => KeyCode::Home,
        CtCode::End => KeyCode::End,
        CtCode::PageUp => KeyCode::PageUp,
        CtCode::PageDown => KeyCode::PageDown,
        CtCode::F(n) => KeyCode::F(n),
        _ => return None,
    };
    let mods = Mods {
        ctrl: key.modifiers.contains(KeyModifiers::CONTROL),
        alt: key.modifiers.contains(KeyModifiers::ALT),
        shift: key.modifiers.contains(KeyModifiers::SHIFT),
    };
    Some(Key::new(code, mods))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_letters_and_backtab_normalise() {
        let k = KeyEvent::new(CtCode::Char('N'), KeyModifiers::SHIFT);
        assert_eq!(to_key(k), Some(Key::char('N')));
        let k = KeyEvent::new(CtCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(to_key(k), Some(Key::plain(KeyCode::BackTab)));
        let k = KeyEvent::new(CtCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(to_key(k), Some(Key::ctrl('c')));
    }
}
