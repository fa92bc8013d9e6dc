//! The transcript's entries, and a stamp on each that says when it last changed.
//!
//! Reading is a slice (`Deref`); every way to change an entry goes through a method
//! here that stamps it, so the frame cache ([`super::frame_cache`]) learns what changed
//! by comparing stamps instead of entries, and no code that changes an entry has to
//! remember to invalidate it. Text appended to an entry (a streamed delta) keeps the
//! entry's `base`, so the cache lays out only what came after the part it had.

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};

use super::ChatEntry;

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
}

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
        self.entries.push(entry);
        self.stamps.push(stamp);
    }

    pub fn remove(&mut self, index: usize) -> Option<ChatEntry> {
        if index >= self.entries.len() {
            return None;
        }
        self.stamps.remove(index);
        self.next();
        Some(self.entries.remove(index))
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.stamps.clear();
        self.next();
    }

    /// Entry `index`, to change (it counts as changed).
    pub fn get_mut(&mut self, index: usize) -> Option<&mut ChatEntry> {
        let fresh = self.fresh();
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
        let mut last = self.last;
        for stamp in &mut self.stamps {
            last += 1;
            *stamp = Stamp {
                rev: last,
                base: last,
            };
        }
        self.last = last + 1;
        self.entries.iter_mut()
    }

    /// Appends `text` to entry `index`'s text (a streamed delta): the entry changes
    /// only at its end, so its layout can be extended rather than made again.
    pub fn append_text(&mut self, index: usize, text: &str) {
        let rev = self.next();
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
}
