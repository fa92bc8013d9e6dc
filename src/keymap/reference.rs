//! The docs' key reference (`docs/src/keys.md`, between `<!-- keys:begin -->` and
//! `<!-- keys:end -->`), generated from the built-in table like the help overlay.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::action::{Action, Layer};
use super::table::{Binding, default_bindings};

/// The key reference as Markdown: one table per layer (keys, action, what it does, in
/// the help overlay's order), then every action with its description and default
/// keys.
pub fn reference_markdown() -> String {
    let bindings = default_bindings();
    let mut out = String::from(
        "<!-- Generated from src/keymap/default.toml: edit that file, then run\n     \
         SWITCHBOARD_BLESS=1 cargo test --test it keys_doc -->\n",
    );
    for layer in Layer::ALL {
        let rows = layer_rows(&bindings, layer);
        if rows.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "\n### {} — `[ui.keys.{}]`\n\n| Keys | Action | What it does |\n| --- | --- | --- |\n",
            layer.title(),
            layer.name()
        );
        for (action, (keys, help)) in rows {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} |",
                code_list(&keys),
                action.name(),
                cell(help)
            );
        }
    }
    out.push_str(
        "\n### All actions\n\n| Action | What it does | Default keys |\n| --- | --- | --- |\n",
    );
    for action in Action::ALL {
        // The same keys in several layers are listed once: `↑` `k` (panes, help).
        let mut by_keys: Vec<(String, Vec<&str>)> = Vec::new();
        for layer in Layer::ALL {
            let keys: Vec<String> = bindings
                .iter()
                .filter(|b| b.layer == layer && b.action == *action)
                .map(|b| b.key.to_string())
                .collect();
            if keys.is_empty() {
                continue;
            }
            let keys = code_list(&keys);
            match by_keys.iter_mut().find(|(k, _)| *k == keys) {
                Some((_, layers)) => layers.push(layer.name()),
                None => by_keys.push((keys, vec![layer.name()])),
            }
        }
        let by_layer: Vec<String> = by_keys
            .into_iter()
            .map(|(keys, layers)| format!("{keys} ({})", layers.join(", ")))
            .collect();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            action.name(),
            cell(action.description()),
            if by_layer.is_empty() {
                "unbound".to_owned()
            } else {
                by_layer.join("; ")
            }
        );
    }
    out
}

/// A layer's actions in `Action` order, each with its keys and help text.
fn layer_rows(bindings: &[Binding], layer: Layer) -> BTreeMap<Action, (Vec<String>, &str)> {
    let mut rows: BTreeMap<Action, (Vec<String>, &str)> = BTreeMap::new();
    for b in bindings.iter().filter(|b| b.layer == layer) {
        let row = rows
            .entry(b.action)
            .or_insert_with(|| (Vec::new(), b.help.as_str()));
        row.0.push(b.key.to_string());
    }
    rows
}

fn code_list(keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("`{}`", cell(k)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Text for a table cell: a `|` would end it.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}
