//! Editing `[servers.NAME]` entries of a config file's text in place: comments, key
//! order and layout of everything else are kept (`toml_edit` keeps the document's
//! formatting). The caller validates the result with [`super::parse_str`] before it
//! writes anything.

use std::collections::BTreeMap;

use toml_edit::{DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::ServerConfig;

/// An edit that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("invalid TOML: {0}")]
    Parse(String),
    #[error("a server named `{0}` is already configured; remove it first")]
    Exists(String),
    #[error("no server named `{0}` in this file")]
    Missing(String),
    #[error("`{0}` is not a table")]
    Shape(String),
}

/// The text with `server` added as `[servers.NAME]` at the end of the servers.
pub fn add_server(text: &str, name: &str, server: &ServerConfig) -> Result<String, EditError> {
    let mut doc = parse(text)?;
    let table = server_table(name, server)?;
    let servers = doc
        .entry("servers")
        .or_insert_with(|| Item::Table(implicit_table()));
    match servers {
        Item::Table(servers) => {
            if servers.contains_key(name) {
                return Err(EditError::Exists(name.to_owned()));
            }
            servers.insert(name, Item::Table(table));
        }
        Item::Value(Value::InlineTable(servers)) => {
            if servers.contains_key(name) {
                return Err(EditError::Exists(name.to_owned()));
            }
            servers.insert(name, Value::InlineTable(table.into_inline_table()));
        }
        _ => return Err(EditError::Shape("servers".into())),
    }
    let out = doc.to_string();
    Ok(if text.trim().is_empty() {
        out.trim_start().to_owned()
    } else {
        out
    })
}

/// The text without the server `name` (its table, with the comments above its header).
pub fn remove_server(text: &str, name: &str) -> Result<String, EditError> {
    let mut doc = parse(text)?;
    let Some(removed) = servers_mut(&mut doc)?.and_then(|s| s.remove(name)) else {
        return Err(EditError::Missing(name.to_owned()));
    };
    if let Some((position, comments)) = detached_comments(&removed) {
        keep_comments(&mut doc, position, &comments);
    }
    // `[servers]` with nothing left in it, and no header of its own, is dropped too.
    let empty_implicit = doc
        .get("servers")
        .and_then(Item::as_table)
        .is_some_and(|t| t.is_empty() && t.is_implicit());
    if empty_implicit {
        doc.remove("servers");
    }
    Ok(doc.to_string())
}

/// The text with server `name` enabled or disabled. Disabling writes
/// `enabled = false`; enabling removes that line (enabled is the default), or sets it
/// to `true` when a comment on the line would be lost.
pub fn set_enabled(text: &str, name: &str, enabled: bool) -> Result<String, EditError> {
    let mut doc = parse(text)?;
    let server = servers_mut(&mut doc)?
        .and_then(|s| s.get_mut(name))
        .ok_or_else(|| EditError::Missing(name.to_owned()))?
        .as_table_like_mut()
        .ok_or_else(|| EditError::Shape(format!("servers.{name}")))?;
    let commented = server
        .get("enabled")
        .and_then(Item::as_value)
        .and_then(|v| v.decor().suffix())
        .and_then(|d| d.as_str())
        .is_some_and(|d| d.contains('#'));
    if enabled && !commented {
        server.remove("enabled");
        return Ok(doc.to_string());
    }
    match server.get_mut("enabled").and_then(Item::as_value_mut) {
        Some(value) => {
            let decor = value.decor().clone();
            *value = Value::from(enabled);
            *value.decor_mut() = decor;
        }
        None => {
            server.insert("enabled", toml_edit::value(enabled));
        }
    }
    Ok(doc.to_string())
}

/// The comments above a removed table's header that a blank line separates from it:
/// they belong to what is above, and stay.
fn detached_comments(item: &Item) -> Option<(isize, String)> {
    let table = item.as_table()?;
    let prefix = table.decor().prefix()?.as_str()?;
    let lines: Vec<&str> = prefix.split_inclusive('\n').collect();
    let blank = lines.iter().rposition(|l| l.trim().is_empty())?;
    let kept: String = lines[..blank].concat();
    (!kept.trim().is_empty()).then(|| (table.position().unwrap_or(isize::MAX), kept))
}

/// Puts `comments` before the first table after `position`, or at the end.
fn keep_comments(doc: &mut DocumentMut, position: isize, comments: &str) {
    let next = next_position(doc.as_table(), position);
    let placed = next.is_some_and(|next| prepend_at(doc.as_table_mut(), next, comments));
    if !placed {
        let trailing = doc.trailing().as_str().unwrap_or_default().to_owned();
        doc.set_trailing(format!("{comments}{trailing}"));
    }
}

/// Every table under `table`, with the tables of arrays of tables.
fn children(table: &Table) -> impl Iterator<Item = &Table> {
    table.iter().flat_map(|(_, item)| match item {
        Item::Table(t) => vec![t],
        Item::ArrayOfTables(array) => array.iter().collect(),
        _ => Vec::new(),
    })
}

fn next_position(table: &Table, after: isize) -> Option<isize> {
    children(table)
        .flat_map(|t| {
            let own = t.position().filter(|p| *p > after && !t.is_implicit());
            own.into_iter().chain(next_position(t, after))
        })
        .min()
}

fn prepend_at(table: &mut Table, position: isize, comments: &str) -> bool {
    for (_, item) in table.iter_mut() {
        let tables: Vec<&mut Table> = match item {
            Item::Table(t) => vec![t],
            Item::ArrayOfTables(array) => array.iter_mut().collect(),
            _ => Vec::new(),
        };
        for t in tables {
            if t.position() == Some(position) && !t.is_implicit() {
                let prefix = t.decor().prefix().and_then(|p| p.as_str()).unwrap_or("");
                let prefix = format!("{comments}{prefix}");
                t.decor_mut().set_prefix(prefix);
                return true;
            }
            if prepend_at(t, position, comments) {
                return true;
            }
        }
    }
    false
}

fn parse(text: &str) -> Result<DocumentMut, EditError> {
    text.parse::<DocumentMut>()
        .map_err(|e| EditError::Parse(e.message().to_owned()))
}

fn implicit_table() -> Table {
    let mut table = Table::new();
    table.set_implicit(true);
    table
}

fn servers_mut(doc: &mut DocumentMut) -> Result<Option<&mut dyn TableLike>, EditError> {
    match doc.get_mut("servers") {
        None => Ok(None),
        Some(item) => item
            .as_table_like_mut()
            .map(Some)
            .ok_or_else(|| EditError::Shape("servers".into())),
    }
}

/// The order keys are written in: what it is first, tuning after.
const ORDER: &[&str] = &[
    "type",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "bearer_token_env_var",
    "enabled",
    "startup_timeout",
    "tool_timeout",
    "start",
    "idle_timeout",
    "enabled_tools",
    "disabled_tools",
    "tool_exposure",
    "direct_tools",
];

/// `[servers.NAME]` for `server`: only the keys that are set, maps as inline tables,
/// a blank line before the header.
fn server_table(name: &str, server: &ServerConfig) -> Result<Table, EditError> {
    let one = BTreeMap::from([(name.to_owned(), server.clone())]);
    let doc = parse(&super::import::to_toml(&one))?;
    let mut table = doc
        .get("servers")
        .and_then(|s| s.get(name))
        .and_then(Item::as_table)
        .cloned()
        .ok_or_else(|| EditError::Shape(format!("servers.{name}")))?;
    let nested: Vec<String> = table
        .iter()
        .filter(|(_, item)| item.is_table())
        .map(|(k, _)| k.to_owned())
        .collect();
    for key in nested {
        if let Some(Item::Table(sub)) = table.remove(&key) {
            let inline: InlineTable = sub.into_inline_table();
            table.insert(&key, Item::Value(Value::InlineTable(inline)));
        }
    }
    let rank = |key: &str| ORDER.iter().position(|k| *k == key).unwrap_or(ORDER.len());
    table.sort_values_by(|a, _, b, _| rank(a.get()).cmp(&rank(b.get())));
    table.set_position(None);
    table.decor_mut().set_prefix("\n");
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# my config\n\
        \n\
        default_provider = \"x\" # keep me\n\
        \n\
        # the weather server\n\
        [servers.weather]\n\
        command = \"w\" # local\n\
        enabled = true # on for now\n\
        \n\
        [providers.x]\n\
        kind = \"openai\"\n";

    fn stdio(command: &str) -> ServerConfig {
        ServerConfig {
            command: Some(command.into()),
            args: vec!["--flag".into()],
            env: BTreeMap::from([("A".into(), "${A}".into())]),
            ..ServerConfig::default()
        }
    }

    #[test]
    fn add_then_remove_gives_back_the_text() {
        let added = add_server(TEXT, "echo", &stdio("echo-server")).unwrap();
        // Next to the other servers, before the tables that follow them.
        assert!(
            added.contains(
                "enabled = true # on for now\n\n[servers.echo]\ncommand = \"echo-server\"\nargs = [\"--flag\"]\nenv = { A = \"${A}\" }\n\n[providers.x]"
            ),
            "{added}"
        );
        assert_eq!(remove_server(&added, "echo").unwrap(), TEXT);
    }

    #[test]
    fn add_to_an_empty_file_and_to_inline_servers() {
        let added = add_server("", "e", &stdio("e")).unwrap();
        assert!(added.starts_with("[servers.e]\n"), "{added}");
        let inline = "servers = { a = { command = \"a\" } }\n";
        let added = add_server(inline, "b", &stdio("b")).unwrap();
        assert!(added.contains("b = { command = \"b\""), "{added}");
        assert_eq!(
            add_server(inline, "a", &stdio("a")),
            Err(EditError::Exists("a".into()))
        );
    }

    #[test]
    fn remove_takes_the_comment_above_and_keeps_the_rest() {
        let removed = remove_server(TEXT, "weather").unwrap();
        assert_eq!(
            removed,
            "# my config\n\ndefault_provider = \"x\" # keep me\n\n[providers.x]\nkind = \"openai\"\n"
        );
        // A comment a blank line above the header belongs to what is above it.
        let first = "# about the file\n\n# about a\n[servers.a]\ncommand = \"a\"\n\n# about b\n[servers.b]\ncommand = \"b\"\n";
        assert_eq!(
            remove_server(first, "a").unwrap(),
            "# about the file\n\n# about b\n[servers.b]\ncommand = \"b\"\n"
        );
        assert_eq!(
            remove_server(first, "b").unwrap(),
            "# about the file\n\n# about a\n[servers.a]\ncommand = \"a\"\n"
        );
        let last = "[servers.a]\ncommand = \"a\"\n\n# keep\n\n[servers.b]\ncommand = \"b\"\n";
        assert_eq!(
            remove_server(last, "b").unwrap(),
            "[servers.a]\ncommand = \"a\"\n\n# keep\n"
        );
        assert_eq!(
            remove_server(TEXT, "nope"),
            Err(EditError::Missing("nope".into()))
        );
    }

    #[test]
    fn enable_and_disable_keep_the_line_comment() {
        let off = set_enabled(TEXT, "weather", false).unwrap();
        assert!(off.contains("enabled = false # on for now\n"), "{off}");
        assert_eq!(set_enabled(&off, "weather", true).unwrap(), TEXT);
        let plain = "[servers.a]\ncommand = \"a\"\n";
        assert_eq!(
            set_enabled(plain, "a", false).unwrap(),
            "[servers.a]\ncommand = \"a\"\nenabled = false\n"
        );
        // Enabling takes the line away again: enabled is the default.
        let disabled = set_enabled(plain, "a", false).unwrap();
        assert_eq!(set_enabled(&disabled, "a", true).unwrap(), plain);
        assert_eq!(set_enabled(plain, "a", true).unwrap(), plain);
        let dotted = "servers.a.command = \"a\"\n";
        assert!(
            set_enabled(dotted, "a", false)
                .unwrap()
                .contains("enabled = false")
        );
    }
}
