//! Turning an `extends` chain of theme files into a finished [`Theme`].

use std::collections::HashMap;

use super::Theme;
use super::color::Color;
use super::error::{Located, ThemeError};
use super::file::{StyleEntry, ThemeFile};
use super::role::Role;
use super::style::StyleSpec;

/// Merges `chain` (the base theme first, the requested theme last) and fills every role.
///
/// Later files replace earlier palette entries and whole role styles. A palette entry
/// may name an entry defined before it (in a parent, or above it in the same file).
/// Style colours are looked up in the final merged palette first, so a child theme can
/// retint its parent by redefining a palette name; otherwise they must be colours.
/// Roles no file sets take the style of their fallback role.
pub(super) fn resolve(name: &str, chain: &[ThemeFile]) -> Result<Theme, ThemeError> {
    let mut palette: HashMap<&str, Color> = HashMap::new();
    let mut explicit: Vec<Option<&StyleEntry>> = vec![None; Role::COUNT];
    for file in chain {
        for (key, text) in &file.palette {
            let color = color_of(text, &palette, &format!("palette.{key}"))?;
            palette.insert(key, color);
        }
        for (role, entry) in &file.styles {
            explicit[role.index()] = Some(entry);
        }
    }

    let mut set: Vec<Option<StyleSpec>> = vec![None; Role::COUNT];
    for role in Role::ALL {
        if let Some(entry) = explicit[role.index()] {
            set[role.index()] = Some(style_of(*role, entry, &palette)?);
        }
    }

    let styles = Role::ALL
        .iter()
        .map(|role| {
            let mut current = *role;
            loop {
                if let Some(style) = set[current.index()] {
                    break style;
                }
                match current.fallback() {
                    Some(next) => current = next,
                    None => break StyleSpec::default(),
                }
            }
        })
        .collect();
    Ok(Theme::from_styles(name, styles))
}

fn style_of(
    role: Role,
    entry: &StyleEntry,
    palette: &HashMap<&str, Color>,
) -> Result<StyleSpec, ThemeError> {
    let color = |text: Option<&Located<String>>, attribute: &str| {
        text.map(|text| color_of(text, palette, &format!("{}.{attribute}", role.name())))
            .transpose()
    };
    Ok(StyleSpec {
        fg: color(entry.fg.as_ref(), "fg")?,
        bg: color(entry.bg.as_ref(), "bg")?,
        bold: entry.bold,
        dim: entry.dim,
        italic: entry.italic,
        underline: entry.underline,
        reversed: entry.reversed,
    })
}

/// A palette name (looked up first, so palettes may shadow colour names) or a colour.
fn color_of(
    text: &Located<String>,
    palette: &HashMap<&str, Color>,
    what: &str,
) -> Result<Color, ThemeError> {
    if let Some(color) = palette.get(text.value.as_str()) {
        return Ok(*color);
    }
    text.value
        .parse::<Color>()
        .map_err(|unknown| text.at.error(format!("{unknown} for `{what}`")))
}
