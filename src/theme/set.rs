//! Finding themes by name: user files shadow built-ins; `extends` chains are followed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Theme;
use super::builtin::{self, Builtin};
use super::error::ThemeError;
use super::file::{self, ThemeFile};
use super::resolve::resolve;

/// The themes available to load: the built-ins plus `USER_DIR/NAME.toml` files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThemeSet {
    user_dir: Option<PathBuf>,
}

/// Where one theme in a chain comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    User(PathBuf),
    Builtin(Builtin),
}

impl ThemeSet {
    /// Themes from `user_dir` (typically `$XDG_CONFIG_HOME/switchboard/themes`) and the
    /// built-ins. A missing directory just means no user themes.
    pub fn new(user_dir: Option<PathBuf>) -> Self {
        Self { user_dir }
    }

    pub fn user_dir(&self) -> Option<&Path> {
        self.user_dir.as_deref()
    }

    /// Loads theme `name`, following `extends`. A user file `USER_DIR/NAME.toml` takes
    /// the place of the built-in of the same name; a user file that extends its own name
    /// extends the built-in it shadows.
    pub fn load(&self, name: &str) -> Result<Theme, ThemeError> {
        let mut origin = self.find(name, false).ok_or_else(|| self.not_found(name))?;
        let mut current = name.to_owned();
        let mut visited: Vec<(String, Origin)> = Vec::new();
        let mut chain: Vec<ThemeFile> = Vec::new();
        loop {
            if let Some(first) = visited.iter().position(|(_, seen)| *seen == origin) {
                return Err(cycle(&visited[first..], current));
            }
            let file = read(&origin)?;
            let extends = file.extends.clone();
            chain.push(file);
            let shadows_itself = matches!(origin, Origin::User(_));
            visited.push((current.clone(), origin));
            let Some(parent) = extends else { break };
            let skip_user = shadows_itself && parent.value == current;
            origin = match self.find(&parent.value, skip_user) {
                Some(found) => found,
                None if skip_user => {
                    // A user theme extending its own name with no built-in behind it.
                    return Err(cycle(&visited[visited.len() - 1..], parent.value));
                }
                None => {
                    return Err(parent.at.error(format!(
                        "extends unknown theme `{}` (available: {})",
                        parent.value,
                        self.names().join(", ")
                    )));
                }
            };
            current = parent.value;
        }
        chain.reverse();
        resolve(name, &chain)
    }

    /// Every loadable theme name: built-ins and user files, sorted, without duplicates.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = builtin::BUILTINS
            .iter()
            .map(|builtin| builtin.name.to_owned())
            .collect();
        if let Some(entries) = self.user_dir.as_ref().and_then(|dir| dir.read_dir().ok()) {
            for entry in entries.flatten() {
                let path = entry.path();
                let is_toml = path.extension().is_some_and(|ext| ext == "toml");
                let stem = path.file_stem().and_then(|stem| stem.to_str());
                if let Some(stem) = stem.filter(|stem| is_valid_name(stem))
                    && is_toml
                    && path.is_file()
                {
                    names.push(stem.to_owned());
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }

    fn find(&self, name: &str, skip_user: bool) -> Option<Origin> {
        if !is_valid_name(name) {
            return None;
        }
        if let Some(dir) = self.user_dir.as_ref().filter(|_| !skip_user) {
            let path = dir.join(format!("{name}.toml"));
            if path.is_file() {
                return Some(Origin::User(path));
            }
        }
        builtin::find(name).map(Origin::Builtin)
    }

    fn not_found(&self, name: &str) -> ThemeError {
        ThemeError::NotFound {
            name: name.to_owned(),
            available: self.names(),
        }
    }
}

/// Theme names are file stems: no path separators, not hidden, not empty.
fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}

fn read(origin: &Origin) -> Result<ThemeFile, ThemeError> {
    match origin {
        Origin::User(path) => {
            let text = std::fs::read_to_string(path).map_err(|source| ThemeError::Read {
                path: path.clone(),
                source,
            })?;
            let display: Arc<str> = path.display().to_string().into();
            file::parse(&display, &text)
        }
        Origin::Builtin(builtin) => file::parse(&builtin.display_path().into(), builtin.source),
    }
}

/// `loop_` is the part of the chain from the first visit of `back_to` onwards.
fn cycle(loop_: &[(String, Origin)], back_to: String) -> ThemeError {
    let mut chain: Vec<String> = loop_.iter().map(|(name, _)| name.clone()).collect();
    chain.push(back_to);
    ThemeError::Cycle {
        name: chain[0].clone(),
        chain,
    }
}
