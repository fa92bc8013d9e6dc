//! A forward-only char cursor with one- and two-char lookahead.

/// Walks a `&str` by chars, yielding byte offsets like `char_indices`.
#[derive(Debug, Clone)]
pub(super) struct Cursor<'a> {
    text: &'a str,
    position: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Self { text, position: 0 }
    }

    /// The next char without consuming it.
    pub(super) fn peek(&self) -> Option<char> {
        self.text[self.position..].chars().next()
    }

    /// The char after the next one, without consuming anything.
    pub(super) fn peek_second(&self) -> Option<char> {
        let mut chars = self.text[self.position..].chars();
        chars.next();
        chars.next()
    }

    /// Consumes the next char.
    pub(super) fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.position += c.len_utf8();
        }
    }
}

impl Iterator for Cursor<'_> {
    type Item = (usize, char);

    fn next(&mut self) -> Option<(usize, char)> {
        let at = self.position;
        let c = self.peek()?;
        self.position += c.len_utf8();
        Some((at, c))
    }
}
