//! What the TUI remembers between runs that is not configuration: the theme chosen in
//! the palette and whether the mouse is captured (`$XDG_STATE_HOME/switchboard/ui.json`).
//! A `--theme` flag wins over it, and it wins over `[ui]` in the config.

use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiPrefs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mouse: Option<bool>,
}

/// The remembered choices; nothing (not an error) when the file is missing or broken.
pub fn load(path: &Path) -> UiPrefs {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// Writes the choices (the file is created readable by its owner only).
pub fn save(path: &Path, prefs: &UiPrefs) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(prefs).map_err(std::io::Error::other)?;
    crate::paths::write_private(path, format!("{text}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_missing_file() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("state/ui.json");
        assert_eq!(load(&path), UiPrefs::default());
        let prefs = UiPrefs {
            theme: Some("light".into()),
            mouse: Some(false),
        };
        save(&path, &prefs).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(load(&path), prefs);
        std::fs::write(&path, "not json").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(load(&path), UiPrefs::default());
    }
}
