//! One theme file, parsed and checked, before `extends` and fallbacks are applied.

use std::sync::Arc;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::error::{Located, Location, ThemeError};
use super::role::Role;

/// The contents of one theme file. Colours stay text here because they may name
/// palette entries of another theme in the `extends` chain.
#[derive(Debug, Clone)]
pub(super) struct ThemeFile {
    pub(super) extends: Option<Located<String>>,
    pub(super) palette: Vec<(String, Located<String>)>,
    pub(super) styles: Vec<(Role, StyleEntry)>,
}

/// One `[styles]` entry as written.
#[derive(Debug, Clone, Default)]
pub(super) struct StyleEntry {
    pub(super) fg: Option<Located<String>>,
    pub(super) bg: Option<Located<String>>,
    pub(super) bold: bool,
    pub(super) dim: bool,
    pub(super) italic: bool,
    pub(super) underline: bool,
    pub(super) reversed: bool,
}

const STYLE_ATTRIBUTES: &str = "fg, bg, bold, dim, italic, underline, reversed";

type Entry<'a, 'i> = (
    &'a Spanned<std::borrow::Cow<'i, str>>,
    &'a Spanned<DeValue<'i>>,
);

/// Parses theme file `text`; `path` is how errors name the file.
pub(super) fn parse(path: &Arc<str>, text: &str) -> Result<ThemeFile, ThemeError> {
    let parser = Parser { path, text };
    let document = DeTable::parse(text).map_err(|error| {
        let offset = error.span().map_or(0, |span| span.start);
        parser.at(offset).error(error.message().trim())
    })?;
    let mut file = ThemeFile {
        extends: None,
        palette: Vec::new(),
        styles: Vec::new(),
    };
    for (key, value) in in_source_order(document.get_ref()) {
        match key.get_ref().as_ref() {
            "name" => {
                parser.string(value, "name")?;
            }
            "extends" => file.extends = Some(parser.string(value, "extends")?),
            "palette" => file.palette = parser.palette(value)?,
            "styles" => file.styles = parser.styles(value)?,
            other => {
                return Err(parser.at(key.span().start).error(format!(
                    "unknown key `{other}` (expected `name`, `extends`, `palette` or `styles`)"
                )));
            }
        }
    }
    Ok(file)
}

/// Table entries sorted by position, so the first error reported is the first in the file.
fn in_source_order<'a, 'i>(table: &'a DeTable<'i>) -> Vec<Entry<'a, 'i>> {
    let mut entries: Vec<Entry<'a, 'i>> = table.iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    entries
}

struct Parser<'a> {
    path: &'a Arc<str>,
    text: &'a str,
}

impl Parser<'_> {
    fn at(&self, offset: usize) -> Location {
        Location::at(self.path, self.text, offset)
    }

    fn located<T>(&self, value: T, spanned: &Spanned<DeValue<'_>>) -> Located<T> {
        Located {
            value,
            at: self.at(spanned.span().start),
        }
    }

    fn table<'v, 'i>(
        &self,
        value: &'v Spanned<DeValue<'i>>,
        what: &str,
    ) -> Result<&'v DeTable<'i>, ThemeError> {
        value.get_ref().as_table().ok_or_else(|| {
            self.at(value.span().start)
                .error(format!("`{what}` must be a table"))
        })
    }

    fn string(
        &self,
        value: &Spanned<DeValue<'_>>,
        what: &str,
    ) -> Result<Located<String>, ThemeError> {
        match value.get_ref() {
            DeValue::String(text) => Ok(self.located(text.to_string(), value)),
            _ => Err(self
                .at(value.span().start)
                .error(format!("`{what}` must be a string"))),
        }
    }

    /// A colour as written: a string, or an integer for an indexed colour.
    fn color_text(
        &self,
        value: &Spanned<DeValue<'_>>,
        what: &str,
    ) -> Result<Located<String>, ThemeError> {
        let text = match value.get_ref() {
            DeValue::String(text) => Some(text.to_string()),
            DeValue::Integer(integer) => i64::from_str_radix(integer.as_str(), integer.radix())
                .ok()
                .map(|number| number.to_string()),
            _ => None,
        };
        text.map(|text| self.located(text, value)).ok_or_else(|| {
            self.at(value.span().start).error(format!(
                "`{what}` must be a colour: a name, \"#rrggbb\", \"#rgb\" or 0-255"
            ))
        })
    }

    /// Palette entries stay text: they may name earlier entries, checked on resolve.
    fn palette(
        &self,
        value: &Spanned<DeValue<'_>>,
    ) -> Result<Vec<(String, Located<String>)>, ThemeError> {
        let mut palette = Vec::new();
        for (key, value) in in_source_order(self.table(value, "palette")?) {
            let what = format!("palette.{}", key.get_ref());
            palette.push((key.get_ref().to_string(), self.color_text(value, &what)?));
        }
        Ok(palette)
    }

    fn styles(&self, value: &Spanned<DeValue<'_>>) -> Result<Vec<(Role, StyleEntry)>, ThemeError> {
        let mut styles = Vec::new();
        for (key, value) in in_source_order(self.table(value, "styles")?) {
            let name = key.get_ref();
            let role = Role::from_name(name).ok_or_else(|| {
                self.at(key.span().start)
                    .error(format!("unknown role `{name}` in [styles]"))
            })?;
            styles.push((role, self.style(role, value)?));
        }
        Ok(styles)
    }

    fn style(&self, role: Role, value: &Spanned<DeValue<'_>>) -> Result<StyleEntry, ThemeError> {
        let role_name = role.name();
        let Some(table) = value.get_ref().as_table() else {
            // Shorthand: `border_focus = "accent"` sets the foreground only.
            let fg = self.color_text(value, role_name)?;
            return Ok(StyleEntry {
                fg: Some(fg),
                ..StyleEntry::default()
            });
        };
        let mut entry = StyleEntry::default();
        for (key, value) in in_source_order(table) {
            let attribute = key.get_ref().as_ref();
            let what = format!("{role_name}.{attribute}");
            let flag = match attribute {
                "fg" => {
                    entry.fg = Some(self.color_text(value, &what)?);
                    continue;
                }
                "bg" => {
                    entry.bg = Some(self.color_text(value, &what)?);
                    continue;
                }
                "bold" => &mut entry.bold,
                "dim" => &mut entry.dim,
                "italic" => &mut entry.italic,
                "underline" => &mut entry.underline,
                "reversed" => &mut entry.reversed,
                other => {
                    return Err(self.at(key.span().start).error(format!(
                        "unknown style attribute `{other}` for `{role_name}` (expected {STYLE_ATTRIBUTES})"
                    )));
                }
            };
            *flag = value.get_ref().as_bool().ok_or_else(|| {
                self.at(value.span().start)
                    .error(format!("`{what}` must be true or false"))
            })?;
        }
        Ok(entry)
    }
}
