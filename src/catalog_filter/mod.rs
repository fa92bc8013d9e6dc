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

/// An entry's searchable text, lower-cased: name, title, server and description one
/// after another in one allocation, a NUL between each (so one search covers name and
/// title, another server and description, and no match crosses a seam), with a bag of
/// the characters of each part: a query holding a character a part lacks skips that
/// part without reading it.
#[derive(Debug, Clone, Default)]
pub struct Haystack {
    text: Box<str>,
    /// Where the name, the title and the server end in `text` (each is followed by
    /// one NUL byte).
    ends: [u32; 3],
    /// The tool part of a qualified `server__tool` name (byte range in `text`).
    tool: Option<(u32, u32)>,
    /// The characters of the name, of the title, of the server and description.
    bags: [u64; 3],
    /// The first bytes of the name and of its tool part, so the prefix tier (run on
    /// every entry) rarely reads `text`.
    heads: [Head; 2],
    /// The name and the title as chars, when either is not ASCII (the fuzzy
    /// matcher reads ASCII text as it is).
    wide: Option<Box<[Utf32String; 2]>>,
}

/// What separates the parts of a haystack's text.
const SEAM: char = '\0';

impl Haystack {
    pub fn new(name: &str, title: &str, server: &str, description: &str) -> Self {
        // One allocation: each part lower-cased straight into the text (a catalog
        // change makes a haystack per new entry on the UI thread's next keystroke).
        let parts = [name, title, server, description];
        let mut text = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
        let mut ends = [0; 3];
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                text.push(SEAM);
            }
            push_lowercase(&mut text, part);
            if let Some(end) = ends.get_mut(i) {
                *end = offset(text.len());
            }
        }
        let mut haystack = Self {
            text: text.into_boxed_str(),
            ends,
            ..Self::default()
        };
        let (name, title) = (haystack.name(), haystack.title());
        let tool = name.find("__").map(|at| {
            let start = at + 2;
            let end = name[start..].find("__").map_or(name.len(), |n| start + n);
            (offset(start), offset(end))
        });
        let wide = (!name.is_ascii() || !title.is_ascii())
            .then(|| Box::new([Utf32String::from(name), Utf32String::from(title)]));
        let bags = [
            bag(name),
            bag(title),
            bag(haystack.server()) | bag(haystack.description()),
        ];
        let heads = [
            Head::of(name),
            Head::of(tool.map_or("", |(start, end)| &name[start as usize..end as usize])),
        ];
        haystack.tool = tool;
        haystack.wide = wide;
        haystack.bags = bags;
        haystack.heads = heads;
        haystack
    }

    fn slice(&self, start: u32, end: Option<u32>) -> &str {
        let end = end.map_or(self.text.len(), |e| e as usize);
        self.text.get(start as usize..end).unwrap_or_default()
    }

    fn name(&self) -> &str {
        self.slice(0, Some(self.ends[0]))
    }

    fn title(&self) -> &str {
        self.slice(self.ends[0] + 1, Some(self.ends[1]))
    }

    fn server(&self) -> &str {
        self.slice(self.ends[1] + 1, Some(self.ends[2]))
    }

    fn description(&self) -> &str {
        self.slice(self.ends[2] + 1, None)
    }

    /// The name and the title, with the seam between them.
    fn name_and_title(&self) -> &str {
        self.slice(0, Some(self.ends[1]))
    }

    /// The server and the description, with the seam between them.
    fn server_and_description(&self) -> &str {
        self.slice(self.ends[1] + 1, None)
    }

    fn tool(&self) -> Option<&str> {
        self.tool.map(|(start, end)| self.slice(start, Some(end)))
    }

    /// The name (`TITLE` false) or the title, as the fuzzy matcher reads it.
    fn chars(&self, title: bool) -> Utf32Str<'_> {
        match &self.wide {
            Some(wide) => wide[usize::from(title)].slice(..),
            None if title => Utf32Str::Ascii(self.title().as_bytes()),
            None => Utf32Str::Ascii(self.name().as_bytes()),
        }
    }
}

/// Up to the first 8 bytes of a text, and its length.
#[derive(Debug, Clone, Copy, Default)]
struct Head {
    bytes: [u8; 8],
    len: u32,
}

impl Head {
    fn of(text: &str) -> Self {
        let mut bytes = [0; 8];
        for (to, from) in bytes.iter_mut().zip(text.bytes()) {
            *to = from;
        }
        Self {
            bytes,
            len: offset(text.len()),
        }
    }

    /// Whether the text starts with `q`, when these bytes can tell.
    fn starts_with(&self, q: &[u8]) -> Option<bool> {
        if q.len() > self.len as usize {
            return Some(false);
        }
        self.bytes.get(..q.len()).map(|head| head == q)
    }
}

/// Appends `part` lower-cased as `str::to_lowercase` does (ASCII without a detour).
fn push_lowercase(text: &mut String, part: &str) {
    if part.is_ascii() {
        text.extend(part.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        text.push_str(&part.to_lowercase());
    }
}

/// A byte offset in a haystack (an entry's text is far below 4 GiB).
fn offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// The characters of `text` as a set of bits: one each for `a`–`z`, `0`–`9` and six
/// punctuation marks, and one shared by every other character. A text can contain a
/// query (as a substring or as a subsequence) only if the query's bag is a subset of
/// the text's.
fn bag(text: &str) -> u64 {
    text.chars().fold(0, |bag, c| bag | bit(c))
}

/// A character's bit in a bag; every character without its own bit shares bit 63.
fn bit(c: char) -> u64 {
    let n = match c {
        'a'..='z' => c as u32 - 'a' as u32,
        '0'..='9' => 26 + c as u32 - '0' as u32,
        '_' => 36,
        '-' => 37,
        '.' => 38,
        ' ' => 39,
        '/' => 40,
        ':' => 41,
        _ => 63,
    };
    1 << n
}

/// An entry's [`Haystack`], made on first use (or given one a worker made) and
/// shared by clones of the entry. Held in the entry itself, so the filter reaches it
/// in one step. Derived data: it never makes two entries unequal. An entry must not
/// be edited after it was filtered (build a new one).
#[derive(Clone, Default)]
pub struct HaystackCell(OnceLock<Arc<Haystack>>);

impl HaystackCell {
    pub fn get_or_init(&self, make: impl FnOnce() -> Haystack) -> &Arc<Haystack> {
        self.0.get_or_init(|| Arc::new(make()))
    }

    /// Takes a haystack made elsewhere for this entry's text, unless one is made.
    pub fn fill(&self, haystack: Arc<Haystack>) {
        let _ = self.0.set(haystack);
    }

    /// The haystack, if it was made.
    pub fn get(&self) -> Option<&Arc<Haystack>> {
        self.0.get()
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
    bag: u64,
    /// One character with a bit of its own: a part contains it exactly when the
    /// part's bag has the bit, so no text is read.
    one: bool,
    /// Holds the seam: each part is searched on its own.
    seamed: bool,
}

impl Query {
    /// `text` must already be lower-cased.
    pub fn new(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            finder: Finder::new(text.as_bytes()).into_owned(),
            needle: Utf32String::from(text),
            bag: bag(text),
            one: text.chars().count() == 1 && bag(text) != bit('\u{80}'),
            seamed: text.contains(SEAM),
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
        let [name_head, tool_head] = &hay.heads;
        let name_starts = name_head
            .starts_with(q.as_bytes())
            .unwrap_or_else(|| hay.name().starts_with(q));
        let tool_starts = || {
            hay.tool.is_some()
                && tool_head
                    .starts_with(q.as_bytes())
                    .unwrap_or_else(|| hay.tool().is_some_and(|t| t.starts_with(q)))
        };
        if name_starts || tool_starts() {
            return Some(tier(0));
        }
        // Only a part holding every character of the query is read.
        let [in_name, in_title, in_rest] = hay.bags.map(|bag| self.bag & !bag == 0);
        if (in_name || in_title) && self.contains(hay, Part::NameAndTitle) {
            return Some(tier(1));
        }
        let needle = self.needle.slice(..);
        let mut fuzzy = |read: bool, title: bool| {
            read.then(|| matcher.fuzzy_match(hay.chars(title), needle))
                .flatten()
        };
        if !self.one
            && let Some(score) = fuzzy(in_name, false).max(fuzzy(in_title, true))
        {
            return Some(Rank {
                tier: 2,
                score: Reverse(score),
            });
        }
        (in_rest && self.contains(hay, Part::ServerAndDescription)).then(|| tier(3))
    }

    /// Whether the query is a substring of the name or title (or of the server or
    /// description), already known to hold its characters.
    fn contains(&self, hay: &Haystack, part: Part) -> bool {
        if self.one {
            return true;
        }
        let find = |s: &str| self.finder.find(s.as_bytes()).is_some();
        match (part, self.seamed) {
            (Part::NameAndTitle, false) => find(hay.name_and_title()),
            (Part::ServerAndDescription, false) => find(hay.server_and_description()),
            (Part::NameAndTitle, true) => find(hay.name()) || find(hay.title()),
            (Part::ServerAndDescription, true) => find(hay.server()) || find(hay.description()),
        }
    }
}

#[derive(Clone, Copy)]
enum Part {
    NameAndTitle,
    ServerAndDescription,
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
