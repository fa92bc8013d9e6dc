//! The ranking behind `tool_search`: BM25 (the `bm25` crate) over each tool's name,
//! title, description and argument names, with a tokenizer for identifiers
//! (`get_weather`, `listFiles`, `fs.read-file` → `get weather`, `list files`, …).

use bm25::{SearchEngine, SearchEngineBuilder, Tokenizer};

use crate::tools::ToolSpec;

/// Splits identifiers and prose into lower-case words: at every character that is
/// not a letter or digit, and where a lower-case letter meets an upper-case one.
/// Plurals lose their `s` (`files` and `file` meet); a few filler words are dropped.
#[derive(Debug, Clone, Copy, Default)]
pub struct IdentTokenizer;

const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on",
    "or", "that", "the", "this", "to", "with",
];

impl Tokenizer for IdentTokenizer {
    fn tokenize(&self, input_text: &str) -> Vec<String> {
        words(input_text)
            .into_iter()
            .filter(|w| !STOP_WORDS.contains(&w.as_str()))
            .map(stem)
            .collect()
    }
}

fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut out);
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            flush(&mut word, &mut out);
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    flush(&mut word, &mut out);
    out
}

fn flush(word: &mut String, out: &mut Vec<String>) {
    if !word.is_empty() {
        out.push(std::mem::take(word));
    }
}

fn stem(word: String) -> String {
    if word.len() > 4 && word.ends_with("ies") {
        return format!("{}y", &word[..word.len() - 3]);
    }
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        return word[..word.len() - 1].to_owned();
    }
    word
}

/// What a tool is found by: its name twice (a name match counts most), its title,
/// description, and the names and descriptions of its arguments.
fn document(spec: &ToolSpec) -> String {
    let mut text = format!("{0} {0}", spec.name);
    for part in [spec.title.as_deref(), Some(spec.description.as_str())]
        .into_iter()
        .flatten()
    {
        text.push(' ');
        text.push_str(part);
    }
    if let Some(properties) = spec
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
    {
        for (name, schema) in properties {
            text.push(' ');
            text.push_str(name);
            if let Some(d) = schema.get("description").and_then(|d| d.as_str()) {
                text.push(' ');
                text.push_str(d);
            }
        }
    }
    text
}

/// The tools searched, ranked by BM25.
pub struct ToolIndex {
    specs: Vec<ToolSpec>,
    engine: SearchEngine<usize, u32, IdentTokenizer>,
}

impl std::fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolIndex")
            .field("tools", &self.specs.len())
            .finish_non_exhaustive()
    }
}

impl ToolIndex {
    pub fn new(specs: Vec<ToolSpec>) -> Self {
        let documents: Vec<bm25::Document<usize>> = specs
            .iter()
            .enumerate()
            .map(|(i, s)| bm25::Document::new(i, document(s)))
            .collect();
        let engine =
            SearchEngineBuilder::<usize, u32, IdentTokenizer>::with_tokenizer_and_documents(
                IdentTokenizer,
                documents,
            )
            .build();
        Self { specs, engine }
    }

    pub fn len(&self) -> usize {
        self.specs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The best `limit` tools for `query`, best first; a tool whose whole name is the
    /// query comes first whatever its score.
    pub fn search(&self, query: &str, limit: usize) -> Vec<&ToolSpec> {
        let wanted = query.trim();
        let mut found: Vec<&ToolSpec> = self
            .specs
            .iter()
            .filter(|s| s.name.eq_ignore_ascii_case(wanted))
            .collect();
        for hit in self.engine.search(query, limit.saturating_add(found.len())) {
            if let Some(spec) = self.specs.get(hit.document.id)
                && !found.iter().any(|f| f.name == spec.name)
            {
                found.push(spec);
            }
        }
        found.truncate(limit);
        found
    }

    /// The tools named exactly (`select:a,b`), in the order asked.
    pub fn select(&self, names: &[&str]) -> Vec<&ToolSpec> {
        names
            .iter()
            .filter_map(|n| self.specs.iter().find(|s| s.name == n.trim()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn spec(name: &str, description: &str, args: &[&str]) -> ToolSpec {
        let properties: serde_json::Map<String, serde_json::Value> = args
            .iter()
            .map(|a| ((*a).to_owned(), json!({"type": "string"})))
            .collect();
        ToolSpec::builder(name)
            .description(description)
            .input_schema(json!({"type": "object", "properties": properties}))
            .build()
    }

    fn index() -> ToolIndex {
        ToolIndex::new(vec![
            spec(
                "weather__get_forecast",
                "Forecast for a city.",
                &["city", "days"],
            ),
            spec("files__readFile", "Read the contents of a file.", &["path"]),
            spec(
                "files__write_file",
                "Write text to a file.",
                &["path", "text"],
            ),
            spec("git__log", "Show commit history.", &["rev"]),
            spec("db__query", "Run SQL against the database.", &["sql"]),
        ])
    }

    fn names(found: &[&ToolSpec]) -> Vec<String> {
        found.iter().map(|s| s.name.clone()).collect()
    }

    #[test]
    fn identifiers_split_into_words() {
        assert_eq!(
            IdentTokenizer.tokenize("files__readFile get-weather HTTPRequests the"),
            ["file", "read", "file", "get", "weather", "httprequest"]
        );
        assert_eq!(IdentTokenizer.tokenize("queries"), ["query"]);
    }

    #[test]
    fn ranks_by_name_description_and_arguments() {
        let index = index();
        assert_eq!(names(&index.search("read a file", 2))[0], "files__readFile");
        assert_eq!(
            names(&index.search("weather in Paris", 1)),
            ["weather__get_forecast"]
        );
        // Found by an argument's name alone.
        assert_eq!(names(&index.search("sql", 5)), ["db__query"]);
        assert_eq!(names(&index.search("commits history", 5)), ["git__log"]);
        assert!(index.search("xylophone", 5).is_empty());
    }

    #[test]
    fn an_exact_name_comes_first_and_select_takes_names() {
        let index = index();
        assert_eq!(names(&index.search("git__log", 1)), ["git__log"]);
        assert_eq!(
            names(&index.select(&["db__query", "nope", " git__log"])),
            ["db__query", "git__log"]
        );
    }
}
