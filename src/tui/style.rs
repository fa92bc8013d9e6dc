//! Theme roles to ratatui styles. Colours come only from the theme.

use ratatui::style::{Color as RColor, Modifier, Style};
use ratatui::widgets::{Block, BorderType, Borders};

use crate::theme::{Color, Role, StyleSpec, Theme};

pub fn style(theme: &Theme, role: Role) -> Style {
    to_style(&theme.style(role))
}

pub fn to_style(spec: &StyleSpec) -> Style {
    let mut style = Style::default();
    if let Some(fg) = spec.fg {
        style = style.fg(to_color(fg));
    }
    if let Some(bg) = spec.bg {
        style = style.bg(to_color(bg));
    }
    let mut modifier = Modifier::empty();
    for (on, m) in [
        (spec.bold, Modifier::BOLD),
        (spec.dim, Modifier::DIM),
        (spec.italic, Modifier::ITALIC),
        (spec.underline, Modifier::UNDERLINED),
        (spec.reversed, Modifier::REVERSED),
    ] {
        if on {
            modifier |= m;
        }
    }
    style.add_modifier(modifier)
}

pub fn to_color(color: Color) -> RColor {
    match color {
        Color::Reset => RColor::Reset,
        Color::Black => RColor::Black,
        Color::Red => RColor::Red,
        Color::Green => RColor::Green,
        Color::Yellow => RColor::Yellow,
        Color::Blue => RColor::Blue,
        Color::Magenta => RColor::Magenta,
        Color::Cyan => RColor::Cyan,
        Color::Gray => RColor::Gray,
        Color::DarkGray => RColor::DarkGray,
        Color::LightRed => RColor::LightRed,
        Color::LightGreen => RColor::LightGreen,
        Color::LightYellow => RColor::LightYellow,
        Color::LightBlue => RColor::LightBlue,
        Color::LightMagenta => RColor::LightMagenta,
        Color::LightCyan => RColor::LightCyan,
        Color::White => RColor::White,
        Color::Indexed(i) => RColor::Indexed(i),
        Color::Rgb(r, g, b) => RColor::Rgb(r, g, b),
    }
}

/// A pane's frame: rounded border, title, focus shown by border style and a marker.
pub fn pane_block<'a>(theme: &Theme, title: &'a str, focused: bool) -> Block<'a> {
    let (border, title_style) = if focused {
        (
            style(theme, Role::BorderFocus),
            style(theme, Role::BorderFocus),
        )
    } else {
        (style(theme, Role::Border), style(theme, Role::Title))
    };
    let title = if focused {
        format!("▸ {title} ")
    } else {
        format!(" {title} ")
    };
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(border)
        .title(ratatui::text::Span::styled(title, title_style))
}
