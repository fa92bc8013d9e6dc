//! Skills: `ROOT/NAME/SKILL.md` files of instructions the model may read, loaded with
//! limits, hashed, and handed out only as marked, untrusted reference text.

mod front_matter;
mod loader;

use std::fmt;
use std::path::{Path, PathBuf};

pub use front_matter::FrontMatterError;
pub use loader::{SKILL_FILE, load_skill, load_skills, valid_name};

use crate::config::SkillsConfig;
use crate::paths::{APP_DIR, Dirs};

/// Limits on what the loader reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkillLimits {
    pub max_file_bytes: u64,
    pub max_skills: usize,
    pub max_front_matter_lines: usize,
    /// Directory entries scanned per root.
    pub max_entries: usize,
}

impl Default for SkillLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: 256_000,
            max_skills: 128,
            max_front_matter_lines: 32,
            max_entries: 1024,
        }
    }
}

/// One loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub version: Option<String>,
    /// Hex sha256 of the whole `SKILL.md`.
    pub sha256: String,
    /// The `SKILL.md` file.
    pub path: PathBuf,
    /// The text after the front matter.
    pub body: String,
}

/// Why an entry was not loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkipReason {
    #[error("symbolic links are not followed")]
    Symlink,
    #[error("no {SKILL_FILE} in the directory")]
    MissingSkillFile,
    #[error("{SKILL_FILE} is not a regular file")]
    NotAFile,
    #[error("{SKILL_FILE} has {0} hard links; hard-linked skill files are refused")]
    HardLinked(u64),
    #[error("{SKILL_FILE} is {size} bytes, more than the limit of {max}")]
    TooLarge { size: u64, max: u64 },
    #[error("{SKILL_FILE} is not UTF-8")]
    NotUtf8,
    #[error("{SKILL_FILE} has no front matter (it must start with `---`)")]
    MissingFrontMatter,
    #[error("the front matter is longer than {0} lines")]
    FrontMatterTooLong(usize),
    #[error("front matter line {line} is not `key: value`: {text:?}")]
    BadFrontMatter { line: usize, text: String },
    #[error("the front matter has no `{0}`")]
    MissingField(&'static str),
    #[error("`{0}` is not a valid skill name (lower-case letters, digits and `-`)")]
    InvalidName(String),
    #[error("the name `{name}` differs from the folder `{folder}`")]
    NameMismatch { name: String, folder: String },
    #[error("a skill of this name was already loaded from {}", first.display())]
    Duplicate { first: PathBuf },
    #[error("more than {0} skills; this one was not loaded")]
    TooManySkills(usize),
    #[error("more than {0} directory entries; the rest were not scanned")]
    TooManyEntries(usize),
    #[error("the file changed while it was being read")]
    Changed,
    #[error("{0}")]
    Io(String),
}

/// An entry that was not loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedSkill {
    pub path: PathBuf,
    pub reason: SkipReason,
}

impl fmt::Display for SkippedSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

/// The loaded skills and the load report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillSet {
    pub skills: Vec<Skill>,
    pub skipped: Vec<SkippedSkill>,
}

impl SkillSet {
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// Skills the allowlist admits (all when `None`).
    pub fn visible<'a>(&'a self, allow: Option<&'a [String]>) -> impl Iterator<Item = &'a Skill> {
        self.skills
            .iter()
            .filter(move |s| allow.is_none_or(|names| names.contains(&s.name)))
    }

    fn skip(&mut self, path: &Path, reason: SkipReason) {
        self.skipped.push(SkippedSkill {
            path: path.to_path_buf(),
            reason,
        });
    }
}

/// The roots to search: `[skills] paths` (relative ones from `workspace`) when set,
/// else `WORKSPACE/skills` then `$XDG_CONFIG_HOME/switchboard/skills`.
pub fn skill_roots(config: &SkillsConfig, dirs: &Dirs, workspace: &Path) -> Vec<PathBuf> {
    if config.paths.is_empty() {
        vec![
            workspace.join("skills"),
            dirs.config_home.join(APP_DIR).join("skills"),
        ]
    } else {
        config.paths.iter().map(|p| workspace.join(p)).collect()
    }
}

/// Loads the configured skills; configured roots that do not exist are reported.
pub fn load_configured(config: &SkillsConfig, dirs: &Dirs, workspace: &Path) -> SkillSet {
    let roots = skill_roots(config, dirs, workspace);
    load_skills(&roots, &SkillLimits::default(), !config.paths.is_empty())
}
