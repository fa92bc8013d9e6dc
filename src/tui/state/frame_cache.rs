//! The transcript's laid-out lines, kept per entry between frames. Laying out an
//! answer parses its Markdown; a frame only needs the lines it shows, and most
//! entries have not changed since the last frame. Each slot keeps the stamp of the
//! entry it was laid out from ([`ChatEntries`] stamps every entry it lets change): an
//! entry whose stamp moved (a card that moved on) is laid out again, and one whose
//! text was only appended to (a streamed delta) keeps its settled lines and lays out
//! the rest; so no code that changes an entry has to remember to invalidate it. A
//! frame in which no entry changed looks at none of them. A new width or `e` (expand
//! cards) lays out everything again; the theme is applied when the lines are drawn,
//! so a theme change needs nothing here.

use std::sync::{Mutex, PoisonError};

use super::ChatEntry;
use super::chat_entries::{ChatEntries, Stamp};
use super::transcript::{AnswerCut, TranscriptLine, entry_lines, extend_answer, layout_at};
use crate::tui::cards::ToolCard;

/// Kept in `State`. Cloning gives an empty cache (of the same kind); it never makes
/// two states unequal.
#[derive(Default)]
pub struct TranscriptCache {
    /// Lays out every entry every time (the reference the bench measures against).
    uncached: bool,
    layout: Mutex<Layout>,
}

#[derive(Default)]
struct Layout {
    width: u16,
    expanded: bool,
    /// The entries' generation the slots were made for.
    generation: Option<(u64, u64)>,
    /// The clock the slots that show it were laid out at.
    clock_ms: u64,
    /// Slots whose lines show the clock, and the first of them (or `usize::MAX`).
    clocked: usize,
    first_clocked: usize,
    /// Lines in the slots, and in the whole transcript (with a blank between two).
    lines: usize,
    total: usize,
    slots: Vec<Slot>,
}

struct Slot {
    stamp: Stamp,
    /// The clock the lines were laid out at, for entries whose lines show it.
    clock: Option<u64>,
    lines: Vec<TranscriptLine>,
    /// An answer's: where text appended to it takes over.
    cut: Option<AnswerCut>,
}

/// What a frame draws of the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// The lines shown, top first.
    pub lines: Vec<TranscriptLine>,
    /// Lines in the whole transcript.
    pub total: usize,
}

impl TranscriptCache {
    /// A cache that keeps nothing: every frame lays out the whole transcript.
    pub fn uncached() -> Self {
        Self {
            uncached: true,
            layout: Mutex::default(),
        }
    }

    /// The `height` lines that end `scroll` lines above the bottom of the
    /// transcript, laid out `width` wide.
    pub fn window(
        &self,
        entries: &ChatEntries,
        width: u16,
        expanded: bool,
        clock_ms: u64,
        (scroll, height): (usize, usize),
    ) -> Window {
        if self.uncached {
            let lines = layout_at(entries, width, expanded, clock_ms);
            let end = lines.len().saturating_sub(scroll);
            let start = end.saturating_sub(height);
            return Window {
                lines: lines[start..end].to_vec(),
                total: lines.len(),
            };
        }
        let mut cache = self.layout.lock().unwrap_or_else(PoisonError::into_inner);
        cache.refresh(entries, width, expanded, clock_ms);
        let total = cache.total;
        let end = total.saturating_sub(scroll);
        let start = end.saturating_sub(height);
        Window {
            lines: cache.lines_between(start, end),
            total,
        }
    }

    /// How many lines each entry takes, laid out `width` wide (a blank line separates
    /// entries); [`entry_at`] and [`entry_start`] read positions from it.
    pub fn line_counts(
        &self,
        entries: &ChatEntries,
        width: u16,
        expanded: bool,
        clock_ms: u64,
    ) -> Vec<usize> {
        let mut cache = self.layout.lock().unwrap_or_else(PoisonError::into_inner);
        cache.refresh(entries, width, expanded, clock_ms);
        cache.slots.iter().map(|s| s.lines.len()).collect()
    }

    /// Lines in the whole transcript laid out `width` wide.
    pub fn total(&self, entries: &ChatEntries, width: u16, expanded: bool, clock_ms: u64) -> usize {
        self.window(entries, width, expanded, clock_ms, (0, 0))
            .total
    }
}

/// The entry whose lines hold line `line` of the whole transcript (the blank line
/// after an entry counts as its own), from [`TranscriptCache::line_counts`].
pub fn entry_at(counts: &[usize], line: usize) -> Option<usize> {
    let mut end = 0;
    counts.iter().position(|count| {
        end += count + 1;
        line < end
    })
}

/// The first line of entry `index` in the whole transcript.
pub fn entry_start(counts: &[usize], index: usize) -> usize {
    counts.iter().take(index).map(|c| c + 1).sum()
}

/// Lines in the whole transcript.
pub fn total(counts: &[usize]) -> usize {
    counts.iter().sum::<usize>() + counts.len().saturating_sub(1)
}

impl Layout {
    /// Lays out again what changed since the last frame, looking only at the slots
    /// from the first entry that changed (and the first that shows a moved clock).
    fn refresh(&mut self, entries: &ChatEntries, width: u16, expanded: bool, clock_ms: u64) {
        let generation = entries.generation();
        if self.width != width
            || self.expanded != expanded
            || self.generation.map(|g| g.0) != Some(generation.0)
        {
            *self = Self {
                width,
                expanded,
                first_clocked: usize::MAX,
                ..Self::default()
            };
        }
        let ticked = self.clocked > 0 && self.clock_ms != clock_ms;
        if self.generation == Some(generation) && !ticked {
            return;
        }
        let mut from = self
            .generation
            .map_or(0, |(_, seen)| entries.first_changed_since(seen));
        if ticked {
            from = from.min(self.first_clocked);
        }
        let from = from.min(self.slots.len()).min(entries.len());
        self.forget_from(from);
        self.slots.truncate(entries.len());
        for (i, entry) in entries.iter().enumerate().skip(from) {
            let Some(stamp) = entries.stamp(i) else {
                break;
            };
            match self.slots.get_mut(i) {
                Some(slot) => slot.update(entry, stamp, width, expanded, clock_ms),
                None => self
                    .slots
                    .push(Slot::new(entry, stamp, width, expanded, clock_ms)),
            }
            if let Some(slot) = self.slots.get(i) {
                if slot.clock.is_some() {
                    self.clocked += 1;
                    self.first_clocked = self.first_clocked.min(i);
                }
                self.lines += slot.lines.len();
            }
        }
        self.generation = Some(generation);
        self.clock_ms = clock_ms;
        self.total = self.lines + self.slots.len().saturating_sub(1);
    }

    /// Takes what the slots from `from` on count out of the totals (they are
    /// looked at again).
    fn forget_from(&mut self, from: usize) {
        for slot in self.slots.get(from..).unwrap_or_default() {
            self.lines = self.lines.saturating_sub(slot.lines.len());
            self.clocked = self
                .clocked
                .saturating_sub(usize::from(slot.clock.is_some()));
        }
        if self.first_clocked >= from {
            self.first_clocked = usize::MAX;
        }
    }

    /// Lines `start..end` of the whole transcript (a blank line between entries).
    /// Walked from the bottom, where a frame looks far more often than at the top.
    fn lines_between(&self, start: usize, end: usize) -> Vec<TranscriptLine> {
        const BLANK: &[TranscriptLine] = &[TranscriptLine::Blank];
        let mut parts: Vec<&[TranscriptLine]> = Vec::new();
        // One past the last line of the slot at hand.
        let mut stop = self.total;
        for (i, slot) in self.slots.iter().enumerate().rev() {
            if stop <= start {
                break;
            }
            let first = stop.saturating_sub(slot.lines.len());
            let (from, to) = (start.max(first), end.min(stop));
            if let Some(part) = slot
                .lines
                .get(from.saturating_sub(first)..to.saturating_sub(first))
                && from < to
            {
                parts.push(part);
            }
            if i > 0 {
                let blank = first.saturating_sub(1);
                if (start..end).contains(&blank) {
                    parts.push(BLANK);
                }
                stop = blank;
            }
        }
        let mut out = Vec::with_capacity(end.saturating_sub(start));
        for part in parts.into_iter().rev() {
            out.extend_from_slice(part);
        }
        out
    }
}

impl Slot {
    fn new(entry: &ChatEntry, stamp: Stamp, width: u16, expanded: bool, clock_ms: u64) -> Self {
        let mut lines = Vec::new();
        let cut = entry_lines(entry, width, expanded, clock_ms, &mut lines);
        Self {
            stamp,
            clock: shows_clock(entry).then_some(clock_ms),
            lines,
            cut,
        }
    }

    /// Brings the slot up to the entry: nothing if it has not changed (and shows no
    /// clock that moved), the new end of an answer that was appended to, else all.
    fn update(
        &mut self,
        entry: &ChatEntry,
        stamp: Stamp,
        width: u16,
        expanded: bool,
        clock_ms: u64,
    ) {
        if self.stamp == stamp && self.clock.is_none_or(|c| c == clock_ms) {
            return;
        }
        if let Some(cut) = self.cut
            && self.stamp.base == stamp.base
        {
            self.cut = Some(extend_answer(entry, width, cut, &mut self.lines));
            self.stamp = stamp;
            return;
        }
        *self = Self::new(entry, stamp, width, expanded, clock_ms);
    }
}

/// The entry's lines change with the clock (a spinner, an elapsed time).
fn shows_clock(entry: &ChatEntry) -> bool {
    fn open(card: &ToolCard) -> bool {
        card.status.is_open() || card.children.iter().any(open)
    }
    entry.card.as_ref().is_some_and(open)
}

impl Clone for TranscriptCache {
    fn clone(&self) -> Self {
        Self {
            uncached: self.uncached,
            layout: Mutex::default(),
        }
    }
}

impl PartialEq for TranscriptCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for TranscriptCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TranscriptCache")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::CallId;
    use crate::policy::Origin;
    use crate::tui::cards::{CardKind, CardStatus};
    use crate::tui::state::ChatKind;
    use crate::tui::state::transcript::Tone;

    fn entries(n: usize) -> ChatEntries {
        (0..n)
            .map(|i| match i % 3 {
                0 => ChatEntry::new(ChatKind::User, format!("question {i}")),
                1 => ChatEntry::new(
                    ChatKind::Assistant,
                    format!("Some **bold** answer {i}\n\n- one\n- two words that wrap around"),
                ),
                _ => ChatEntry::new(ChatKind::Note, format!("a note\nof two lines {i}")),
            })
            .collect()
    }

    /// The cached window equals the same slice of the full layout.
    fn check(
        cache: &TranscriptCache,
        chat: &ChatEntries,
        width: u16,
        scroll: usize,
        height: usize,
    ) {
        let full = layout_at(chat, width, false, 0);
        let end = full.len().saturating_sub(scroll);
        let start = end.saturating_sub(height);
        let window = cache.window(chat, width, false, 0, (scroll, height));
        assert_eq!(window.total, full.len());
        assert_eq!(
            window.lines,
            full[start..end],
            "scroll {scroll} height {height}"
        );
    }

    #[test]
    fn windows_match_the_full_layout_as_entries_change() {
        let cache = TranscriptCache::default();
        let mut chat = entries(12);
        for (scroll, height) in [(0, 5), (0, 1000), (3, 7), (17, 4), (1000, 5), (0, 0)] {
            check(&cache, &chat, 30, scroll, height);
        }
        // Every window, on blank lines and entries' edges alike.
        let total = cache.total(&chat, 30, false, 0);
        for scroll in 0..total + 2 {
            for height in [1, 2, 3, 8, total] {
                check(&cache, &chat, 30, scroll, height);
            }
        }
        // A streamed delta, an entry removed, a new width.
        chat.append_text(11, " and more **text**");
        check(&cache, &chat, 30, 0, 9);
        chat.remove(4);
        check(&cache, &chat, 30, 2, 9);
        check(&cache, &chat, 14, 0, 50);
        chat.clear();
        check(&cache, &chat, 14, 0, 50);
    }

    /// Answers with every kind of block, to stream in.
    const ANSWERS: &[&str] = &[
        "Intro with **bold text** that runs long enough to wrap.\n\n- one\n- two\n\n\
         - three, after a blank\n\n  its second paragraph\n\nAfter the list.\n\n\
         1. first\n\n2. second\n3) another delimiter\n\n* star\n\n+ plus\n\n\
         - outer\n  - inner\n\n    - deeper\n\nThe end of it.\n",
        "```rust\nfn main() {\n\n    let x = 1;\n}\n```\n\nText after the code.\n\n\
         ~~~\nraw\n\n\n~~~\n\n    indented code\n\n    more of it\n\nEnd.\n\n```\nopen\n\nfence",
        "Title\n=====\n\nSub\n---\n\n---\n\n# Heading\n\n> quoted line\n> more\n\n\
         > again\n\nnot quoted\n\n<div>\nhtml\n</div>\n\nafter\n\n<!-- a comment\n\n\
         still the comment -->\n\nlater\n\n***\n\nlast\n",
        "*emphasis that\ncontinues* and `code\nspan` here\n\n\
         supercalifragilisticexpialidocious_word_longer_than_the_width\n\n\
         日本語のテキストがここにあります。日本語のテキスト\n\n\tTabbed line\r\n\r\n\
         CRLF paragraph\r\n\r\nHard  \nbreak\n\n~~struck~~ out\n\nlast",
        "See [the docs] and [x][ref].\n\nMore text here.\n\nAnd more.\n\n\
         [ref]: https://example.com\n[the docs]: https://docs\n\nTail.\n",
        "Red \u{1b}[31mtext\u{1b}[0m\n\nNext paragraph\n\n\u{1b}]0;title\n\nstill osc\u{7} \
         after\n\nend\n\nmore after the end\n",
    ];

    /// The lines [`layout_at`] gave before answers were laid out in parts: the
    /// header and the whole text's Markdown.
    fn whole_answer(text: &str, width: u16) -> Vec<TranscriptLine> {
        let width = usize::from(width).saturating_sub(super::super::transcript::INDENT);
        let md = crate::tui::markdown::markdown_lines(&crate::sanitize::sanitize(text), width);
        std::iter::once(TranscriptLine::Header(
            ChatKind::Assistant,
            None,
            Tone::Normal,
        ))
        .chain(
            md.into_iter()
                .map(|l| TranscriptLine::Body(ChatKind::Assistant, l)),
        )
        .collect()
    }

    /// Streams `answer` in pieces of `step` bytes after a few entries, checking the
    /// cached lines after every piece; the width changes now and then.
    fn stream(answer: &str, step: usize) {
        let cache = TranscriptCache::default();
        let mut chat = entries(4);
        chat.push(ChatEntry::new(ChatKind::Assistant, ""));
        let last = chat.len() - 1;
        let (mut at, mut n) = (0, 0);
        while at < answer.len() {
            let mut end = (at + step).min(answer.len());
            while !answer.is_char_boundary(end) {
                end += 1;
            }
            chat.append_text(last, &answer[at..end]);
            at = end;
            n += 1;
            let width = if n % 40 < 30 { 32 } else { 21 };
            check(&cache, &chat, width, 0, usize::MAX);
            let counts = cache.line_counts(&chat, width, false, 0);
            let lines = cache
                .window(&chat, width, false, 0, (0, counts[last]))
                .lines;
            assert_eq!(
                lines,
                whole_answer(&chat[last].text, width),
                "{:?}",
                &answer[..at]
            );
        }
    }

    #[test]
    fn a_streamed_answer_lays_out_as_the_whole_text_after_every_delta() {
        for answer in ANSWERS {
            for step in [1, 2, 5, 13, 64] {
                stream(answer, step);
            }
        }
    }

    /// The bench's stream: words, and a paragraph break every 40 of them.
    fn words(n: usize) -> String {
        (0..n)
            .map(|i| {
                if i.is_multiple_of(40) {
                    "\n\n".to_string()
                } else {
                    format!("word{i} ")
                }
            })
            .collect()
    }

    /// Pieces of Markdown that open, continue and close blocks, to make answers of.
    const TOKENS: &[&str] = &[
        "word ",
        "more words ",
        "\n",
        "\n\n",
        "- ",
        "* ",
        "1. ",
        "2) ",
        "  ",
        "    ",
        "\t",
        "> ",
        "# ",
        "```",
        "~~~",
        "---",
        "===",
        "***",
        "*",
        "_",
        "`",
        "~~",
        "[a]",
        "[a]: /u",
        "<div>",
        "<!--",
        "-->",
        "\u{1b}[1m",
        "\u{1b}]0;",
        "\u{7}",
        "\r\n",
        "日本語 ",
        "a_long_word_that_wraps_more_than_once ",
    ];

    proptest::proptest! {
        /// However an answer is made and cut into deltas, its cached lines are those of
        /// its whole text.
        #[test]
        fn any_streamed_answer_lays_out_as_the_whole_text(
            tokens in proptest::collection::vec(0..TOKENS.len(), 0..60),
            pieces in proptest::collection::vec(1_usize..12, 1..8),
            width in 8_u16..40,
        ) {
            let answer: String = tokens.iter().map(|&t| TOKENS[t]).collect();
            let cache = TranscriptCache::default();
            let mut chat = entries(2);
            chat.push(ChatEntry::new(ChatKind::Assistant, ""));
            let (mut at, mut n) = (0, 0);
            while at < answer.len() {
                let mut end = (at + pieces[n % pieces.len()]).min(answer.len());
                while !answer.is_char_boundary(end) {
                    end += 1;
                }
                chat.append_text(2, &answer[at..end]);
                at = end;
                n += 1;
                let lines = cache.window(&chat, width, false, 0, (0, usize::MAX)).lines;
                let whole = whole_answer(&chat[2].text, width);
                proptest::prop_assert_eq!(&lines[lines.len() - whole.len()..], &whole[..]);
            }
        }
    }

    #[test]
    fn a_streamed_answer_keeps_its_settled_lines() {
        let cache = TranscriptCache::default();
        let mut chat = entries(3);
        chat.push(ChatEntry::new(ChatKind::Assistant, "Streaming **now**:"));
        let text = words(400);
        for piece in text.split_inclusive(' ') {
            chat.append_text(3, piece);
            cache.window(&chat, 50, false, 0, (0, 20));
        }
        check(&cache, &chat, 50, 0, usize::MAX);
        let layout = cache.layout.lock().unwrap_or_else(PoisonError::into_inner);
        let cut = layout.slots.last().and_then(|s| s.cut);
        // Laid out only from the start of the last paragraph.
        let last_paragraph = chat[3].text.rfind("\n\n").map(|at| at + 2);
        assert_eq!(cut.map(|c| c.text), last_paragraph);
    }

    /// A running tool card's entry (`fs`, called by the model).
    fn running_card() -> ChatEntry {
        let mut card = ToolCard::new(
            CallId("call_1".into()),
            "r".into(),
            CardKind::Tool,
            Origin::Model,
        );
        card.tool = "fs".into();
        card.status = CardStatus::Running;
        let mut entry = ChatEntry::new(ChatKind::Tool, "");
        entry.card = Some(card);
        entry
    }

    #[test]
    fn a_changed_entry_is_laid_out_again_and_only_it() {
        let cache = TranscriptCache::default();
        let mut chat = entries(6);
        chat.push(running_card());
        chat.push(ChatEntry::new(ChatKind::User, "after the card"));
        check(&cache, &chat, 40, 0, usize::MAX);
        let others = |cache: &TranscriptCache| {
            let layout = cache.layout.lock().unwrap_or_else(PoisonError::into_inner);
            layout.slots.iter().map(|s| s.stamp).collect::<Vec<_>>()
        };
        let before = others(&cache);
        // The card moves on, as `events::card` would have it.
        if let Some(card) = chat.get_mut(6).and_then(|e| e.card.as_mut()) {
            card.status = CardStatus::Ok;
            card.duration_ms = Some(12);
            card.result = Some("done".into());
        }
        check(&cache, &chat, 40, 0, usize::MAX);
        let after = others(&cache);
        let changed: Vec<usize> = (0..after.len())
            .filter(|&i| after[i] != before[i])
            .collect();
        assert_eq!(changed, vec![6]);
        // Every entry, changed through `iter_mut`; and text replaced in an answer.
        for entry in &mut chat {
            entry.text.push_str(" edited");
        }
        check(&cache, &chat, 40, 0, usize::MAX);
        if let Some(answer) = chat.get_mut(1) {
            answer.text = "a new *answer*".into();
        }
        check(&cache, &chat, 40, 0, usize::MAX);
        chat.append_text(1, " and more");
        check(&cache, &chat, 40, 0, usize::MAX);
    }

    #[test]
    fn a_running_card_follows_the_clock_and_a_clone_starts_afresh() {
        let cache = TranscriptCache::default();
        let mut chat = entries(2);
        chat.push(running_card());
        for clock in [0, 0, 1_500, 1_500, 9_000] {
            let full = layout_at(&chat, 40, false, clock);
            let window = cache.window(&chat, 40, false, clock, (0, usize::MAX));
            assert_eq!(window.lines, full, "at {clock}");
        }
        // A clone went its own way: its stamps say nothing about this cache's slots.
        let mut other = chat.clone();
        other.append_text(1, " elsewhere");
        chat.append_text(1, " here");
        check(&cache, &chat, 40, 0, usize::MAX);
        check(&cache, &other, 40, 0, usize::MAX);
        check(&cache, &chat, 40, 0, usize::MAX);
    }

    #[test]
    fn the_uncached_kind_gives_the_same_window_and_survives_a_clone() {
        let chat = entries(7);
        let uncached = TranscriptCache::uncached().clone();
        let cached = TranscriptCache::default();
        for (scroll, height) in [(0, 6), (4, 3)] {
            assert_eq!(
                uncached.window(&chat, 40, false, 0, (scroll, height)),
                cached.window(&chat, 40, false, 0, (scroll, height))
            );
        }
        assert!(uncached.uncached);
    }

    proptest::proptest! {
        /// Whatever changes come between two frames (more than the entries remember
        /// among them), the window is the full layout's.
        #[test]
        fn any_changes_between_frames_give_the_full_layout(
            ops in proptest::collection::vec((0_u8..6, 0_usize..40, 1_usize..90), 1..12),
        ) {
            let cache = TranscriptCache::default();
            let mut chat = entries(20);
            check(&cache, &chat, 30, 0, 25);
            for (op, at, repeat) in ops {
                for n in 0..repeat {
                    let i = (at + n) % chat.len().max(1);
                    match op {
                        0 => chat.push(ChatEntry::new(ChatKind::Note, format!("new {n}"))),
                        1 => {
                            if let Some(e) = chat.get_mut(i) {
                                e.text = format!("changed {n}\nover two lines");
                            }
                        }
                        2 => chat.append_text(chat.len().saturating_sub(1), " more"),
                        3 if chat.len() > 1 => {
                            chat.remove(i);
                        }
                        4 if n == 0 => {
                            for e in &mut chat {
                                e.text.push('.');
                            }
                        }
                        5 if n == 0 && at % 7 == 0 => chat.clear(),
                        _ => chat.push(ChatEntry::new(ChatKind::User, "q")),
                    }
                }
                check(&cache, &chat, 30, 0, 25);
                check(&cache, &chat, 30, at, 1000);
            }
        }
    }
}
