//! The Catalog pane's data: tabs, entries across servers, the filter (ranked by
//! `crate::catalog_filter`), and the selection.

use std::collections::BTreeMap;
use std::sync::Arc;

pub use crate::catalog_filter::is_subsequence;
use crate::catalog_filter::{Haystack, HaystackCell, Narrowing};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogTab {
    Tools,
    Resources,
    Templates,
    Prompts,
    /// `[agents.NAME]`: shown only when agents are configured.
    Agents,
}

impl CatalogTab {
    /// The tabs with the Agents tab.
    pub const WITH_AGENTS: [CatalogTab; 5] = [
        CatalogTab::Tools,
        CatalogTab::Resources,
        CatalogTab::Templates,
        CatalogTab::Prompts,
        CatalogTab::Agents,
    ];

    pub const ALL: [CatalogTab; 4] = [
        CatalogTab::Tools,
        CatalogTab::Resources,
        CatalogTab::Templates,
        CatalogTab::Prompts,
    ];

    pub fn title(self) -> &'static str {
        match self {
            CatalogTab::Tools => "Tools",
            CatalogTab::Resources => "Resources",
            CatalogTab::Templates => "Templates",
            CatalogTab::Prompts => "Prompts",
            CatalogTab::Agents => "Agents",
        }
    }

    /// A short title for narrow panes.
    pub fn short_title(self) -> &'static str {
        match self {
            CatalogTab::Tools => "Tools",
            CatalogTab::Resources => "Res",
            CatalogTab::Templates => "Tpl",
            CatalogTab::Prompts => "Prm",
            CatalogTab::Agents => "Agt",
        }
    }

    pub fn index(self) -> usize {
        Self::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }

    pub fn shifted(self, delta: isize) -> CatalogTab {
        self.shifted_in(&Self::ALL, delta)
    }

    /// The tab `delta` steps away among `tabs` (wrapping).
    pub fn shifted_in(self, tabs: &[CatalogTab], delta: isize) -> CatalogTab {
        let n = tabs.len().max(1).cast_signed();
        let at = tabs.iter().position(|t| *t == self).unwrap_or(0);
        let i = (at.cast_signed() + delta).rem_euclid(n);
        tabs.get(i.cast_unsigned())
            .copied()
            .unwrap_or(CatalogTab::Tools)
    }
}

/// One item of a catalog tab. Text is sanitised when drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogEntry {
    pub server: String,
    /// The name calls use (for tools, the qualified name the gate and rules see).
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    /// Tools: the effect the gate classifies calls with by default.
    pub effect: Option<crate::tools::ToolEffect>,
    /// Tools: the input schema; prompts and templates: their arguments as a schema.
    pub schema: Option<serde_json::Value>,
    /// Further facts shown in the detail view (annotations, URI, MIME type…).
    pub facts: Vec<(String, String)>,
    /// How many icons the server gave it (shown as a glyph; images are not fetched).
    pub icons: usize,
    /// The filter's lower-cased text, made on first use.
    pub search: HaystackCell,
}

/// A catalog entry whose filter haystack is not made yet: where it is and its text,
/// for a worker thread to make it ([`Catalog::fill`] puts it in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmade {
    pub tab: CatalogTab,
    pub index: usize,
    /// Name, title, server and description.
    pub parts: [String; 4],
}

impl Unmade {
    pub fn make(self) -> Made {
        let [name, title, server, description] = &self.parts;
        let haystack = Arc::new(Haystack::new(name, title, server, description));
        Made {
            unmade: self,
            haystack,
        }
    }
}

/// A haystack a worker made for an [`Unmade`] entry.
#[derive(Debug, Clone)]
pub struct Made {
    pub unmade: Unmade,
    pub haystack: Arc<Haystack>,
}

/// The haystack follows from the text: two are equal when their entries are.
impl PartialEq for Made {
    fn eq(&self, other: &Self) -> bool {
        self.unmade == other.unmade
    }
}

impl CatalogEntry {
    /// What a worker needs to make this entry's haystack, unless it is made.
    fn unmade(&self, tab: CatalogTab, index: usize) -> Option<Unmade> {
        if self.search.get().is_some() {
            return None;
        }
        Some(Unmade {
            tab,
            index,
            parts: [
                self.name.clone(),
                self.title.clone().unwrap_or_default(),
                self.server.clone(),
                self.description.clone(),
            ],
        })
    }

    /// Whether this entry's text is `parts` (name, title, server, description).
    fn text_is(&self, [name, title, server, description]: &[String; 4]) -> bool {
        self.name == *name
            && self.title.as_deref().unwrap_or_default() == title
            && self.server == *server
            && self.description == *description
    }

    pub fn haystack(&self) -> &Arc<Haystack> {
        self.search.get_or_init(|| {
            let title = self.title.as_deref().unwrap_or_default();
            Haystack::new(&self.name, title, &self.server, &self.description)
        })
    }
}

/// Gives each new entry whose text is unchanged the filter haystack its old self
/// had, so after a catalog change the next keystroke makes haystacks only for the
/// entries that changed (not for all of them, on the UI thread). Lists are sorted
/// the same way each time: entries are matched in step, and by name where one was
/// added or removed.
fn keep_haystacks(old: &[CatalogEntry], new: &mut [CatalogEntry]) {
    let same_text = |a: &CatalogEntry, b: &CatalogEntry| {
        a.server == b.server
            && a.name == b.name
            && a.title == b.title
            && a.description == b.description
    };
    let mut by_name: Option<std::collections::HashMap<(&str, &str), &CatalogEntry>> = None;
    for (i, entry) in new.iter_mut().enumerate() {
        let found = match old.get(i) {
            Some(o) if o.server == entry.server && o.name == entry.name => Some(o),
            _ => by_name
                .get_or_insert_with(|| {
                    old.iter()
                        .map(|o| ((o.server.as_str(), o.name.as_str()), o))
                        .collect()
                })
                .get(&(entry.server.as_str(), entry.name.as_str()))
                .copied(),
        };
        if let Some(o) = found
            && same_text(o, entry)
        {
            entry.search = o.search.clone();
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    pub tools: Vec<CatalogEntry>,
    pub resources: Vec<CatalogEntry>,
    pub templates: Vec<CatalogEntry>,
    pub prompts: Vec<CatalogEntry>,
    /// The `agent__NAME` tools.
    pub agents: Vec<CatalogEntry>,
    /// Remote agents' cards, by agent tool name.
    pub cards: BTreeMap<String, super::RemoteCard>,
    /// The tools with an MCP App (qualified names; usually few): the status bar asks
    /// on every frame whether a result card has one to open.
    pub apps: Vec<String>,
}

impl Catalog {
    pub fn entries(&self, tab: CatalogTab) -> &[CatalogEntry] {
        match tab {
            CatalogTab::Tools => &self.tools,
            CatalogTab::Resources => &self.resources,
            CatalogTab::Templates => &self.templates,
            CatalogTab::Prompts => &self.prompts,
            CatalogTab::Agents => &self.agents,
        }
    }

    /// Takes the servers' new catalog; the agents (no server lists them) and their
    /// cards stay. Returns the entries whose filter haystacks are still to make (new,
    /// or changed).
    pub fn refresh(&mut self, mut servers: Catalog) -> Vec<Unmade> {
        servers.agents = std::mem::take(&mut self.agents);
        servers.cards = std::mem::take(&mut self.cards);
        for (old, new) in [
            (&self.tools, &mut servers.tools),
            (&self.resources, &mut servers.resources),
            (&self.templates, &mut servers.templates),
            (&self.prompts, &mut servers.prompts),
        ] {
            keep_haystacks(old, new);
        }
        *self = servers;
        [
            CatalogTab::Tools,
            CatalogTab::Resources,
            CatalogTab::Templates,
            CatalogTab::Prompts,
        ]
        .into_iter()
        .flat_map(|tab| {
            self.entries(tab)
                .iter()
                .enumerate()
                .filter_map(move |(i, e)| e.unmade(tab, i))
        })
        .collect()
    }

    /// Puts in the haystacks a worker made, each where its entry still has the text
    /// it was made from (a later catalog may have moved or changed it).
    pub fn fill(&self, made: Vec<Made>) {
        for Made { unmade, haystack } in made {
            if let Some(entry) = self.entries(unmade.tab).get(unmade.index)
                && entry.text_is(&unmade.parts)
            {
                entry.search.fill(haystack);
            }
        }
    }

    /// Whether `unmade`'s entry is still without its haystack.
    pub fn is_unmade(&self, unmade: &Unmade) -> bool {
        self.entries(unmade.tab)
            .get(unmade.index)
            .is_some_and(|e| e.search.get().is_none())
    }

    /// The tabs shown: the Agents tab only when agents are configured.
    pub fn tabs(&self) -> &'static [CatalogTab] {
        if self.agents.is_empty() {
            &CatalogTab::ALL
        } else {
            &CatalogTab::WITH_AGENTS
        }
    }
}

/// The catalog's incremental filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    pub query: String,
    /// Keys go to the query while editing.
    pub editing: bool,
    /// The matches of the last queries (see `catalog_filter`).
    pub memo: Narrowing,
}

/// The Catalog pane: every server's lists, the tab shown, the selection and the
/// filter.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogPane {
    pub tab: CatalogTab,
    pub items: Catalog,
    pub sel: usize,
    pub filter: Filter,
}

impl Default for CatalogPane {
    fn default() -> Self {
        Self {
            tab: CatalogTab::Tools,
            items: Catalog::default(),
            sel: 0,
            filter: Filter::default(),
        }
    }
}

impl CatalogPane {
    /// The selected catalog entry, if any.
    pub fn selected_entry(&self) -> Option<&CatalogEntry> {
        self.visible().get(self.sel).copied()
    }

    /// Entries of the current tab that match the filter, best matches first
    /// (catalog order when there is no filter).
    pub fn visible(&self) -> Vec<&CatalogEntry> {
        let query = self.filter.query.to_lowercase();
        let entries = self.items.entries(self.tab);
        if query.is_empty() {
            return entries.iter().collect();
        }
        let hays: Vec<_> = entries.iter().map(CatalogEntry::haystack).collect();
        let hits = self.filter.memo.filter(&hays, &query);
        hits.into_iter().filter_map(|i| entries.get(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(server: &str, name: &str, description: &str) -> CatalogEntry {
        CatalogEntry {
            server: server.into(),
            name: name.into(),
            description: description.into(),
            ..CatalogEntry::default()
        }
    }

    #[test]
    fn a_catalog_change_keeps_the_haystacks_of_unchanged_entries() {
        let mut catalog = Catalog {
            tools: vec![
                entry("a", "one", "x"),
                entry("a", "two", "y"),
                entry("b", "three", "z"),
            ],
            ..Catalog::default()
        };
        let made: Vec<_> = catalog
            .tools
            .iter()
            .map(|e| Arc::clone(e.haystack()))
            .collect();
        // `two` changed its description, `new` came before `three`.
        catalog.refresh(Catalog {
            tools: vec![
                entry("a", "one", "x"),
                entry("a", "two", "changed"),
                entry("a", "zz-new", ""),
                entry("b", "three", "z"),
            ],
            ..Catalog::default()
        });
        let kept = |i: usize| catalog.tools[i].search.get().cloned();
        assert!(kept(0).is_some_and(|h| Arc::ptr_eq(&h, &made[0])));
        assert!(kept(1).is_none(), "changed text: made again when needed");
        assert!(kept(2).is_none());
        assert!(
            kept(3).is_some_and(|h| Arc::ptr_eq(&h, &made[2])),
            "matched by name"
        );
        assert!(!Arc::ptr_eq(catalog.tools[1].haystack(), &made[1]));
    }
}
