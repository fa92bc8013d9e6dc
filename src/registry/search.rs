//! Ranking entries for a query, over names, titles and descriptions, and the short
//! facts a result line shows (what an install would write).

use super::types::{ServerJson, ServerResponse, Status};

/// How an entry matched: better first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// The name, or its part after `/`, is the query.
    Exact,
    /// The name holds the query.
    Name,
    /// The title holds the query.
    Title,
    /// Every word of the query is somewhere in the name, title or description.
    Words,
}

/// How `entry` matches `query` (case-insensitive), or `None`. An empty query
/// matches everything.
pub fn rank(entry: &ServerResponse, query: &str) -> Option<Rank> {
    let query = query.trim().to_lowercase();
    let server = &entry.server;
    let name = server.name.to_lowercase();
    let short = name.rsplit('/').next().unwrap_or(&name);
    if query.is_empty() || name == query || short == query {
        return Some(Rank::Exact);
    }
    if name.contains(&query) {
        return Some(Rank::Name);
    }
    let title = server.title.as_deref().unwrap_or_default().to_lowercase();
    if title.contains(&query) {
        return Some(Rank::Title);
    }
    let haystack = format!("{name}\n{title}\n{}", server.description.to_lowercase());
    query
        .split_whitespace()
        .all(|word| haystack.contains(word))
        .then_some(Rank::Words)
}

/// The entries matching `query`, best first (then by name), without deleted ones;
/// the same name twice is kept once (the first given).
pub fn search<'a>(
    entries: impl IntoIterator<Item = &'a ServerResponse>,
    query: &str,
) -> Vec<&'a ServerResponse> {
    let mut found: Vec<(Rank, &ServerResponse)> = Vec::new();
    for entry in entries {
        if entry.status() == Status::Deleted
            || found
                .iter()
                .any(|(_, e)| e.server.name == entry.server.name)
        {
            continue;
        }
        if let Some(rank) = rank(entry, query) {
            found.push((rank, entry));
        }
    }
    found.sort_by(|(ra, a), (rb, b)| ra.cmp(rb).then_with(|| a.server.name.cmp(&b.server.name)));
    found.into_iter().map(|(_, e)| e).collect()
}

/// What a result line says about an entry: `title: description`, the title alone, or
/// the description (not sanitized: the front end does that).
pub fn about(server: &ServerJson) -> String {
    match server.title.as_deref().filter(|t| !t.trim().is_empty()) {
        Some(title) if !server.description.is_empty() => {
            format!("{title}: {}", server.description)
        }
        Some(title) => title.to_owned(),
        None => server.description.clone(),
    }
}

/// `text` cut to `max` characters, ending in `…` when cut (a result line's
/// description).
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// What `mcp install` would write for the entry (see [`super::plan::choose`]):
/// `remote`, `npm`, `pypi` or `oci`; else the kind of package it has (`mcpb`,
/// `nuget`) or `nothing`.
pub fn installs_as(entry: &ServerResponse) -> &str {
    let server = &entry.server;
    super::plan::choose(server, false).map_or_else(
        |_| {
            server
                .packages
                .first()
                .map_or("nothing", |p| p.registry_type.as_str())
        },
        |choice| choice.source(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::types::{Official, Package, ResponseMeta, ServerJson};

    fn entry(name: &str, title: &str, description: &str, status: Status) -> ServerResponse {
        ServerResponse {
            server: ServerJson {
                name: name.into(),
                title: Some(title.into()).filter(|t: &String| !t.is_empty()),
                description: description.into(),
                ..ServerJson::default()
            },
            meta: ResponseMeta {
                official: Some(Official {
                    status,
                    ..Official::default()
                }),
            },
        }
    }

    #[test]
    fn names_first_then_titles_then_words_anywhere() {
        let all = [
            entry("io.x/notes", "", "Keeps weather notes", Status::Active),
            entry("io.x/weather", "", "", Status::Active),
            entry("io.x/forecast", "Weather", "", Status::Deprecated),
            entry("io.x/weather-gone", "", "", Status::Deleted),
            entry("io.x/weatherly", "", "", Status::Active),
            entry("io.x/other", "", "nothing here", Status::Active),
        ];
        let names: Vec<&str> = search(&all, "Weather")
            .iter()
            .map(|e| e.server.name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "io.x/weather",
                "io.x/weatherly",
                "io.x/forecast",
                "io.x/notes"
            ]
        );
        assert_eq!(rank(&all[0], "notes weather"), Some(Rank::Words));
        assert_eq!(rank(&all[5], "weather"), None);
    }

    #[test]
    fn what_an_install_writes() {
        let mut e = entry("a/b", "", "", Status::Active);
        assert_eq!(installs_as(&e), "nothing");
        e.server.packages.push(Package {
            registry_type: "mcpb".into(),
            ..Package::default()
        });
        assert_eq!(installs_as(&e), "mcpb");
        e.server.packages.push(Package {
            registry_type: "pypi".into(),
            ..Package::default()
        });
        assert_eq!(installs_as(&e), "pypi");
        e.server.remotes.push(crate::registry::types::Remote {
            kind: "sse".into(),
            ..Default::default()
        });
        assert_eq!(installs_as(&e), "remote");
    }
}
