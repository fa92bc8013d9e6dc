//! The load step above `config`, `policy`, `hooks` and `keymap`.
//!
//! `config` reads, merges and checks the files by its own rules; the parts other
//! modules own (policy rules, hooks, key bindings) are checked here by those modules,
//! so every error still names its file, line and key, the first in the file is
//! reported, and `config` depends on none of them. The front ends read configuration
//! through this module.

use std::path::Path;

use crate::config::{Config, ConfigError, Layers, PartProblem};
use crate::paths::Dirs;

/// What policy, hooks and keymap find wrong in `config`, each at its value.
pub fn parts(config: &Config) -> Vec<PartProblem> {
    let mut problems = Vec::new();
    if let Err(errors) = crate::policy::Policy::from_config(&config.policy) {
        problems.extend(errors.into_iter().map(|e| PartProblem {
            span: e.span,
            key: e.key,
            message: e.message,
            hint: None,
        }));
    }
    if let Err(errors) = crate::hooks::Hooks::from_config(&config.hooks) {
        problems.extend(errors.into_iter().map(|e| PartProblem {
            span: e.span,
            key: e.key,
            message: e.message,
            hint: e.hint,
        }));
    }
    if let Err(errors) = crate::keymap::Keymap::with_overrides(&config.ui.keys) {
        problems.extend(errors.into_iter().map(|e| PartProblem {
            span: e.span,
            key: e.key,
            message: e.message,
            hint: e.hint,
        }));
    }
    problems
}

/// Parses and validates config `text` wholly; `path` is only used in error messages.
pub fn parse_str(text: &str, path: &Path) -> Result<Config, ConfigError> {
    crate::config::parse_checked(text, path, &parts)
}

/// Reads the config layers (see [`Layers::read`]), each checked wholly.
pub fn read_layers(dirs: &Dirs, explicit: Option<&Path>) -> Result<Layers, ConfigError> {
    Layers::read(dirs, explicit, &parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "[policy]\nalways_ask = [\"github__[x\"]\n\n[mcp]\nwire_capacity = 0\n";

    #[test]
    fn config_alone_checks_its_own_rules_and_the_load_step_adds_the_parts() {
        let path = Path::new("s.toml");
        let own = crate::config::parse_str("[policy]\nalways_ask = [\"github__[x\"]\n", path);
        assert!(own.is_ok(), "config does not know policy globs: {own:?}");
        let whole = parse_str(TEXT, path).map(|_| ()).map_err(|e| e.to_string());
        let error = whole.expect_err("the bad glob is found");
        assert!(
            error.starts_with("s.toml:2:"),
            "the earliest problem first: {error}"
        );
        assert!(error.contains("policy.always_ask[0]"), "{error}");
    }

    #[test]
    fn a_clean_file_has_no_part_problems() {
        let config = parse_str(
            "[policy]\nalways_ask = [\"github__*\"]\n",
            Path::new("s.toml"),
        );
        assert!(config.is_ok_and(|c| parts(&c).is_empty()));
    }
}
