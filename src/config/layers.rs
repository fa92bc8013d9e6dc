//! The config layers: the user's file always, a project's file on top of it, or one
//! file named with `--config`.
//!
//! Each file is read and checked on its own, so an error names the file it is in. A
//! project file may refer to what the user's file defines (`default_provider = "work"`
//! with `[providers.work]` in the user's file), so it is validated merged on top of
//! the user's. How much of a project applies ([`Reach`]) is for the caller to say:
//! the trust module decides it.

use std::path::{Path, PathBuf};

use toml::Table;

use super::error::ConfigError;
use super::load::decode_str;
use super::merge::{Reach, merge};
use super::model::Config;
use super::validate::{PartCheck, validate};
use crate::paths::{CandidateOrigin, Dirs};

/// One config file, read and decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub origin: CandidateOrigin,
    pub path: PathBuf,
    pub text: String,
    /// The file alone, decoded (defaults for what it leaves out).
    pub config: Config,
    /// The keys the file writes.
    pub set: Table,
}

/// The layers in force for one start, lowest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layers {
    /// `--config PATH`: the only layer when given.
    pub explicit: Option<Layer>,
    /// `$XDG_CONFIG_HOME/switchboard/config.toml`.
    pub user: Option<Layer>,
    /// `./switchboard.toml`.
    pub project: Option<Layer>,
}

impl Layers {
    /// Reads the layers: with `explicit`, that file alone (it must exist); else the
    /// user's file and the project's, each when it exists. Each is validated, with
    /// `parts` checking what other modules own.
    pub fn read(
        dirs: &Dirs,
        explicit: Option<&Path>,
        parts: PartCheck<'_>,
    ) -> Result<Self, ConfigError> {
        if let Some(path) = explicit {
            let layer = read_layer(&dirs.cwd.join(path), CandidateOrigin::Explicit)?;
            validate(&layer.config, &layer.path, &layer.text, parts)?;
            return Ok(Self {
                explicit: Some(layer),
                ..Self::default()
            });
        }
        let user = existing(&dirs.user_config_file())
            .map(|p| read_layer(&p, CandidateOrigin::User))
            .transpose()?;
        if let Some(user) = &user {
            validate(&user.config, &user.path, &user.text, parts)?;
        }
        let project = existing(&dirs.cwd.join(crate::paths::PROJECT_CONFIG_FILE))
            .map(|p| read_layer(&p, CandidateOrigin::Project))
            .transpose()?;
        let layers = Self {
            explicit: None,
            user,
            project,
        };
        if let Some(project) = &layers.project {
            // The whole project, trusted or not, must make sense on top of the user's
            // file: `config check` and the trust list speak of all of it.
            let merged = layers.config(Reach::Full)?;
            validate(&merged, &project.path, &project.text, parts)?;
        }
        Ok(layers)
    }

    /// The configuration these layers make, with `project` of the project's keys.
    pub fn config(&self, project: Reach) -> Result<Config, ConfigError> {
        if let Some(explicit) = &self.explicit {
            return Ok(explicit.config.clone());
        }
        let base = self
            .user
            .as_ref()
            .map(|u| u.config.clone())
            .unwrap_or_default();
        let Some(layer) = &self.project else {
            return Ok(base);
        };
        merge(&base, &layer.config, &layer.set, project, true).map_err(|e| {
            ConfigError::at(
                &layer.path,
                &layer.text,
                0..0,
                String::new(),
                e.to_string(),
                None,
            )
        })
    }
}

fn existing(path: &Path) -> Option<PathBuf> {
    path.is_file().then(|| path.to_path_buf())
}

/// Reads and decodes one file (shape only).
fn read_layer(path: &Path, origin: CandidateOrigin) -> Result<Layer, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let config = decode_str(&text, path)?;
    // The text decoded, so it parses as a table too.
    let set = text.parse::<Table>().unwrap_or_default();
    Ok(Layer {
        origin,
        path: path.to_path_buf(),
        text,
        config,
        set,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::no_part_checks;

    fn dirs(root: &Path) -> Dirs {
        let cwd = root.join("work");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(root.join("config/switchboard")).unwrap();
        Dirs::new(
            cwd,
            root.join("config"),
            root.join("state"),
            root.join("data"),
        )
    }

    #[test]
    fn a_project_may_name_the_users_provider_and_errors_name_their_file() {
        let tmp = tempfile::tempdir().unwrap();
        let d = dirs(tmp.path());
        std::fs::write(
            d.user_config_file(),
            "[providers.work]\nkind = \"openai\"\n",
        )
        .unwrap();
        std::fs::write(
            d.cwd.join("switchboard.toml"),
            "default_provider = \"work\"\n",
        )
        .unwrap();
        let layers = Layers::read(&d, None, &no_part_checks).unwrap();
        let full = layers.config(Reach::Full).unwrap();
        assert_eq!(full.default_provider.as_deref(), Some("work"));
        let cosmetic = layers.config(Reach::Cosmetic).unwrap();
        assert_eq!(cosmetic.default_provider, None);

        std::fs::write(
            d.cwd.join("switchboard.toml"),
            "default_provider = \"wrok\"\n",
        )
        .unwrap();
        let err = Layers::read(&d, None, &no_part_checks)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!("{}:1:", d.cwd.join("switchboard.toml").display())),
            "{err}"
        );
        assert!(err.contains("did you mean `work`"), "{err}");

        std::fs::write(d.user_config_file(), "[polcy]\n").unwrap();
        let err = Layers::read(&d, None, &no_part_checks)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&d.user_config_file().display().to_string()),
            "{err}"
        );
    }

    #[test]
    fn an_explicit_file_is_the_only_layer() {
        let tmp = tempfile::tempdir().unwrap();
        let d = dirs(tmp.path());
        std::fs::write(d.user_config_file(), "[servers.u]\ncommand = \"u\"\n").unwrap();
        std::fs::write(d.cwd.join("x.toml"), "[servers.x]\ncommand = \"x\"\n").unwrap();
        let layers = Layers::read(&d, Some(Path::new("x.toml")), &no_part_checks).unwrap();
        let config = layers.config(Reach::Full).unwrap();
        assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["x"]);
        assert!(Layers::read(&d, Some(Path::new("nope.toml")), &no_part_checks).is_err());
    }
}
