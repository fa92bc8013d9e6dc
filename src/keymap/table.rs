//! The built-in key table: `default.toml`, read with the parser of `[ui.keys]`.

use std::sync::LazyLock;

use super::action::{Action, Layer};
use super::key::Key;
use super::parse::{Entries, apply};

/// The built-in table, in the syntax of `[ui.keys.LAYER]`.
pub const DEFAULT_TOML: &str = include_str!("default.toml");

/// One row of the key table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub layer: Layer,
    pub key: Key,
    pub action: Action,
    /// What the help overlay says about the action in this layer.
    pub help: String,
    /// The short label the status bar shows for this action in this layer (`send`,
    /// `approve`); `None` keeps it to the help overlay.
    pub label: Option<String>,
}

static DEFAULT: LazyLock<Vec<Binding>> = LazyLock::new(|| {
    built_in().unwrap_or_else(|problems| {
        // A unit test keeps this from happening; should it, the keys are unbound
        // rather than the program stopped.
        for problem in problems {
            tracing::error!("built-in key table: {problem}");
        }
        Vec::new()
    })
});

/// The built-in bindings. The help overlay, the status hints and the docs' key
/// reference are generated from these.
pub fn default_bindings() -> Vec<Binding> {
    DEFAULT.clone()
}

/// `default.toml` read into bindings, or what is wrong with it (`default.toml:LINE:
/// key: message`).
pub(super) fn built_in() -> Result<Vec<Binding>, Vec<String>> {
    let entries: Entries = toml::from_str(DEFAULT_TOML).map_err(|e| vec![e.to_string()])?;
    let mut bindings = Vec::new();
    let (mut errors, origin) = apply(&mut bindings, &entries, "");
    errors.extend(super::conflicts(&bindings, &origin));
    let mut problems: Vec<String> = entries
        .iter()
        .filter(|(_, spec)| !matches!(spec.get_ref(), crate::config::KeyBindingSpec::Layer(_)))
        .map(|(name, _)| format!("`{name}` is outside a layer section"))
        .collect();
    problems.extend(errors.iter().map(|e| {
        let line = DEFAULT_TOML
            .get(..e.span.start)
            .map_or(0, |text| text.matches('\n').count())
            + 1;
        format!("default.toml:{line}: {}: {}", e.key, e.message)
    }));
    if problems.is_empty() {
        Ok(bindings)
    } else {
        Err(problems)
    }
}
