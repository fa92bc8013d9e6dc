//! Terminal colours as themes name them; the same set as ratatui's `Color`.

use std::fmt;
use std::str::FromStr;

/// A terminal colour. The variants mirror ratatui's `Color` one to one so the TUI can
/// convert without loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Color {
    /// The terminal's default foreground or background.
    Reset,
    Black,
    Red,
    Green,
    Yellow,
    Blue,
    Magenta,
    Cyan,
    /// ANSI 7 ("white" in most palettes, a light grey).
    Gray,
    /// ANSI 8 ("bright black").
    DarkGray,
    LightRed,
    LightGreen,
    LightYellow,
    LightBlue,
    LightMagenta,
    LightCyan,
    /// ANSI 15 (bright white).
    White,
    /// An entry of the 256-colour palette.
    Indexed(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

/// A string that names no colour.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown colour `{0}`")]
pub struct UnknownColor(pub String);

impl Color {
    /// The 16 named ANSI colours (and `Reset`), by canonical theme-file name.
    pub const NAMED: [(&'static str, Color); 17] = [
        ("reset", Color::Reset),
        ("black", Color::Black),
        ("red", Color::Red),
        ("green", Color::Green),
        ("yellow", Color::Yellow),
        ("blue", Color::Blue),
        ("magenta", Color::Magenta),
        ("cyan", Color::Cyan),
        ("gray", Color::Gray),
        ("dark-gray", Color::DarkGray),
        ("light-red", Color::LightRed),
        ("light-green", Color::LightGreen),
        ("light-yellow", Color::LightYellow),
        ("light-blue", Color::LightBlue),
        ("light-magenta", Color::LightMagenta),
        ("light-cyan", Color::LightCyan),
        ("white", Color::White),
    ];

    /// True for `Reset` and the 16 ANSI colours, which follow the terminal's palette.
    pub fn is_ansi(self) -> bool {
        !matches!(self, Color::Indexed(_) | Color::Rgb(..))
    }

    fn from_name(name: &str) -> Option<Color> {
        let squashed: String = name
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let base = squashed
            .strip_prefix("light")
            .or_else(|| squashed.strip_prefix("bright"));
        let color = match (base, squashed.as_str()) {
            (_, "reset" | "default") => Color::Reset,
            (_, "black") => Color::Black,
            (_, "red") => Color::Red,
            (_, "green") => Color::Green,
            (_, "yellow") => Color::Yellow,
            (_, "blue") => Color::Blue,
            (_, "magenta") => Color::Magenta,
            (_, "cyan") => Color::Cyan,
            (_, "gray" | "grey" | "lightgray" | "lightgrey") => Color::Gray,
            (_, "darkgray" | "darkgrey" | "brightblack") => Color::DarkGray,
            (_, "white" | "brightwhite") => Color::White,
            (Some("red"), _) => Color::LightRed,
            (Some("green"), _) => Color::LightGreen,
            (Some("yellow"), _) => Color::LightYellow,
            (Some("blue"), _) => Color::LightBlue,
            (Some("magenta"), _) => Color::LightMagenta,
            (Some("cyan"), _) => Color::LightCyan,
            _ => return None,
        };
        Some(color)
    }

    fn from_hex(hex: &str) -> Option<Color> {
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let channel = |range: std::ops::Range<usize>| u8::from_str_radix(&hex[range], 16).ok();
        match hex.len() {
            6 => Some(Color::Rgb(channel(0..2)?, channel(2..4)?, channel(4..6)?)),
            3 => {
                let short = |i: usize| channel(i..i + 1).map(|v| v * 17);
                Some(Color::Rgb(short(0)?, short(1)?, short(2)?))
            }
            _ => None,
        }
    }
}

impl FromStr for Color {
    type Err = UnknownColor;

    /// Accepts `reset`/`default`, the 16 ANSI names (`light-red`, `bright-red`,
    /// `lightred`, `grey`, `dark-gray` …), `#rrggbb`, `#rgb` and `0`–`255` (indexed).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        let parsed = if let Some(hex) = trimmed.strip_prefix('#') {
            Color::from_hex(hex)
        } else if trimmed.bytes().all(|b| b.is_ascii_digit()) && !trimmed.is_empty() {
            trimmed.parse::<u8>().ok().map(Color::Indexed)
        } else {
            Color::from_name(trimmed)
        };
        parsed.ok_or_else(|| UnknownColor(text.to_owned()))
    }
}

impl fmt::Display for Color {
    /// The canonical theme-file spelling; parses back to the same colour.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Color::Indexed(index) => write!(f, "{index}"),
            Color::Rgb(r, g, b) => write!(f, "#{r:02x}{g:02x}{b:02x}"),
            named => {
                let name = Color::NAMED
                    .iter()
                    .find(|(_, color)| color == named)
                    .map_or("reset", |(name, _)| name);
                f.write_str(name)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_aliases() {
        let cases = [
            ("reset", Color::Reset),
            ("default", Color::Reset),
            ("Red", Color::Red),
            ("bright-red", Color::LightRed),
            ("light-red", Color::LightRed),
            ("lightred", Color::LightRed),
            ("light_cyan", Color::LightCyan),
            ("grey", Color::Gray),
            ("gray", Color::Gray),
            ("dark-gray", Color::DarkGray),
            ("dark-grey", Color::DarkGray),
            ("bright-black", Color::DarkGray),
            ("white", Color::White),
        ];
        for (text, color) in cases {
            assert_eq!(text.parse::<Color>(), Ok(color), "{text}");
        }
    }

    #[test]
    fn parses_hex_and_indexed() {
        assert_eq!("#ff8000".parse(), Ok(Color::Rgb(255, 128, 0)));
        assert_eq!("#F80".parse(), Ok(Color::Rgb(255, 136, 0)));
        assert_eq!("0".parse(), Ok(Color::Indexed(0)));
        assert_eq!("255".parse(), Ok(Color::Indexed(255)));
    }

    #[test]
    fn rejects_unknown() {
        for text in [
            "blurple",
            "256",
            "#12",
            "#gggggg",
            "",
            "light",
            "light-gray-ish",
            "-1",
        ] {
            assert_eq!(
                text.parse::<Color>(),
                Err(UnknownColor(text.to_owned())),
                "{text}"
            );
        }
    }

    #[test]
    fn display_round_trips() {
        let mut all: Vec<Color> = Color::NAMED.iter().map(|(_, c)| *c).collect();
        all.extend([Color::Indexed(42), Color::Rgb(1, 2, 255)]);
        for color in all {
            assert_eq!(color.to_string().parse(), Ok(color));
        }
    }
}
