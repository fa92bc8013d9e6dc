//! A role's look: optional colours plus modifiers.

use super::color::Color;

/// How one role is drawn. `None` colours leave the terminal's (or the parent
/// widget's) colour in place.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct StyleSpec {
    pub fg: Option<Color>,
    pub bg: Option<Color>,
    pub bold: bool,
    pub dim: bool,
    pub italic: bool,
    pub underline: bool,
    pub reversed: bool,
}

impl StyleSpec {
    /// Only a foreground colour.
    pub fn fg(color: Color) -> Self {
        Self {
            fg: Some(color),
            ..Self::default()
        }
    }

    /// The same style without colours, for `NO_COLOR`. Modifiers stay; a style that
    /// relied on a background to stand out becomes `reversed`, so highlights remain
    /// visible.
    #[must_use]
    pub fn without_colors(self) -> Self {
        let highlighted = self.bg.is_some_and(|bg| bg != Color::Reset);
        Self {
            fg: None,
            bg: None,
            reversed: self.reversed || highlighted,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_becomes_reversed_without_colours() {
        let style = StyleSpec {
            bg: Some(Color::Blue),
            bold: true,
            ..StyleSpec::default()
        };
        let plain = style.without_colors();
        assert_eq!((plain.fg, plain.bg), (None, None));
        assert!(plain.reversed && plain.bold);
        assert!(!StyleSpec::fg(Color::Red).without_colors().reversed);
    }
}
