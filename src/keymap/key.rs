//! A key press as plain data, independent of any terminal library.

use std::fmt;

/// The key itself, without modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyCode {
    Char(char),
    Enter,
    Esc,
    Tab,
    BackTab,
    Backspace,
    Delete,
    Insert,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    F(u8),
}

/// Modifier keys held with a key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mods {
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
}

impl Mods {
    pub const NONE: Mods = Mods {
        ctrl: false,
        alt: false,
        shift: false,
    };
    pub const CTRL: Mods = Mods {
        ctrl: true,
        alt: false,
        shift: false,
    };
    pub const ALT: Mods = Mods {
        ctrl: false,
        alt: true,
        shift: false,
    };
    pub const SHIFT: Mods = Mods {
        ctrl: false,
        alt: false,
        shift: true,
    };
}

/// A key with its modifiers. Characters are stored as typed (`'N'` is Shift+n), and
/// the shift flag is dropped for characters so that `N` and `shift+n` are one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub code: KeyCode,
    pub mods: Mods,
}

impl Key {
    pub fn new(code: KeyCode, mods: Mods) -> Self {
        Self { code, mods }.normalized()
    }

    pub fn plain(code: KeyCode) -> Self {
        Self::new(code, Mods::NONE)
    }

    pub fn char(c: char) -> Self {
        Self::plain(KeyCode::Char(c))
    }

    /// The printable character typed, when no Ctrl or Alt is held.
    pub fn typed_char(self) -> Option<char> {
        match self.code {
            KeyCode::Char(c) if !self.mods.ctrl && !self.mods.alt => Some(c),
            _ => None,
        }
    }

    /// Ctrl+U: erase the line typed so far, as in a shell (readline's
    /// `unix-line-discard`), in the single-line inputs (palette, form fields).
    pub fn clears_line(self) -> bool {
        self == Self::ctrl('u')
    }

    pub fn ctrl(c: char) -> Self {
        Self::new(KeyCode::Char(c), Mods::CTRL)
    }

    /// One canonical form per physical key: `shift+a` is `A`, Ctrl+letters are
    /// lower case, Shift+Tab is BackTab.
    fn normalized(mut self) -> Self {
        match self.code {
            KeyCode::Char(c) if self.mods.shift && c.is_ascii_lowercase() => {
                self.code = KeyCode::Char(c.to_ascii_uppercase());
                self.mods.shift = false;
            }
            KeyCode::Char(c) if self.mods.ctrl && c.is_ascii_uppercase() => {
                self.code = KeyCode::Char(c.to_ascii_lowercase());
            }
            KeyCode::Tab if self.mods.shift => {
                self.code = KeyCode::BackTab;
                self.mods.shift = false;
            }
            KeyCode::Char(_) | KeyCode::BackTab => self.mods.shift = false,
            _ => {}
        }
        self
    }

    /// Parse `ctrl+p`, `alt+enter`, `shift+tab`, `N`, `?`, `f1`, `pageup`, `space`.
    pub fn parse(text: &str) -> Result<Key, KeyParseError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(KeyParseError::Empty);
        }
        let mut mods = Mods::NONE;
        let mut rest = text;
        while let Some((head, tail)) = rest.split_once(['+', '-']) {
            if tail.is_empty() {
                break; // "ctrl++" or a lone "+"
            }
            match head.to_ascii_lowercase().as_str() {
                "ctrl" | "control" | "c" => mods.ctrl = true,
                "alt" | "meta" | "m" | "a" => mods.alt = true,
                "shift" | "s" => mods.shift = true,
                other => return Err(KeyParseError::Modifier(other.to_owned())),
            }
            rest = tail;
        }
        let code = parse_code(rest)?;
        Ok(Key::new(code, mods))
    }
}

/// Why a key's text names no key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyParseError {
    #[error("empty key")]
    Empty,
    #[error("unknown modifier `{0}`")]
    Modifier(String),
    #[error("unknown key `{0}`")]
    Key(String),
}

fn parse_code(name: &str) -> Result<KeyCode, KeyParseError> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Ok(KeyCode::Char(c));
    }
    let lower = name.to_ascii_lowercase();
    let code = match lower.as_str() {
        "enter" | "return" | "cr" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "backspace" | "bs" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" | "pgdown" => KeyCode::PageDown,
        "space" => KeyCode::Char(' '),
        "minus" => KeyCode::Char('-'),
        "plus" => KeyCode::Char('+'),
        _ => {
            if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok())
                && (1..=24).contains(&n)
            {
                KeyCode::F(n)
            } else {
                return Err(KeyParseError::Key(name.to_owned()));
            }
        }
    };
    Ok(code)
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.ctrl {
            f.write_str("Ctrl+")?;
        }
        if self.mods.alt {
            f.write_str("Alt+")?;
        }
        if self.mods.shift {
            f.write_str("Shift+")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) if self.mods.ctrl || self.mods.alt => {
                write!(f, "{}", c.to_ascii_uppercase())
            }
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift+Tab"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Delete => f.write_str("Del"),
            KeyCode::Insert => f.write_str("Ins"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::F(n) => write!(f, "F{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_modifiers_and_names() {
        assert_eq!(Key::parse("ctrl+p"), Ok(Key::ctrl('p')));
        assert_eq!(Key::parse("Ctrl+P"), Ok(Key::ctrl('p')));
        assert_eq!(Key::parse("shift+n"), Ok(Key::char('N')));
        assert_eq!(Key::parse("N"), Ok(Key::char('N')));
        assert_eq!(Key::parse("shift+tab"), Ok(Key::plain(KeyCode::BackTab)));
        assert_eq!(
            Key::parse("alt+enter"),
            Ok(Key::new(KeyCode::Enter, Mods::ALT))
        );
        assert_eq!(Key::parse("f5"), Ok(Key::plain(KeyCode::F(5))));
        assert_eq!(Key::parse("+"), Ok(Key::char('+')));
        assert_eq!(Key::parse("ctrl++"), Ok(Key::ctrl('+')));
        assert_eq!(Key::parse("space"), Ok(Key::char(' ')));
    }

    #[test]
    fn rejects_nonsense() {
        assert_eq!(
            Key::parse("hyper+x").map_err(|e| e.to_string()),
            Err("unknown modifier `hyper`".to_string())
        );
        assert_eq!(
            Key::parse("foo").map_err(|e| e.to_string()),
            Err("unknown key `foo`".to_string())
        );
        assert!(Key::parse("").is_err());
    }

    #[test]
    fn displays_like_help_text() {
        assert_eq!(Key::ctrl('p').to_string(), "Ctrl+P");
        assert_eq!(Key::char('?').to_string(), "?");
        assert_eq!(Key::plain(KeyCode::BackTab).to_string(), "Shift+Tab");
        assert_eq!(Key::new(KeyCode::Enter, Mods::ALT).to_string(), "Alt+Enter");
    }
}
