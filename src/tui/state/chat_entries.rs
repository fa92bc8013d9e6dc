//! The transcript's entries, and a stamp on each that says when it last changed.
//!
//! Reading is a slice (`Deref`); every way to change an entry goes through a method
//! here that stamps it, so the frame cache ([`super::frame_cache`]) learns what changed
//! by comparing stamps instead of entries, and no code that changes an entry has to
//! remember to invalidate it. Text appended to an entry (a streamed delta) keeps the
//! entry's `base`, so the cache lays out only what came after the part it had.

use std::collections::VecDeque;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::ChatEntry;
use crate::tui::cards::ToolCard;

/// When an entry last changed: `rev` on every change, `base` on every change other
/// than text appended at its end. Stamps count up within one [`ChatEntries`] value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub rev: u64,
    pub base: u64,
}

/// The entries of the transcript, oldest first.
pub struct ChatEntries {
    entries: Vec<ChatEntry>,
    stamps: Vec<Stamp>,
    /// Which value this is: a clone or a new value gets its own, so stamps from two
    /// values that went separate ways are never compared.
    lineage: u64,
    /// The last stamp handed out (also on a removal): the whole list's generation.
    last: u64,
    /// The latest changes, newest last: a stamp and the lowest index it changed (an
    /// added entry, one changed, where a removal shifted the rest), so the frame
    /// cache compares stamps only from the first change on.
    changes: VecDeque<(u64, usize)>,
    /// The newest stamp dropped from `changes`: a look further back cannot tell.
    forgotten: u64,
    /// No entry before this index held an open card when [`Self::open_cards`] last
    /// looked (lowered by every change at or before it), so a frame's look for
    /// running calls starts near the end however long the session.
    settled: AtomicUsize,
}

/// How many changes [`ChatEntries`] remembers: a frame comes after a few (a delta, a
/// card's progress); after more it compares every stamp, as it would anyway.
const CHANGES_KEPT: usize = 64;

fn new_lineage() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl ChatEntries {
    fn next(&mut self) -> u64 {
        self.last += 1;
        self.last
    }

    fn fresh(&mut self) -> Stamp {
        let rev = self.next();
        Stamp { rev, base: rev }
    }

    /// Notes that stamp `rev` changed entries from `index` on.
    fn log(&mut self, rev: u64, index: usize) {
        if self.changes.len() == CHANGES_KEPT
            && let Some((old, _)) = self.changes.pop_front()
        {
            self.forgotten = old;
        }
        self.changes.push_back((rev, index));
    }

    /// The lowest index of an entry that may differ from what it was at generation
    /// `since` (a `generation().1` of this value): changed, added, or moved by a
    /// removal; the length when none does, 0 when `since` is too long ago to tell.
    pub fn first_changed_since(&self, since: u64) -> usize {
        if self.forgotten > since {
            return 0;
        }
        self.changes
            .iter()
            .rev()
            .take_while(|(rev, _)| *rev > since)
            .map(|(_, index)| *index)
            .min()
            .unwrap_or(self.entries.len())
    }

    /// Changes with every change to any entry, and with entries added or removed.
    pub fn generation(&self) -> (u64, u64) {
        (self.lineage, self.last)
    }

    /// Entry `index`'s stamp.
    pub fn stamp(&self, index: usize) -> Option<Stamp> {
        self.stamps.get(index).copied()
    }

    pub fn push(&mut self, entry: ChatEntry) {
        let stamp = self.fresh();
        self.log(stamp.rev, self.entries.len());
        self.entries.push(entry);
        self.stamps.push(stamp);
    }

    pub fn remove(&mut self, index: usize) -> Option<ChatEntry> {
        if index >= self.entries.len() {
            return None;
        }
        self.unsettle(index);
        self.stamps.remove(index);
        let rev = self.next();
        self.log(rev, index);
        Some(self.entries.remove(index))
    }

    pub fn clear(&mut self) {
        self.unsettle(0);
        self.entries.clear();
        self.stamps.clear();
        let rev = self.next();
        self.log(rev, 0);
    }

    /// Entry `index`, to change (it counts as changed).
    pub fn get_mut(&mut self, index: usize) -> Option<&mut ChatEntry> {
        let fresh = self.fresh();
        self.log(fresh.rev, index);
        self.unsettle(index);
        let stamp = self.stamps.get_mut(index)?;
        *stamp = fresh;
        self.entries.get_mut(index)
    }

    /// The newest entry, to change (it counts as changed).
    pub fn last_mut(&mut self) -> Option<&mut ChatEntry> {
        let index = self.entries.len().checked_sub(1)?;
        self.get_mut(index)
    }

    /// Every entry, to change: all of them count as changed (to change a few, find
    /// them through the slice and use [`Self::get_mut`]).
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, ChatEntry> {
        self.unsettle(0);
        let mut last = self.last;
        for stamp in &mut self.stamps {
            last += 1;
            *stamp = Stamp {
                rev: last,
                base: last,
            };
        }
        self.last = last + 1;
        self.log(self.last, 0);
        self.entries.iter_mut()
    }

    /// Entry `index` may have changed: an open card may be there.
    fn unsettle(&mut self, index: usize) {
        let settled = self.settled.get_mut();
        *settled = (*settled).min(index);
    }

    /// The cards not ended yet (asked, waiting on approval, running), oldest first.
    /// Reads only the entries after the last that held none when it last looked.
    pub fn open_cards(&self) -> impl Iterator<Item = &ToolCard> {
        let from = self.settled.load(Ordering::Relaxed).min(self.entries.len());
        let rest = self.entries.get(from..).unwrap_or_default();
        let first = rest
            .iter()
            .position(|e| e.card.as_ref().is_some_and(|c| c.status.is_open()))
            .map_or(self.entries.len(), |at| from + at);
        self.settled.store(first, Ordering::Relaxed);
        self.entries
            .get(first..)
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e.card.as_ref())
            .filter(|c| c.status.is_open())
    }

    /// Appends `text` to entry `index`'s text (a streamed delta): the entry changes
    /// only at its end, so its layout can be extended rather than made again.
    pub fn append_text(&mut self, index: usize, text: &str) {
        let rev = self.next();
        self.log(rev, index);
        if let (Some(entry), Some(stamp)) =
            (self.entries.get_mut(index), self.stamps.get_mut(index))
        {
            entry.text.push_str(text);
            stamp.rev = rev;
        }
    }
}

impl Default for ChatEntries {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            stamps: Vec::new(),
            lineage: new_lineage(),
            last: 0,
            changes: VecDeque::with_capacity(CHANGES_KEPT),
            forgotten: 0,
            settled: AtomicUsize::new(0),
        }
    }
}

impl Deref for ChatEntries {
    type Target = [ChatEntry];

    fn deref(&self) -> &[ChatEntry] {
        &self.entries
    }
}

impl<'a> IntoIterator for &'a ChatEntries {
    type Item = &'a ChatEntry;
    type IntoIter = std::slice::Iter<'a, ChatEntry>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

/// Every entry, to change: all of them count as changed.
impl<'a> IntoIterator for &'a mut ChatEntries {
    type Item = &'a mut ChatEntry;
    type IntoIter = std::slice::IterMut<'a, ChatEntry>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl FromIterator<ChatEntry> for ChatEntries {
    fn from_iter<I: IntoIterator<Item = ChatEntry>>(iter: I) -> Self {
        let mut entries = Self::default();
        for entry in iter {
            entries.push(entry);
        }
        entries
    }
}

impl From<Vec<ChatEntry>> for ChatEntries {
    fn from(entries: Vec<ChatEntry>) -> Self {
        entries.into_iter().collect()
    }
}

/// A clone is a value of its own: same entries, its own lineage.
impl Clone for ChatEntries {
    fn clone(&self) -> Self {
        Self {
            entries: self.entries.clone(),
            stamps: self.stamps.clone(),
            lineage: new_lineage(),
            last: self.last,
            changes: self.changes.clone(),
            forgotten: self.forgotten,
            settled: AtomicUsize::new(self.settled.load(Ordering::Relaxed)),
        }
    }
}

/// Equal entries are equal transcripts, whatever their stamps.
impl PartialEq for ChatEntries {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl PartialEq<Vec<ChatEntry>> for ChatEntries {
    fn eq(&self, other: &Vec<ChatEntry>) -> bool {
        self.entries == *other
    }
}

/// Shown as the list of entries.
impl std::fmt::Debug for ChatEntries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.entries.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::state::ChatKind;

    fn note(text: &str) -> ChatEntry {
        ChatEntry::new(ChatKind::Note, text)
    }

    #[test]
    fn every_change_restamps_only_what_it_changes() {
        let mut entries: ChatEntries = vec![note("a"), note("b"), note("c")].into();
        let before: Vec<_> = (0..3).filter_map(|i| entries.stamp(i)).collect();
        let generation = entries.generation();
        if let Some(entry) = entries.get_mut(1) {
            entry.text.push('!');
        }
        assert_eq!(entries.stamp(0), Some(before[0]));
        assert_ne!(entries.stamp(1).map(|s| s.rev), Some(before[1].rev));
        assert_ne!(entries.stamp(1).map(|s| s.base), Some(before[1].base));
        assert_eq!(entries.stamp(2), Some(before[2]));
        assert_ne!(entries.generation(), generation);

        // An append keeps the base.
        let stamp = entries.stamp(2);
        entries.append_text(2, " more");
        assert_eq!(entries[2].text, "c more");
        assert_eq!(entries.stamp(2).map(|s| s.base), stamp.map(|s| s.base));
        assert_ne!(entries.stamp(2).map(|s| s.rev), stamp.map(|s| s.rev));

        // Reading changes nothing.
        let generation = entries.generation();
        assert_eq!(entries.iter().count(), 3);
        assert_eq!(entries.last().map(|e| e.text.as_str()), Some("c more"));
        assert_eq!(entries.generation(), generation);
        entries.clear();
        assert_ne!(entries.generation(), generation);
    }

    #[test]
    fn a_clone_is_equal_but_of_its_own_lineage() {
        let entries: ChatEntries = vec![note("a")].into();
        let copy = entries.clone();
        assert_eq!(copy, entries);
        assert_eq!(copy, vec![note("a")]);
        assert_ne!(copy.generation().0, entries.generation().0);
        assert_eq!(format!("{copy:?}"), format!("{:?}", vec![note("a")]));
    }

    fn card(status: crate::tui::cards::CardStatus) -> ChatEntry {
        use crate::tui::cards::{CardKind, ToolCard};
        let mut card = ToolCard::new(
            crate::gate::CallId(format!("{status:?}")),
            "r".into(),
            CardKind::Tool,
            crate::policy::Origin::Manual,
        );
        card.status = status;
        let mut entry = note("");
        entry.card = Some(card);
        entry
    }

    /// A look for open cards skips what held none last time, and sees every card a
    /// change may have opened, wherever it is.
    #[test]
    fn open_cards_are_found_however_they_came() {
        use crate::tui::cards::CardStatus::{Ok, Running};
        let ids = |e: &ChatEntries| -> Vec<String> {
            e.open_cards().map(|c| c.call_id.0.clone()).collect()
        };
        let mut entries: ChatEntries = vec![card(Ok), note("a"), card(Running), note("b")].into();
        assert_eq!(ids(&entries), ["Running"]);
        assert_eq!(entries.settled.load(Ordering::Relaxed), 2);
        // A pushed card, and an old one opened again through `get_mut`.
        entries.push(card(Running));
        if let Some(c) = entries.get_mut(0).and_then(|e| e.card.as_mut()) {
            c.status = Running;
        }
        assert_eq!(ids(&entries).len(), 3);
        // All ended: the next look starts at the end.
        for e in &mut entries {
            if let Some(c) = e.card.as_mut() {
                c.status = Ok;
            }
        }
        assert!(ids(&entries).is_empty());
        assert_eq!(entries.settled.load(Ordering::Relaxed), entries.len());
        // A removal before the mark lowers it; a clone keeps it.
        entries.remove(1);
        assert_eq!(entries.settled.load(Ordering::Relaxed), 1);
        assert_eq!(entries.clone().settled.load(Ordering::Relaxed), 1);
    }
}
