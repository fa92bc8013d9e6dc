//! The chat transcript laid out as lines for a given width (shared by render and the
//! scroll limits in update).

use std::borrow::Cow;
use std::fmt::Write as _;

use unicode_width::UnicodeWidthChar;

use super::{ChatEntry, ChatKind};
use crate::policy::Origin;
use crate::sanitize::sanitize;
use crate::tui::cards::{ARG_LINES, CardStatus, RESULT_LINES, ToolCard};
use crate::tui::markdown::{MdLine, MdStyle, continue_lines};

/// The colour family of a header line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Normal,
    Running,
    Ok,
    Bad,
}

/// One display line of the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranscriptLine {
    /// The line that opens an entry: its kind, and for tool cards a label and tone.
    Header(ChatKind, Option<String>, Tone),
    /// Styled pieces; assistant text is Markdown, everything else plain.
    Body(ChatKind, MdLine),
    /// A sub-agent's call under its agent's card: depth (0 = directly under it),
    /// label, tone.
    Nested(usize, String, Tone),
    Blank,
}

/// Indent of body lines under their header.
pub const INDENT: usize = 2;

/// `expanded` shows tool cards' whole arguments and results; `clock_ms` times the
/// cards still running.
pub fn layout_transcript(entries: &[ChatEntry], width: u16, expanded: bool) -> Vec<TranscriptLine> {
    layout_at(entries, width, expanded, 0)
}

/// [`layout_transcript`] at a clock reading (spinners, elapsed times). Lays out every
/// entry; the frame uses [`super::frame_cache::TranscriptCache`], which keeps each
/// entry's lines.
pub fn layout_at(
    entries: &[ChatEntry],
    width: u16,
    expanded: bool,
    clock_ms: u64,
) -> Vec<TranscriptLine> {
    let mut out = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            out.push(TranscriptLine::Blank);
        }
        entry_lines(entry, width, expanded, clock_ms, &mut out);
    }
    out
}

/// The lines of one entry (without the blank line between entries), for a pane
/// `width` wide. For an answer, also where text appended to it takes over
/// ([`extend_answer`]).
pub fn entry_lines(
    entry: &ChatEntry,
    width: u16,
    expanded: bool,
    clock_ms: u64,
    out: &mut Vec<TranscriptLine>,
) -> Option<AnswerCut> {
    let width = body_width(width);
    if let Some(card) = &entry.card {
        card_lines(card, width, expanded, clock_ms, out);
        return None;
    }
    out.push(TranscriptLine::Header(entry.kind, None, Tone::Normal));
    if entry.kind == ChatKind::Assistant {
        return Some(answer_lines(&entry.text, width, AnswerCut::START, out));
    }
    let text = sanitize(&entry.text);
    // Results of calls, reads and prompts the person started fold until `e`.
    let shown = if entry.kind == ChatKind::Tool && !expanded {
        RESULT_PREVIEW_LINES
    } else {
        usize::MAX
    };
    let mut lines = text.lines();
    for line in lines.by_ref().take(shown) {
        for piece in wrap(line, width) {
            out.push(TranscriptLine::Body(
                entry.kind,
                vec![(MdStyle::Text, piece)],
            ));
        }
    }
    // One pass: what `take` left is what folded.
    let more = lines.count();
    if more > 0 {
        out.push(TranscriptLine::Body(
            entry.kind,
            vec![(
                MdStyle::Text,
                format!("… {} (e shows all)", more_lines(more)),
            )],
        ));
    }
    None
}

fn body_width(width: u16) -> usize {
    usize::from(width).saturating_sub(INDENT).max(1)
}

/// Where the settled part of an answer's layout ends: its lines up to there stay
/// whatever is appended to its text (see [`crate::tui::markdown::continue_lines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerCut {
    /// Byte offset in the answer's text (as it came, before sanitising).
    pub(super) text: usize,
    /// Body lines laid out before it (the header not counted), blank lines at the end
    /// left out...
    lines: usize,
    /// ... and how many there were: they are shown only if more lines follow.
    blanks: usize,
}

impl AnswerCut {
    const START: Self = Self {
        text: 0,
        lines: 0,
        blanks: 0,
    };
}

/// An answer's lines after text was appended to it: `lines` holds the lines
/// [`entry_lines`] (or an earlier call) gave, at the same width; those before `cut`
/// stay and only the text after it is laid out.
pub fn extend_answer(
    entry: &ChatEntry,
    width: u16,
    cut: AnswerCut,
    lines: &mut Vec<TranscriptLine>,
) -> AnswerCut {
    lines.truncate(1 + cut.lines);
    answer_lines(&entry.text, body_width(width), cut, lines)
}

/// Lays out `text` from `cut` on, after `out` (which ends with the lines before the
/// cut), and returns the cut for the next time.
fn answer_lines(
    text: &str,
    width: usize,
    cut: AnswerCut,
    out: &mut Vec<TranscriptLine>,
) -> AnswerCut {
    let raw = text.get(cut.text..).unwrap_or_default();
    let rest = sanitize(raw);
    // A link defined now can change how a reference before the cut reads.
    let defines = rest.contains("]:");
    if defines && cut != AnswerCut::START {
        out.truncate(out.len().saturating_sub(cut.lines));
        return answer_lines(text, width, AnswerCut::START, out);
    }
    // Cut only where sanitising the two halves gives the whole one's text.
    let plain = matches!(rest, Cow::Borrowed(_));
    let settle = !defines && (plain || !crate::sanitize::has_sequences(raw));
    let after_text = cut.lines > 0 && cut.blanks == 0;
    let (lines, settled) = continue_lines(&rest, width, after_text, settle);
    let next = settled
        .and_then(|s| {
            let at = cut.text
                + if plain {
                    s.at
                } else {
                    raw_offset(raw, &rest, s.at)?
                };
            Some(cut.after(at, lines.get(..s.lines)?))
        })
        .unwrap_or(cut);
    let shown = lines.len() - trailing_blanks(&lines);
    if shown > 0 {
        let blank = || TranscriptLine::Body(ChatKind::Assistant, Vec::new());
        out.extend(std::iter::repeat_with(blank).take(cut.blanks));
        out.extend(
            lines
                .into_iter()
                .take(shown)
                .map(|line| TranscriptLine::Body(ChatKind::Assistant, line)),
        );
    }
    next
}

impl AnswerCut {
    /// The cut moved to byte `text`, past `lines` more lines.
    fn after(self, text: usize, lines: &[MdLine]) -> Self {
        let blanks = trailing_blanks(lines);
        if blanks == lines.len() {
            return Self {
                text,
                blanks: self.blanks + blanks,
                ..self
            };
        }
        Self {
            text,
            lines: self.lines + self.blanks + lines.len() - blanks,
            blanks,
        }
    }
}

fn trailing_blanks(lines: &[MdLine]) -> usize {
    lines.iter().rev().take_while(|l| l.is_empty()).count()
}

/// The byte in `raw` where byte `at` of its sanitised form `clean` came from; `at`
/// follows a newline, and each newline of `clean` is one of `raw`.
fn raw_offset(raw: &str, clean: &str, at: usize) -> Option<usize> {
    let newlines = clean.get(..at)?.matches('\n').count();
    raw.match_indices('\n')
        .nth(newlines.checked_sub(1)?)
        .map(|(i, _)| i + 1)
}

/// Lines of a manual result shown before it folds.
pub const RESULT_PREVIEW_LINES: usize = 40;

fn card_lines(
    card: &ToolCard,
    width: usize,
    expanded: bool,
    clock_ms: u64,
    out: &mut Vec<TranscriptLine>,
) {
    let folded = if card.origin == Origin::Manual {
        RESULT_PREVIEW_LINES
    } else {
        RESULT_LINES
    };
    let (arg_lines, result_lines) = if expanded {
        (usize::MAX, usize::MAX)
    } else {
        (ARG_LINES, folded)
    };
    let label = card_label(card, clock_ms, width);
    out.push(TranscriptLine::Header(
        ChatKind::Tool,
        Some(label),
        tone_of(card.status),
    ));
    let args = if card.args.is_empty() {
        Vec::new()
    } else {
        wrap(&crate::sanitize::sanitize_line(&card.args), width)
    };
    let more_args = args.len() > arg_lines;
    for (i, line) in args.into_iter().take(arg_lines).enumerate() {
        let line = if more_args && i + 1 == arg_lines {
            format!("{line}…")
        } else {
            line
        };
        out.push(TranscriptLine::Body(
            ChatKind::Tool,
            vec![(MdStyle::Marker, line)],
        ));
    }
    super::nested::child_lines(card, 0, expanded, clock_ms, out);
    let Some(result) = &card.result else {
        return;
    };
    let result = sanitize(result);
    let lines: Vec<&str> = result.lines().collect();
    let style = if card.status == CardStatus::Ok {
        MdStyle::Text
    } else {
        MdStyle::Quote
    };
    for line in lines.iter().take(result_lines) {
        for piece in wrap(line, width) {
            out.push(TranscriptLine::Body(ChatKind::Tool, vec![(style, piece)]));
        }
    }
    if lines.len() > result_lines {
        out.push(TranscriptLine::Body(
            ChatKind::Tool,
            vec![(
                MdStyle::Marker,
                format!("… {} (e shows all)", more_lines(lines.len() - result_lines)),
            )],
        ));
    }
    if card.truncated {
        out.push(TranscriptLine::Body(
            ChatKind::Tool,
            vec![(MdStyle::Marker, "(the model saw a shortened result)".into())],
        ));
    }
}

/// The colour family of a card in this state.
pub fn tone_of(status: CardStatus) -> Tone {
    match status {
        CardStatus::Ok => Tone::Ok,
        CardStatus::Error | CardStatus::Denied | CardStatus::Aborted | CardStatus::Cancelled => {
            Tone::Bad
        }
        CardStatus::Requested | CardStatus::WaitingApproval | CardStatus::Running => Tone::Running,
    }
}

/// `⠹ you → fs · write · running 2.3 s · Esc cancels`, or when done
/// `fs · write · ok · 120 ms · by session grant (fs write calls)`. A tool name too
/// long for `width` loses its middle, so the status and who decided stay in view.
fn card_label(card: &ToolCard, clock_ms: u64, width: usize) -> String {
    let tool = crate::sanitize::sanitize_line(&card.tool);
    let full = card_label_with(card, clock_ms, &tool);
    let over = unicode_width::UnicodeWidthStr::width(full.as_str()).saturating_sub(width);
    if over == 0 {
        return full;
    }
    let name_w = unicode_width::UnicodeWidthStr::width(tool.as_str());
    let short = crate::tui::words::middle(&tool, name_w.saturating_sub(over), 12);
    card_label_with(card, clock_ms, &short)
}

fn card_label_with(card: &ToolCard, clock_ms: u64, tool: &str) -> String {
    let mut label = String::new();
    if card.status.is_open() {
        label.push(crate::tui::cards::spinner(clock_ms));
        label.push(' ');
    }
    match card.origin {
        Origin::Manual => label.push_str("you → "),
        Origin::App => label.push_str("app → "),
        _ => {}
    }
    label.push_str(tool);
    if let Some(effect) = card.effect {
        let _ = write!(label, " · {effect}");
    }
    let _ = write!(label, " · {}", card.status.label());
    if card.repeats > 0 {
        let _ = write!(label, " · call {}", card.repeats + 1);
    }
    if let Some(ms) = card.duration_ms {
        let _ = write!(label, " · {}", crate::tui::cards::duration_text(ms));
    } else if card.status == CardStatus::Running {
        let elapsed = clock_ms.saturating_sub(card.opened_ms);
        let _ = write!(label, " {}", crate::tui::cards::duration_text(elapsed));
        if let Some(progress) = &card.progress {
            let _ = write!(label, " · {}", crate::sanitize::sanitize_line(progress));
        }
        if card.origin == Origin::Manual {
            label.push_str(" · Esc cancels");
        }
    }
    if let Some(decided) = &card.decided {
        let _ = write!(label, " · by {}", crate::sanitize::sanitize_line(decided));
    }
    label
}

fn more_lines(n: usize) -> String {
    crate::tui::words::count(n, "more line", "more lines")
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
            ChatEntry::new(ChatKind::User, "hi"),
            ChatEntry::new(ChatKind::Note, "a\nb"),
        ];
        let lines = layout_transcript(&entries, 20, false);
        assert_eq!(
            lines,
            vec![
                TranscriptLine::Header(ChatKind::User, None, Tone::Normal),
                TranscriptLine::Body(ChatKind::User, vec![(MdStyle::Text, "hi".into())]),
                TranscriptLine::Blank,
                TranscriptLine::Header(ChatKind::Note, None, Tone::Normal),
                TranscriptLine::Body(ChatKind::Note, vec![(MdStyle::Text, "a".into())]),
                TranscriptLine::Body(ChatKind::Note, vec![(MdStyle::Text, "b".into())]),
            ]
        );
    }
}
