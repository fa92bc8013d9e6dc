//! Remembering the matches of the last queries: a query that extends a remembered one
//! (a keystroke) only re-checks the entries that matched it, and deleting a character
//! finds the shorter query's matches still remembered.

use std::sync::{Arc, Mutex, PoisonError};

use nucleo_matcher::Matcher;

use super::{Haystack, Query, matcher};

/// Remembered queries at most (each extends the previous one).
const DEPTH: usize = 32;

/// The memo for one list of entries. Cloning gives an empty memo; it never makes two
/// owners unequal.
#[derive(Default)]
pub struct Narrowing(Mutex<Memo>);

#[derive(Default)]
struct Memo {
    /// The haystacks the memo is for; holding them keeps their identity unique.
    hays: Vec<Arc<Haystack>>,
    /// Each query with its matches, best first; each extends the one before.
    levels: Vec<(String, Vec<u32>)>,
    matcher: Option<Matcher>,
}

impl Narrowing {
    /// Indices of the haystacks matching the lower-cased, non-empty `query`, best first.
    pub fn filter(&self, hays: &[&Arc<Haystack>], query: &str) -> Vec<usize> {
        let mut memo = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let same = memo.hays.len() == hays.len()
            && memo.hays.iter().zip(hays).all(|(a, b)| Arc::ptr_eq(a, b));
        if !same {
            memo.hays = hays.iter().map(|h| Arc::clone(h)).collect();
            memo.levels.clear();
        }
        while memo
            .levels
            .last()
            .is_some_and(|(q, _)| !query.starts_with(q.as_str()))
        {
            memo.levels.pop();
        }
        if let Some((q, hits)) = memo.levels.last()
            && q == query
        {
            return hits.iter().map(|&i| i as usize).collect();
        }
        let candidates: Vec<u32> = match memo.levels.last() {
            Some((_, hits)) => {
                let mut v = hits.clone();
                v.sort_unstable();
                v
            }
            None => (0..u32::try_from(hays.len()).unwrap_or(u32::MAX)).collect(),
        };
        let prepared = Query::new(query);
        let mut matcher = memo.matcher.take().unwrap_or_else(matcher);
        let hits = rank(&prepared, hays, candidates, &mut matcher);
        memo.matcher = Some(matcher);
        let out = hits.iter().map(|&i| i as usize).collect();
        if memo.levels.len() == DEPTH {
            memo.levels.remove(0);
        }
        memo.levels.push((query.to_owned(), hits));
        out
    }
}

/// The `candidates` (in catalog order) that match `query`, best first. Every tier but
/// the fuzzy one keeps catalog order, so only the fuzzy matches are sorted.
fn rank(
    query: &Query,
    hays: &[&Arc<Haystack>],
    candidates: Vec<u32>,
    matcher: &mut Matcher,
) -> Vec<u32> {
    let mut tiers: [Vec<u32>; 4] = Default::default();
    let mut fuzzy = Vec::new();
    for i in candidates {
        let Some(rank) = hays.get(i as usize).and_then(|h| query.rank(h, matcher)) else {
            continue;
        };
        match rank.tier {
            2 => fuzzy.push((rank, i)),
            tier => {
                if let Some(bucket) = tiers.get_mut(usize::from(tier)) {
                    bucket.push(i);
                }
            }
        }
    }
    // Stable: equal scores keep catalog order.
    fuzzy.sort_by_key(|&(rank, _)| rank);
    tiers[2] = fuzzy.into_iter().map(|(_, i)| i).collect();
    tiers.concat()
}

impl Clone for Narrowing {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PartialEq for Narrowing {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Narrowing {}

impl std::fmt::Debug for Narrowing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Narrowing")
    }
}
