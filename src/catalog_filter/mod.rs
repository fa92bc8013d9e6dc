//! The catalog filter, free of any UI: how well a lower-cased query matches an entry.
//!
//! Tiers, best first: a prefix of the name (or of its tool part after `server__`); a
//! substring of the name or title; a fuzzy match of the name or title (scored by
//! `nucleo-matcher`, best score first); a substring of the server or description (a
//! fuzzy match over a sentence matches nearly anything). Ties keep catalog order.
//!
//! Each entry's text is lower-cased once into a [`Haystack`], kept in the entry's
//! [`HaystackCell`]; [`Narrowing`] remembers the matches of the last queries, so a
//! keystroke that extends the query only re-checks what still matched.

mod narrow;

use std::cell::RefCell;
use std::cmp::Reverse;
use std::fmt;
use std::sync::{Arc, OnceLock};

use memchr::memmem::Finder;
use nucleo_matcher::{Config, Matcher, Utf32Str, Utf32String};

pub use narrow::Narrowing;

/// An entry's searchable text, lower-cased.
#[derive(Debug, Clone, Default)]
pub struct Haystack {
    name: String,
    /// The tool part of a qualified `server__tool` name (byte range in `name`).
    tool: Option<(usize, usize)>,
    title: String,
    server: String,
    description: String,
    name32: Utf32String,
    title32: Utf32String,
}

impl Haystack {
    pub fn new(name: &str, title: &str, server: &str, description: &str) -> Self {
        let name = name.to_lowercase();
        let tool = name.find("__").map(|at| {
            let start = at + 2;
            let end = name[start..].find("__").map_or(name.len(), |n| start + n);
            (start, end)
        });
        let title = title.to_lowercase();
        Self {
            name32: Utf32String::from(name.as_str()),
            title32: Utf32String::from(title.as_str()),
            name,
            tool,
            title,
            server: server.to_lowercase(),
            description: description.to_lowercase(),
        }
    }
}

/// An entry's [`Haystack`], made on first use and shared by clones of the entry.
/// Derived data: it never makes two entries unequal. An entry must not be edited
/// after it was filtered (build a new one).
#[derive(Clone, Default)]
pub struct HaystackCell(OnceLock<Arc<Haystack>>);

impl HaystackCell {
    pub fn get_or_init(&self, make: impl FnOnce() -> Haystack) -> &Arc<Haystack> {
        self.0.get_or_init(|| Arc::new(make()))
    }
}

impl PartialEq for HaystackCell {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for HaystackCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HaystackCell")
    }
}

/// Where an entry ranks: lower tier first, then higher fuzzy score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank {
    pub tier: u8,
    score: Reverse<u16>,
}

/// A lower-cased query, prepared once for many haystacks.
pub struct Query {
    text: String,
    finder: Finder<'static>,
    needle: Utf32String,
}

impl Query {
    /// `text` must already be lower-cased.
    pub fn new(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            finder: Finder::new(text.as_bytes()).into_owned(),
            needle: Utf32String::from(text),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// How `hay` matches, if it does.
    pub fn rank(&self, hay: &Haystack, matcher: &mut Matcher) -> Option<Rank> {
        let tier = |tier| Rank {
            tier,
            score: Reverse(0),
        };
        let q = self.text.as_str();
        let contains = |s: &str| self.finder.find(s.as_bytes()).is_some();
        if hay.name.starts_with(q) || hay.tool.is_some_and(|(s, e)| hay.name[s..e].starts_with(q)) {
            return Some(tier(0));
        }
        if contains(&hay.name) || contains(&hay.title) {
            return Some(tier(1));
        }
        let needle = self.needle.slice(..);
        let fuzzy = |m: &mut Matcher, h: &Utf32String| m.fuzzy_match(h.slice(..), needle);
        if let Some(score) = fuzzy(matcher, &hay.name32).max(fuzzy(matcher, &hay.title32)) {
            return Some(Rank {
                tier: 2,
                score: Reverse(score),
            });
        }
        (contains(&hay.server) || contains(&hay.description)).then(|| tier(3))
    }
}

/// The matcher configuration: the text is lower-cased already.
pub fn matcher() -> Matcher {
    let mut config = Config::DEFAULT;
    config.ignore_case = false;
    config.normalize = false;
    Matcher::new(config)
}

/// Whether `needle` is a fuzzy match (a subsequence) of `hay`, both lower-cased: the
/// command palette's filter.
pub fn is_subsequence(needle: &str, hay: &str) -> bool {
    thread_local! {
        static MATCHER: RefCell<Matcher> = RefCell::new(matcher());
    }
    if needle.is_empty() {
        return true;
    }
    let (mut h, mut n) = (Vec::new(), Vec::new());
    let (h, n) = (Utf32Str::new(hay, &mut h), Utf32Str::new(needle, &mut n));
    MATCHER.with_borrow_mut(|m| m.fuzzy_match(h, n).is_some())
}

#[cfg(test)]
mod tests;
