//! Sanitising untrusted text before it reaches the terminal.
//!
//! Everything shown in a pane that came from outside the program (server names, tool
//! descriptions and results, model output, logs) passes through [`sanitize`] or
//! [`sanitize_line`] first. The output never contains ESC, DEL, C0 controls other than
//! `\n`, C1 controls or bidi override/isolate controls, and it holds no tabs: they are
//! expanded to spaces because a raw tab would reach the terminal unmodified.
//!
//! The scan is a single linear pass over the input without regular expressions, and
//! [`sanitize`] returns the input borrowed when nothing had to change.

mod cursor;
mod escape;
mod markup;

pub use markup::escape_markup;

use std::borrow::Cow;

use cursor::Cursor;

/// Tab stops are every `TAB_WIDTH` columns (columns counted in chars per line).
const TAB_WIDTH: usize = 4;

/// Sanitises untrusted text for display in a multi-line pane.
///
/// Removes C0 controls except `\n` and `\t` (`\r\n` becomes `\n`, a lone `\r` is
/// dropped), DEL, C1 controls, whole ANSI escape sequences (CSI, OSC, DCS, SOS, PM,
/// APC, two-character and charset escapes, their 8-bit forms) and the bidi controls
/// U+202A–U+202E and U+2066–U+2069. Tabs are expanded to the next multiple-of-4 column.
pub fn sanitize(input: &str) -> Cow<'_, str> {
    if block_clean(input) {
        return Cow::Borrowed(input);
    }
    let mut out = Output::new(input, Mode::Block);
    scan(input, &mut out);
    out.finish_block()
}

/// [`sanitize`] would change nothing: `input` holds no control but `\n` (C0 with the
/// tab, DEL, C1) and no bidi control. One pass over the bytes, most of them ASCII
/// text; the char-by-char scan is for text that needs it.
fn block_clean(input: &str) -> bool {
    let bytes = input.as_bytes();
    bytes.iter().enumerate().all(|(i, &b)| match b {
        b'\n' => true,
        0..0x20 | 0x7f => false,
        // U+0080–U+009F: C1 controls.
        0xc2 => !matches!(bytes.get(i + 1), Some(0x80..=0x9f)),
        // U+202A–U+202E and U+2066–U+2069.
        0xe2 => !matches!(
            (bytes.get(i + 1), bytes.get(i + 2)),
            (Some(0x80), Some(0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
        ),
        _ => true,
    })
}

/// `input` holds the start of an escape sequence or a control string (ESC, or the
/// C1 CSI, DCS, SOS, OSC, PM, APC), which [`sanitize`] drops whole, newlines and all.
/// Without one, sanitising text cut after a newline gives what sanitising it whole
/// gives, the two halves end to end.
pub fn has_sequences(input: &str) -> bool {
    let bytes = input.as_bytes();
    memchr::memchr2_iter(0x1b, 0xc2, bytes).any(|i| {
        bytes.get(i) == Some(&0x1b)
            || matches!(bytes.get(i + 1), Some(0x90 | 0x98 | 0x9b | 0x9d..=0x9f))
    })
}

/// Like [`sanitize`] but tabs are kept: for line-oriented output (the CLI's stdout),
/// where a tab is ordinary text the reader's tools expect (`cut -f`, the memory tool's
/// `{n:6}\t{line}` listing), not something a full-screen layout has to measure.
pub fn sanitize_keep_tabs(input: &str) -> Cow<'_, str> {
    let mut out = Output::new(input, Mode::Stream);
    scan(input, &mut out);
    out.finish_block()
}

/// Like [`sanitize`], for bytes that may not be valid UTF-8: invalid sequences become
/// U+FFFD first.
pub fn sanitize_bytes(input: &[u8]) -> String {
    let text = String::from_utf8_lossy(input);
    sanitize(&text).into_owned()
}

/// One-line form for names and titles shown in lists: sanitises like [`sanitize`], then
/// each run of newlines and tabs becomes a single space, and the result is trimmed.
pub fn sanitize_line(input: &str) -> String {
    let mut out = Output::new(input, Mode::Line);
    scan(input, &mut out);
    out.finish_line()
}

/// The single pass: classify each char, keep it, drop it, or skip a whole sequence.
fn scan(input: &str, out: &mut Output<'_>) {
    let mut cursor = Cursor::new(input);
    while let Some((at, c)) = cursor.next() {
        match c {
            '\n' => out.newline(at),
            '\t' => out.tab(at),
            '\u{1b}' => {
                out.drop_at(at);
                escape::skip_after_esc(&mut cursor);
            }
            '\u{9b}' => {
                out.drop_at(at);
                escape::skip_csi_body(&mut cursor);
            }
            // DCS, SOS, OSC, PM, APC: a control string up to ST.
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => {
                out.drop_at(at);
                escape::skip_control_string(&mut cursor);
            }
            c if is_dropped(c) => out.drop_at(at),
            c => out.keep(at, c),
        }
    }
}

/// Chars removed on their own (no body to skip).
fn is_dropped(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// Bidi embedding/override (U+202A–U+202E) and isolate (U+2066–U+2069) controls.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Newlines kept, tabs expanded.
    Block,
    /// Newlines and tabs kept.
    Stream,
    /// Newlines and tabs collapse to one space.
    Line,
}

/// The output under construction: stays borrowed until the first change.
struct Output<'a> {
    input: &'a str,
    mode: Mode,
    owned: Option<String>,
    /// Column (in chars) of the next char on the current output line.
    column: usize,
    /// Line mode: a run of newlines/tabs is pending and becomes one space.
    pending_space: bool,
}

impl<'a> Output<'a> {
    fn new(input: &'a str, mode: Mode) -> Self {
        Self {
            input,
            mode,
            owned: None,
            column: 0,
            pending_space: false,
        }
    }

    /// Switches to an owned buffer holding the unchanged prefix `input[..at]`.
    fn diverge(&mut self, at: usize) -> &mut String {
        let input = self.input;
        self.owned.get_or_insert_with(|| {
            let mut buffer = String::with_capacity(input.len());
            buffer.push_str(&input[..at]);
            buffer
        })
    }

    fn keep(&mut self, at: usize, c: char) {
        if self.pending_space {
            self.pending_space = false;
            self.diverge(at).push(' ');
        }
        if let Some(buffer) = &mut self.owned {
            buffer.push(c);
        }
        self.column += 1;
    }

    fn drop_at(&mut self, at: usize) {
        self.diverge(at);
    }

    fn newline(&mut self, at: usize) {
        match self.mode {
            Mode::Block | Mode::Stream => {
                self.keep(at, '\n');
                self.column = 0;
            }
            Mode::Line => self.space_run(at),
        }
    }

    fn tab(&mut self, at: usize) {
        match self.mode {
            Mode::Block => {
                let width = TAB_WIDTH - self.column % TAB_WIDTH;
                let buffer = self.diverge(at);
                buffer.extend(std::iter::repeat_n(' ', width));
                self.column += width;
            }
            Mode::Stream => self.keep(at, '\t'),
            Mode::Line => self.space_run(at),
        }
    }

    fn space_run(&mut self, at: usize) {
        self.diverge(at);
        self.pending_space = true;
    }

    fn finish_block(self) -> Cow<'a, str> {
        match self.owned {
            Some(buffer) => Cow::Owned(buffer),
            None => Cow::Borrowed(self.input),
        }
    }

    /// A trailing pending space is dropped, then the line is trimmed.
    fn finish_line(self) -> String {
        let text = self.owned.as_deref().unwrap_or(self.input);
        text.trim().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `sanitize` gives without its fast path.
    fn scanned(input: &str) -> Cow<'_, str> {
        let mut out = Output::new(input, Mode::Block);
        scan(input, &mut out);
        out.finish_block()
    }

    fn hostile() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy as _;
        let pieces = proptest::sample::select(vec![
            "a", " ", "\n", "\t", "\r", "\u{0}", "\u{1b}", "[31m", "]0;", "\u{7}", "\u{7f}",
            "\u{80}", "\u{85}", "\u{90}", "\u{9b}", "\u{9c}", "\u{9f}", "\u{a0}", "é", "\u{2029}",
            "\u{202a}", "\u{202e}", "\u{202f}", "\u{2066}", "\u{2069}", "\u{206a}", "\u{2065}",
            "日本", "—",
        ]);
        proptest::collection::vec(pieces, 0..24).prop_map(|p| p.concat())
    }

    proptest::proptest! {
        /// The fast path answers exactly when the scan would change nothing, and
        /// `has_sequences` finds what the scan would skip as a sequence.
        #[test]
        fn the_byte_checks_agree_with_the_scan(input in hostile()) {
            let scan = scanned(&input);
            proptest::prop_assert_eq!(block_clean(&input), matches!(scan, Cow::Borrowed(_)));
            proptest::prop_assert_eq!(sanitize(&input), scan);
            let introducers = ['\u{1b}', '\u{9b}', '\u{90}', '\u{98}', '\u{9d}', '\u{9e}', '\u{9f}'];
            proptest::prop_assert_eq!(has_sequences(&input), input.contains(introducers));
        }
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(sanitize("hello, world\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn tab_expands_to_next_stop() {
        assert_eq!(sanitize("a\tb"), "a   b");
        assert_eq!(sanitize("abcd\tb"), "abcd    b");
        assert_eq!(sanitize("x\n\ty"), "x\n    y");
    }

    #[test]
    fn stream_form_keeps_tabs_and_drops_escapes() {
        assert_eq!(sanitize_keep_tabs("     1\tone\n"), "     1\tone\n");
        assert_eq!(sanitize_keep_tabs("a\x1b[31m\tb"), "a\tb");
    }

    #[test]
    fn line_form_collapses_whitespace_runs() {
        assert_eq!(sanitize_line("  a\r\n\tb\n"), "a b");
        assert_eq!(sanitize_line("plain"), "plain");
    }
}
