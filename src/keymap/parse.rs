//! Bindings in the `[ui.keys]` syntax applied to a table: the built-in `default.toml`
//! onto an empty one, then the user's `[ui.keys]` onto that.
//!
//! `action = keys` at the top rebinds the action in every layer it has keys in;
//! `[LAYER] action = keys` rebinds it in that layer (or adds it there). A binding
//! keeps its place in the layer, its help text and label unless the entry gives
//! `help` / `label`.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use toml::Spanned;

use super::action::{Action, Layer};
use super::key::Key;
use super::table::Binding;
use super::{KeymapError, action_hint, edit_distance};
use crate::config::{DescribedKeys, KeyBindingSpec};

/// A `[ui.keys]` table: name → value.
pub(super) type Entries = BTreeMap<String, Spanned<KeyBindingSpec>>;

/// Where each action was last set, for conflict errors: (span, dotted key).
pub(super) type Origins = HashMap<Action, (Range<usize>, String)>;

/// One entry, read.
struct Entry {
    action: Action,
    keys: Vec<Key>,
    help: Option<String>,
    label: Option<String>,
}

/// Applies `entries` (named `root`, e.g. `ui.keys`; empty for the built-in table):
/// the entries for every layer first, then the layer tables, each in the order
/// written.
pub(super) fn apply(
    bindings: &mut Vec<Binding>,
    entries: &Entries,
    root: &str,
) -> (Vec<KeymapError>, Origins) {
    let mut errors = Vec::new();
    let mut origin = Origins::new();
    let ordered = in_text_order(entries);
    for (name, spec) in &ordered {
        if matches!(spec.get_ref(), KeyBindingSpec::Layer(_)) {
            continue;
        }
        let path = join(root, name);
        if let Some(entry) = read_entry(name, spec, &path, &mut errors) {
            let mut layers: Vec<Layer> = Vec::new();
            for b in bindings.iter().filter(|b| b.action == entry.action) {
                if !layers.contains(&b.layer) {
                    layers.push(b.layer);
                }
            }
            for layer in layers {
                put(bindings, layer, &entry);
            }
            origin.insert(entry.action, (spec.span(), path));
        }
    }
    for (name, spec) in &ordered {
        let KeyBindingSpec::Layer(inner) = spec.get_ref() else {
            continue;
        };
        let path = join(root, name);
        let Some(layer) = Layer::from_name(name) else {
            errors.push(KeymapError {
                span: spec.span(),
                key: path,
                message: format!("unknown layer `{name}`"),
                hint: Some(layer_hint(name)),
            });
            continue;
        };
        for (action_name, spec) in in_text_order(inner) {
            let path = join(&path, action_name);
            if let Some(entry) = read_entry(action_name, spec, &path, &mut errors) {
                put(bindings, layer, &entry);
                origin.insert(entry.action, (spec.span(), path));
            }
        }
    }
    (errors, origin)
}

fn in_text_order(entries: &Entries) -> Vec<(&String, &Spanned<KeyBindingSpec>)> {
    let mut ordered: Vec<_> = entries.iter().collect();
    ordered.sort_by_key(|(_, spec)| spec.span().start);
    ordered
}

fn join(root: &str, name: &str) -> String {
    if root.is_empty() {
        name.to_owned()
    } else {
        format!("{root}.{name}")
    }
}

/// The action, its keys and texts; errors for what is wrong (the keys that parse are
/// kept, so one bad key does not hide the conflicts of the others).
fn read_entry(
    name: &str,
    spec: &Spanned<KeyBindingSpec>,
    path: &str,
    errors: &mut Vec<KeymapError>,
) -> Option<Entry> {
    let mut error = |message: String, hint: Option<String>| {
        errors.push(KeymapError {
            span: spec.span(),
            key: path.to_owned(),
            message,
            hint,
        });
    };
    let Some(action) = Action::from_name(name) else {
        let hint = if Layer::from_name(name).is_some() {
            format!("`{name}` is a layer: write its bindings as a table, [ui.keys.{name}]")
        } else {
            action_hint(name)
        };
        error(format!("unknown action `{name}`"), Some(hint));
        return None;
    };
    let (help, label) = match spec.get_ref() {
        KeyBindingSpec::Described(DescribedKeys { help, label, .. }) => {
            (help.clone(), label.clone())
        }
        KeyBindingSpec::Layer(_) => {
            error(
                format!("`{name}` takes keys here, not a table of bindings"),
                Some("layer tables hold `action = keys` entries and do not nest".into()),
            );
            return None;
        }
        KeyBindingSpec::One(_) | KeyBindingSpec::Many(_) => (None, None),
    };
    for text in help.iter().chain(&label) {
        if text.chars().any(char::is_control) {
            error(
                format!("`{name}`: help and label are one line of plain text"),
                None,
            );
        }
    }
    let mut keys = Vec::new();
    for text in spec.get_ref().keys() {
        match Key::parse(text) {
            Ok(key) => keys.push(key),
            Err(message) => error(
                message.to_string(),
                Some("keys look like `q`, `ctrl+p`, `alt+enter`, `f2`".into()),
            ),
        }
    }
    Some(Entry {
        action,
        keys,
        help,
        label,
    })
}

/// Binds `entry` in `layer`: in place of the action's keys there (keeping their help
/// text and label unless the entry says otherwise), or at the end of the table with
/// the action's description.
fn put(bindings: &mut Vec<Binding>, layer: Layer, entry: &Entry) {
    let found = bindings
        .iter()
        .position(|b| b.layer == layer && b.action == entry.action);
    let (at, help, label) = match found.and_then(|i| bindings.get(i).map(|b| (i, b))) {
        Some((i, b)) => (i, b.help.clone(), b.label.clone()),
        None => (bindings.len(), entry.action.description().to_owned(), None),
    };
    let help = entry.help.clone().unwrap_or(help);
    let label = entry.label.clone().or(label);
    bindings.retain(|b| !(b.layer == layer && b.action == entry.action));
    let rows = entry.keys.iter().map(|key| Binding {
        layer,
        key: *key,
        action: entry.action,
        help: help.clone(),
        label: label.clone(),
    });
    bindings.splice(at..at, rows);
}

fn layer_hint(name: &str) -> String {
    let best = Layer::ALL
        .iter()
        .map(|l| (edit_distance(name, l.name()), l.name()))
        .min();
    match best {
        Some((d, candidate)) if d <= 3 => format!("did you mean `{candidate}`?"),
        _ => {
            let names: Vec<&str> = Layer::ALL.iter().map(|l| l.name()).collect();
            format!("layers: {}", names.join(", "))
        }
    }
}
