//! The transcript's laid-out lines, kept per entry between frames. Laying out an
//! answer parses its Markdown; a frame only needs the lines it shows, and most
//! entries have not changed since the last frame. Each slot keeps a copy of the
//! entry it was laid out from: an entry that differs (a streamed delta, a card that
//! moved on) is laid out again, so no code that changes an entry has to remember to
//! invalidate it. A new width or `e` (expand cards) lays out everything again; the
//! theme is applied when the lines are drawn, so a theme change needs nothing here.

use std::sync::{Mutex, PoisonError};

use super::ChatEntry;
use super::transcript::{TranscriptLine, entry_lines, layout_at};
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
    slots: Vec<Slot>,
}

struct Slot {
    entry: ChatEntry,
    /// The clock the lines were laid out at, for entries whose lines show it.
    clock: Option<u64>,
    lines: Vec<TranscriptLine>,
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
        entries: &[ChatEntry],
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
        let total = cache.total();
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
        entries: &[ChatEntry],
        width: u16,
        expanded: bool,
        clock_ms: u64,
    ) -> Vec<usize> {
        let mut cache = self.layout.lock().unwrap_or_else(PoisonError::into_inner);
        cache.refresh(entries, width, expanded, clock_ms);
        cache.slots.iter().map(|s| s.lines.len()).collect()
    }

    /// Lines in the whole transcript laid out `width` wide.
    pub fn total(&self, entries: &[ChatEntry], width: u16, expanded: bool, clock_ms: u64) -> usize {
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
    /// Lays out again what changed since the last frame.
    fn refresh(&mut self, entries: &[ChatEntry], width: u16, expanded: bool, clock_ms: u64) {
        if self.width != width || self.expanded != expanded {
            self.slots.clear();
            self.width = width;
            self.expanded = expanded;
        }
        self.slots.truncate(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            let clock = shows_clock(entry).then_some(clock_ms);
            if let Some(slot) = self.slots.get(i)
                && slot.clock == clock
                && slot.entry == *entry
            {
                continue;
            }
            let mut lines = Vec::new();
            entry_lines(entry, width, expanded, clock_ms, &mut lines);
            let slot = Slot {
                entry: entry.clone(),
                clock,
                lines,
            };
            if i < self.slots.len() {
                self.slots[i] = slot;
            } else {
                self.slots.push(slot);
            }
        }
    }

    fn total(&self) -> usize {
        let lines: usize = self.slots.iter().map(|s| s.lines.len()).sum();
        lines + self.slots.len().saturating_sub(1)
    }

    /// Lines `start..end` of the whole transcript (a blank line between entries).
    fn lines_between(&self, start: usize, end: usize) -> Vec<TranscriptLine> {
        let mut out = Vec::with_capacity(end.saturating_sub(start));
        let mut at = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            if at >= end {
                break;
            }
            if i > 0 {
                if at >= start {
                    out.push(TranscriptLine::Blank);
                }
                at += 1;
            }
            let len = slot.lines.len();
            if at + len > start && at < end {
                let from = start.saturating_sub(at);
                let to = (end - at).min(len);
                out.extend_from_slice(&slot.lines[from..to]);
            }
            at += len;
        }
        out
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
    use crate::tui::state::ChatKind;

    fn entries(n: usize) -> Vec<ChatEntry> {
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
        chat: &[ChatEntry],
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
        // A streamed delta, an entry removed, a new width.
        chat[11].text.push_str(" and more **text**");
        check(&cache, &chat, 30, 0, 9);
        chat.remove(4);
        check(&cache, &chat, 30, 2, 9);
        check(&cache, &chat, 14, 0, 50);
        chat.clear();
        check(&cache, &chat, 14, 0, 50);
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
}
