//! The chat transcript laid out as lines for a given width (shared by render and the
//! scroll limits in update).

use unicode_width::UnicodeWidthChar;

use super::markdown::{MdLine, MdStyle, markdown_lines};
use super::state::{ChatEntry, ChatKind};

/// One display line of the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranscriptLine {
    /// The role label that opens an entry.
    Header(ChatKind),
    /// Styled pieces; assistant text is Markdown, everything else plain.
    Body(ChatKind, MdLine),
    Blank,
}

/// Indent of body lines under their header.
pub const INDENT: usize = 2;

pub fn layout_transcript(entries: &[ChatEntry], width: u16) -> Vec<TranscriptLine> {
    let width = usize::from(width).saturating_sub(INDENT).max(1);
    let mut out = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            out.push(TranscriptLine::Blank);
        }
        out.push(TranscriptLine::Header(entry.kind));
        if entry.kind == ChatKind::Assistant {
            for line in markdown_lines(&entry.text, width) {
                out.push(TranscriptLine::Body(entry.kind, line));
            }
            continue;
        }
        for line in entry.text.lines() {
            for piece in wrap(line, width) {
                out.push(TranscriptLine::Body(
                    entry.kind,
                    vec![(MdStyle::Text, piece)],
                ));
            }
        }
    }
    out
}

/// Greedy word wrap by display width; words longer than the width are split.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    if line.is_empty() {
        return vec![String::new()];
    }
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut current_w = 0;
    for word in line.split_inclusive(' ') {
        let word_w: usize = word
            .trim_end_matches(' ')
            .chars()
            .map(|c| c.width().unwrap_or(0))
            .sum();
        if current_w + word_w.min(width) > width && current_w > 0 {
            lines.push(current.trim_end().to_string());
            current.clear();
            current_w = 0;
        }
        for c in word.chars() {
            let cw = c.width().unwrap_or(0);
            if c == ' ' && current_w + cw > width {
                continue; // a space at the wrap point disappears
            }
            if current_w + cw > width && current_w > 0 {
                lines.push(std::mem::take(&mut current));
                current_w = 0;
            }
            current.push(c);
            current_w += cw;
        }
    }
    if !current.is_empty() || lines.is_empty() {
        lines.push(current.trim_end().to_string());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_on_words_and_splits_long_words() {
        assert_eq!(wrap("hello world foo", 11), vec!["hello world", "foo"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 5), vec![""]);
        assert_eq!(wrap("日本語テキスト", 6), vec!["日本語", "テキス", "ト"]);
    }

    #[test]
    fn entries_get_headers_and_blank_separators() {
        let entries = vec![
            ChatEntry {
                kind: ChatKind::User,
                text: "hi".into(),
            },
            ChatEntry {
                kind: ChatKind::Note,
                text: "a\nb".into(),
            },
        ];
        let lines = layout_transcript(&entries, 20);
        assert_eq!(
            lines,
            vec![
                TranscriptLine::Header(ChatKind::User),
                TranscriptLine::Body(ChatKind::User, vec![(MdStyle::Text, "hi".into())]),
                TranscriptLine::Blank,
                TranscriptLine::Header(ChatKind::Note),
                TranscriptLine::Body(ChatKind::Note, vec![(MdStyle::Text, "a".into())]),
                TranscriptLine::Body(ChatKind::Note, vec![(MdStyle::Text, "b".into())]),
            ]
        );
    }
}
