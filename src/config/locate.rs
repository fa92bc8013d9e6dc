//! Find where a key or value sits in the source text, for values the model does not
//! keep as `toml::Spanned`.
//!
//! Rather than scanning text for `key =` (which misses dotted keys, inline tables and
//! quoting), this walks toml's own spanned document tree.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The spanned document tree of one config text.
#[derive(Debug)]
pub struct SourceMap<'i> {
    root: Spanned<DeTable<'i>>,
}

type Entry<'t, 'i> = (
    &'t Spanned<toml::de::DeString<'i>>,
    &'t Spanned<DeValue<'i>>,
);

impl<'i> SourceMap<'i> {
    /// Parse `text`; fails only on TOML syntax errors.
    pub fn parse(text: &'i str) -> Result<Self, toml::de::Error> {
        DeTable::parse(text).map(|root| Self { root })
    }

    /// Span of the value at `path` (`["servers", "weather", "url"]`). For a table
    /// opened with a `[header]` this is the header; for an inline value, the value.
    pub fn value_span(&self, path: &[&str]) -> Option<Range<usize>> {
        self.entry(path).map(|(_, v)| v.span())
    }

    /// Span of the last key of `path` where it is written (`url` in `url = "…"`).
    pub fn key_span(&self, path: &[&str]) -> Option<Range<usize>> {
        self.entry(path).map(|(k, _)| k.span())
    }

    /// Span of element `index` of the array at `path`; the whole value when it is not an
    /// array (or too short), else the nearest enclosing table.
    pub fn element_span(&self, path: &[&str], index: usize) -> Range<usize> {
        self.entry(path)
            .and_then(|(_, v)| v.get_ref().as_array()?.get(index).map(Spanned::span))
            .unwrap_or_else(|| self.nearest_span(path))
    }

    /// Span of the deepest existing prefix of `path`: the value itself when present,
    /// else its nearest enclosing table, else the start of the file.
    pub fn nearest_span(&self, path: &[&str]) -> Range<usize> {
        (1..=path.len())
            .rev()
            .find_map(|n| self.value_span(&path[..n]))
            .unwrap_or(0..0)
    }

    fn entry<'t>(&'t self, path: &[&str]) -> Option<Entry<'t, 'i>> {
        let (last, parents) = path.split_last()?;
        let mut table: &DeTable<'i> = self.root.get_ref();
        for name in parents {
            let (_, value) = find(table, name)?;
            table = value.get_ref().as_table()?;
        }
        find(table, last)
    }
}

fn find<'t, 'i>(table: &'t DeTable<'i>, name: &str) -> Option<Entry<'t, 'i>> {
    table.iter().find(|(k, _)| k.get_ref().as_ref() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "default_provider = \"x\"\n\
        [servers.weather]\n\
        command = \"w\"\n\
        url = \"http://h\"\n\
        [servers.inline]\n\
        env = { A = \"1\" }\n\
        [providers]\n\
        x.kind = \"openai\"\n";

    fn text_at(span: Option<Range<usize>>) -> Option<&'static str> {
        span.map(|s| &TEXT[s])
    }

    #[test]
    fn finds_values_keys_and_headers() {
        let map = SourceMap::parse(TEXT).unwrap();
        assert_eq!(
            text_at(map.value_span(&["default_provider"])),
            Some("\"x\"")
        );
        assert_eq!(
            text_at(map.value_span(&["servers", "weather", "url"])),
            Some("\"http://h\"")
        );
        assert_eq!(
            text_at(map.key_span(&["servers", "weather", "url"])),
            Some("url")
        );
        assert_eq!(
            text_at(map.value_span(&["servers", "weather"])),
            Some("[servers.weather]")
        );
    }

    #[test]
    fn finds_inline_and_dotted_keys() {
        let map = SourceMap::parse(TEXT).unwrap();
        assert_eq!(
            text_at(map.value_span(&["servers", "inline", "env", "A"])),
            Some("\"1\"")
        );
        assert_eq!(
            text_at(map.value_span(&["providers", "x", "kind"])),
            Some("\"openai\"")
        );
    }

    #[test]
    fn missing_keys_fall_back_to_the_enclosing_table() {
        let map = SourceMap::parse(TEXT).unwrap();
        assert_eq!(map.value_span(&["servers", "weather", "args"]), None);
        assert_eq!(
            &TEXT[map.nearest_span(&["servers", "weather", "args"])],
            "[servers.weather]"
        );
        assert_eq!(map.nearest_span(&["nope"]), 0..0);
    }
}
