//! Themes: every colour on screen comes from here.
//!
//! A theme maps each [`Role`] (what a piece of the screen is) to a [`StyleSpec`]
//! (colours and modifiers). Themes are TOML files: built-ins are compiled in, user
//! files in the theme directory shadow them, and `extends` builds one on another.
//! This module is UI-free: the TUI converts [`Color`] and [`StyleSpec`] to ratatui.
//!
//! ```toml
//! name = "ocean"
//! extends = "default"        # optional; a built-in or user theme
//! [palette]                   # optional named colours usable in styles
//! accent = "#5fafd7"
//! [styles]
//! title = { fg = "accent", bold = true }
//! border_focus = "accent"     # shorthand: fg only
//! ```

mod builtin;
mod color;
mod error;
mod file;
mod resolve;
mod role;
mod set;
mod style;

pub use color::{Color, UnknownColor};
pub use error::ThemeError;
pub use role::Role;
pub use set::ThemeSet;
pub use style::StyleSpec;

/// A fully resolved theme: every role has a style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    /// The name it was loaded by.
    pub name: String,
    /// Indexed by [`Role::index`]; always [`Role::COUNT`] long.
    styles: Vec<StyleSpec>,
}

impl Theme {
    /// The built-in `default` theme. Never fails: if the embedded file were ever broken
    /// this is a colourless theme that still marks focus and selection.
    pub fn fallback_default() -> Theme {
        ThemeSet::new(None)
            .load("default")
            .unwrap_or_else(|_| Theme::colorless())
    }

    /// A hard-coded theme without colours, built from modifiers only.
    pub fn colorless() -> Theme {
        let modifiers = |role: Role| {
            let plain = StyleSpec::default();
            match role {
                Role::Title | Role::BorderFocus | Role::TabActive | Role::Error => StyleSpec {
                    bold: true,
                    ..plain
                },
                Role::Selection | Role::FilterMatch => StyleSpec {
                    reversed: true,
                    ..plain
                },
                Role::Dim | Role::KeyHint | Role::Placeholder | Role::LogDebug => {
                    StyleSpec { dim: true, ..plain }
                }
                Role::Link => StyleSpec {
                    underline: true,
                    ..plain
                },
                _ => plain,
            }
        };
        Theme::from_styles(
            "colorless",
            Role::ALL.iter().map(|role| modifiers(*role)).collect(),
        )
    }

    pub(crate) fn from_styles(name: &str, styles: Vec<StyleSpec>) -> Theme {
        Theme {
            name: name.to_owned(),
            styles,
        }
    }

    /// The style for `role`, fallbacks already applied.
    pub fn style(&self, role: Role) -> StyleSpec {
        self.styles.get(role.index()).copied().unwrap_or_default()
    }

    /// The same theme without colours, for `NO_COLOR` / `--no-color`: modifiers stay,
    /// and styles that stood out by background become reversed.
    #[must_use]
    pub fn without_colors(&self) -> Theme {
        Theme {
            name: self.name.clone(),
            styles: self.styles.iter().map(|s| s.without_colors()).collect(),
        }
    }
}

impl Default for Theme {
    fn default() -> Self {
        Theme::fallback_default()
    }
}
