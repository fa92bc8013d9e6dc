//! Keymap as data: one table maps (layer, key) to an action, its help text and its
//! status-bar label.
//!
//! The built-in table is `default.toml`, in the syntax of `[ui.keys]`, read by the
//! same parser as the user's overrides (`parse.rs`). The terminal layer turns its key
//! events into [`Key`]; everything else (lookup, user overrides, conflicts, the help
//! overlay, footers, the docs' key reference) works on this table.

mod action;
mod key;
mod parse;
mod reference;
mod table;

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

pub use action::{Action, Layer};
pub use key::{Key, KeyCode, Mods};
pub use reference::reference_markdown;
pub use table::{Binding, DEFAULT_TOML, default_bindings};

use crate::config::KeyBindingSpec;

/// The active key table.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: Vec<Binding>,
    index: HashMap<(Layer, Key), Action>,
}

/// A problem with a `[ui.keys]` entry, located at its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeymapError {
    /// Byte range of the value in the config text.
    pub span: Range<usize>,
    /// Dotted key, e.g. `ui.keys.quit`.
    pub key: String,
    pub message: String,
    pub hint: Option<String>,
}

impl Default for Keymap {
    fn default() -> Self {
        Self::from_bindings(default_bindings())
    }
}

impl Keymap {
    fn from_bindings(bindings: Vec<Binding>) -> Self {
        let index = bindings
            .iter()
            .map(|b| ((b.layer, b.key), b.action))
            .collect();
        Self { bindings, index }
    }

    /// The default table with the user's `[ui.keys]` applied: an `action = keys`
    /// entry replaces the action's keys in every layer it has keys in, a
    /// `[ui.keys.LAYER]` entry in that layer.
    pub fn with_overrides(
        overrides: &BTreeMap<String, toml::Spanned<KeyBindingSpec>>,
    ) -> Result<Self, Vec<KeymapError>> {
        let mut bindings = default_bindings();
        let (mut errors, origin) = parse::apply(&mut bindings, overrides, "ui.keys");
        errors.extend(conflicts(&bindings, &origin));
        if errors.is_empty() {
            Ok(Self::from_bindings(bindings))
        } else {
            Err(errors)
        }
    }

    /// The action for a key in a layer, falling back to the global layer.
    pub fn lookup(&self, layer: Layer, key: Key) -> Option<Action> {
        self.index
            .get(&(layer, key))
            .or_else(|| self.index.get(&(Layer::Global, key)))
            .copied()
    }

    /// All rows, in table order.
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The keys bound to an action in a layer (or globally), for hints.
    pub fn keys_for(&self, layer: Layer, action: Action) -> Vec<Key> {
        let in_layer = |l: Layer| {
            self.bindings
                .iter()
                .filter(move |b| b.action == action && b.layer == l)
                .map(|b| b.key)
        };
        in_layer(layer).chain(in_layer(Layer::Global)).collect()
    }

    /// The status-bar hints of a layer, in table order: (action, label, first key),
    /// one per action; `with_global` adds the global layer's after the layer's own.
    pub fn hints(&self, layer: Layer, with_global: bool) -> Vec<(Action, &str, String)> {
        let mut out: Vec<(Action, &str, String)> = Vec::new();
        let layers: &[Layer] = if with_global {
            &[layer, Layer::Global]
        } else {
            &[layer]
        };
        for l in layers {
            for b in self.bindings.iter().filter(|b| b.layer == *l) {
                if let Some(label) = b.label.as_deref()
                    && !out.iter().any(|(a, _, _)| *a == b.action)
                {
                    out.push((b.action, label, self.hint(layer, b.action)));
                }
            }
        }
        out
    }

    /// The first key for an action as text (`"?"`, `"Ctrl+P"`), or `"unbound"`.
    pub fn hint(&self, layer: Layer, action: Action) -> String {
        self.keys_for(layer, action)
            .first()
            .map_or_else(|| "unbound".to_string(), ToString::to_string)
    }
}

/// Two actions on one key in a layer, or a layer key that hides a global one.
fn conflicts(bindings: &[Binding], origin: &parse::Origins) -> Vec<KeymapError> {
    let mut seen: HashMap<(Layer, Key), Action> = HashMap::new();
    let mut errors = Vec::new();
    for b in bindings {
        let clash = seen
            .get(&(b.layer, b.key))
            .copied()
            .filter(|other| *other != b.action)
            .or_else(|| {
                (b.layer != Layer::Global)
                    .then(|| seen.get(&(Layer::Global, b.key)).copied())
                    .flatten()
                    .filter(|other| *other != b.action)
            })
            .or_else(|| {
                (b.layer == Layer::Global)
                    .then(|| {
                        seen.iter()
                            .find(|((l, k), a)| {
                                *k == b.key && *l != Layer::Global && **a != b.action
                            })
                            .map(|(_, a)| *a)
                    })
                    .flatten()
            });
        if let Some(other) = clash {
            let (span, key) = origin
                .get(&b.action)
                .or_else(|| origin.get(&other))
                .cloned()
                .unwrap_or_else(|| (0..0, "ui.keys".into()));
            errors.push(KeymapError {
                span,
                key,
                message: format!(
                    "key {} is bound to both `{}` and `{}` ({})",
                    b.key,
                    other.name(),
                    b.action.name(),
                    b.layer.title()
                ),
                hint: Some(format!(
                    "pick another key, or rebind `{}` too",
                    other.name()
                )),
            });
        } else {
            seen.insert((b.layer, b.key), b.action);
        }
    }
    errors
}

fn action_hint(name: &str) -> String {
    let best = Action::ALL
        .iter()
        .map(|a| (edit_distance(name, a.name()), a.name()))
        .min();
    match best {
        Some((d, candidate)) if d <= 3 => format!("did you mean `{candidate}`?"),
        _ => {
            let names: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
            format!("actions: {}", names.join(", "))
        }
    }
}

/// Levenshtein distance over chars, for "did you mean" hints.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests;
