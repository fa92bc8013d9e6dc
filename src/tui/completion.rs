//! The composer's completion popup: what may follow the word being typed on a
//! slash-command line. `/` lists the commands with their usage; `/call ` the tools
//! (`SERVER__TOOL`, filtered fuzzily like the catalog), then the tool's arguments as
//! `name=` (required first, with their type); `/read SERVER ` the server's resource
//! URIs and `/prompt SERVER ` its prompt names. The candidates are worked out from the
//! line each time they are needed: a filter over names, nothing catalog-wide.

use crate::catalog_filter::Narrowing;
use crate::keymap::{Key, KeyCode};
use crate::tools::schema_fields;

use super::slash::COMMANDS;
use super::state::{Catalog, CatalogEntry, State};

/// Candidates shown at most (the popup scrolls no further).
pub const MAX: usize = 8;

/// One thing the word being typed may become.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// What replaces the word being typed.
    pub text: String,
    /// Shown beside it: a command's usage, an argument's type.
    pub detail: String,
    /// Accepting it ends the word (a space follows); `name=` does not.
    pub ends_word: bool,
}

/// The candidates for `line` (a one-line composer, cursor at its end), best first.
/// `memo` remembers the tool filter's last queries, so a keystroke narrows the last
/// matches.
pub fn candidates(line: &str, catalog: &Catalog, memo: &Narrowing) -> Vec<Candidate> {
    let Some(rest) = line.strip_prefix('/') else {
        return Vec::new();
    };
    if rest.starts_with('/') {
        return Vec::new();
    }
    let Some((command, args)) = rest.split_once(' ') else {
        return commands(line);
    };
    let words: Vec<&str> = args.split(' ').collect();
    let word = words.last().copied().unwrap_or_default();
    match (command, words.len()) {
        ("call", 1) => tools(&catalog.tools, word, memo),
        ("call", _) => arguments(&catalog.tools, words[0], &words[1..]),
        ("read" | "prompt", 1) => servers(entries(catalog, command), word),
        ("read" | "prompt", 2) => names(entries(catalog, command), words[0], word),
        _ => Vec::new(),
    }
}

fn entries<'a>(catalog: &'a Catalog, command: &str) -> &'a [CatalogEntry] {
    if command == "read" {
        &catalog.resources
    } else {
        &catalog.prompts
    }
}

fn commands(word: &str) -> Vec<Candidate> {
    COMMANDS
        .iter()
        .filter(|c| c.name.starts_with(word))
        .map(|c| Candidate {
            text: c.name.to_string(),
            detail: c.usage.to_string(),
            ends_word: true,
        })
        .collect()
}

fn tools(tools: &[CatalogEntry], word: &str, memo: &Narrowing) -> Vec<Candidate> {
    let query = word.to_lowercase();
    let hits: Vec<&CatalogEntry> = if query.is_empty() {
        tools.iter().collect()
    } else {
        let hays: Vec<_> = tools.iter().map(CatalogEntry::haystack).collect();
        memo.filter(&hays, &query)
            .into_iter()
            .filter_map(|i| tools.get(i))
            .collect()
    };
    hits.into_iter()
        .take(MAX)
        .map(|t| Candidate {
            text: t.name.clone(),
            detail: t
                .title
                .clone()
                .unwrap_or_else(|| first_line(&t.description)),
            ends_word: true,
        })
        .collect()
}

/// The tool's top-level arguments not given yet, required first, as `name=`.
fn arguments(tools: &[CatalogEntry], tool: &str, words: &[&str]) -> Vec<Candidate> {
    let word = words.last().copied().unwrap_or_default();
    if word.contains('=') {
        return Vec::new();
    }
    let Some(schema) = tools
        .iter()
        .find(|t| t.name == tool)
        .and_then(|t| t.schema.as_ref())
    else {
        return Vec::new();
    };
    let given: Vec<&str> = words
        .iter()
        .filter_map(|w| w.split_once('=').map(|(k, _)| k))
        .collect();
    let mut fields: Vec<_> = schema_fields(schema)
        .into_iter()
        .filter(|f| !f.path.contains(['.', '[']))
        .filter(|f| f.path.starts_with(word) && !given.contains(&f.path.as_str()))
        .collect();
    fields.sort_by_key(|f| !f.required);
    fields
        .into_iter()
        .map(|f| Candidate {
            text: format!("{}=", f.path),
            detail: if f.required {
                format!("{} · required", f.ty)
            } else {
                f.ty
            },
            ends_word: false,
        })
        .collect()
}

fn servers(entries: &[CatalogEntry], word: &str) -> Vec<Candidate> {
    let mut names: Vec<&str> = entries
        .iter()
        .map(|e| e.server.as_str())
        .filter(|s| s.starts_with(word))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|s| Candidate {
            text: s.to_string(),
            detail: "server".into(),
            ends_word: true,
        })
        .collect()
}

fn names(entries: &[CatalogEntry], server: &str, word: &str) -> Vec<Candidate> {
    entries
        .iter()
        .filter(|e| e.server == server && e.name.starts_with(word))
        .map(|e| Candidate {
            text: e.name.clone(),
            detail: e
                .title
                .clone()
                .unwrap_or_else(|| first_line(&e.description)),
            ends_word: true,
        })
        .collect()
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

/// The line the popup completes: the composer's text when it is one line with the
/// cursor at its end.
pub fn line(state: &State) -> Option<String> {
    let c = &state.composer;
    let text = c.text();
    (c.line_count() == 1 && c.cursor_at_end() && text.starts_with('/')).then_some(text)
}

/// The popup's candidates now, or none when it is closed.
pub fn shown(state: &State) -> Vec<Candidate> {
    if state.composer.popup.closed {
        return Vec::new();
    }
    line(state).map_or_else(Vec::new, |l| {
        candidates(&l, &state.catalog.items, &state.composer.popup.memo)
    })
}

/// A key while the popup is open: ↑/↓ move, Tab/Enter accept, Esc closes it. Tab on
/// a slash line whose popup was closed opens it again. Returns whether the key was
/// the popup's.
pub fn key(state: &mut State, key: Key) -> bool {
    if key.mods.ctrl || key.mods.alt {
        return false;
    }
    let shown = shown(state);
    if shown.is_empty() {
        if key.code == KeyCode::Tab && line(state).is_some() && state.composer.popup.closed {
            state.composer.popup.closed = false;
            state.composer.popup.sel = 0;
            return true;
        }
        return false;
    }
    let popup = &mut state.composer.popup;
    let n = shown.len().min(MAX);
    match key.code {
        KeyCode::Up => popup.sel = (popup.sel + n - 1) % n,
        KeyCode::Down => popup.sel = (popup.sel + 1) % n,
        KeyCode::Esc => popup.closed = true,
        KeyCode::Tab | KeyCode::Enter => {
            let pick = &shown[popup.sel.min(n - 1)];
            // Enter on a word already complete (`/mode`, though `/model` is
            // highlighted) sends the line.
            let text = state.composer.text();
            let word = current_word(&text);
            if key.code == KeyCode::Enter && shown.iter().any(|c| c.text == word) {
                return false;
            }
            accept(state, pick);
        }
        _ => return false,
    }
    true
}

fn current_word(text: &str) -> &str {
    &text[word_start(text)..]
}

fn word_start(text: &str) -> usize {
    text.rfind(' ').map_or(0, |at| at + 1)
}

/// Put `pick` in place of the word being typed.
fn accept(state: &mut State, pick: &Candidate) {
    let text = state.composer.text();
    let start = word_start(&text);
    let mut line = format!("{}{}", &text[..start], pick.text);
    if pick.ends_word {
        line.push(' ');
    }
    state.composer.set_text(&line);
}

/// After the text changed by typing: the popup opens again, at its first candidate.
pub fn typed(state: &mut State) {
    state.composer.popup.closed = false;
    state.composer.popup.sel = 0;
}

#[cfg(test)]
mod tests;
