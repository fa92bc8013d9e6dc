//! Confining paths to a root directory: lexical check, per-component symlink refusal,
//! canonical check, and a re-check after opening (same device and inode).

use std::fmt;
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Called between the path check and the open (tests use it to swap in a symlink).
pub type RaceHook = Arc<dyn Fn(&Path) + Send + Sync>;

/// Why a path was refused or could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("refused: the path contains a NUL byte")]
    Nul,
    #[error(
        "refused: {0} is outside the root {1}; give a path relative to the root (absolute paths must lie inside it)"
    )]
    Outside(String, String),
    #[error("refused: `..` is not allowed in paths ({0})")]
    ParentDir(String),
    #[error("refused: {0} is a symbolic link; symlinks are never followed")]
    Symlink(String),
    #[error("refused: {0} is not a directory")]
    NotADirectory(String),
    #[error("refused: {0} changed while it was being opened (a symlink or file was swapped in)")]
    Changed(String),
    #[error("refused: {0} resolves outside the root")]
    Escapes(String),
    #[error("{0}: {1}")]
    Io(String, io::Error),
}

/// A directory every path is confined to.
#[derive(Clone)]
pub struct Root {
    /// Canonical.
    dir: PathBuf,
    race_hook: Option<RaceHook>,
}

impl fmt::Debug for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Root")
            .field("dir", &self.dir)
            .field("race_hook", &self.race_hook.is_some())
            .finish()
    }
}

/// A checked path: relative display form and full path under the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confined {
    /// Normalised, relative to the root; empty for the root itself.
    pub rel: PathBuf,
    pub full: PathBuf,
    /// The first component (index into `rel`'s components) that does not exist yet.
    pub missing_from: Option<usize>,
}

impl Confined {
    /// How the path is shown in messages: relative, `.` for the root.
    pub fn shown(&self) -> String {
        if self.rel.as_os_str().is_empty() {
            ".".into()
        } else {
            self.rel.display().to_string()
        }
    }

    pub fn exists(&self) -> bool {
        self.missing_from.is_none()
    }

    pub fn is_root(&self) -> bool {
        self.rel.as_os_str().is_empty()
    }
}

impl Root {
    /// `dir` must exist; it is canonicalised once here.
    pub fn new(dir: &Path) -> io::Result<Self> {
        let dir = dir.canonicalize()?;
        if !dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{} is not a directory", dir.display()),
            ));
        }
        Ok(Self {
            dir,
            race_hook: None,
        })
    }

    /// Test hook run after every check, before the open it guards.
    #[doc(hidden)]
    #[must_use]
    pub fn with_race_hook(mut self, hook: RaceHook) -> Self {
        self.race_hook = Some(hook);
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Checks `path` (relative, or absolute inside the root) and every existing
    /// component of it.
    pub fn resolve(&self, path: &str) -> Result<Confined, PathError> {
        let rel = self.lexical(path)?;
        let confined = self.walk(rel)?;
        self.canonical_check(&confined)?;
        Ok(confined)
    }

    /// Runs the race hook (tests only); call between a check and the open it guards.
    pub fn before_open(&self, confined: &Confined) {
        if let Some(hook) = &self.race_hook {
            hook(&confined.full);
        }
    }

    /// After opening: the path still has no symlink component and names the very file
    /// that was opened.
    pub fn recheck(&self, confined: &Confined, opened: &Metadata) -> Result<(), PathError> {
        let again = self.walk(confined.rel.clone())?;
        self.canonical_check(&again)?;
        let now = std::fs::symlink_metadata(&confined.full)
            .map_err(|_| PathError::Changed(confined.shown()))?;
        if now.dev() != opened.dev() || now.ino() != opened.ino() {
            return Err(PathError::Changed(confined.shown()));
        }
        Ok(())
    }

    /// Opens an existing file for reading without following a final symlink, then
    /// re-checks it.
    pub fn open_read(&self, confined: &Confined) -> Result<(File, Metadata), PathError> {
        self.before_open(confined);
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(nofollow())
            .open(&confined.full)
            .map_err(|e| open_error(confined, e))?;
        let meta = file
            .metadata()
            .map_err(|e| PathError::Io(confined.shown(), e))?;
        self.recheck(confined, &meta)?;
        Ok((file, meta))
    }

    fn lexical(&self, path: &str) -> Result<PathBuf, PathError> {
        if path.contains('\0') {
            return Err(PathError::Nul);
        }
        let given = Path::new(path);
        let relative = if given.is_absolute() {
            given
                .strip_prefix(&self.dir)
                .map_err(|_| PathError::Outside(path.to_owned(), self.dir.display().to_string()))?
        } else {
            given
        };
        let mut rel = PathBuf::new();
        for component in relative.components() {
            match component {
                Component::Normal(name) => rel.push(name),
                Component::CurDir => {}
                Component::ParentDir => return Err(PathError::ParentDir(path.to_owned())),
                Component::RootDir | Component::Prefix(_) => {
                    return Err(PathError::Outside(
                        path.to_owned(),
                        self.dir.display().to_string(),
                    ));
                }
            }
        }
        Ok(rel)
    }

    /// Refuses any existing component that is a symlink (or a non-directory parent).
    fn walk(&self, rel: PathBuf) -> Result<Confined, PathError> {
        let mut full = self.dir.clone();
        let count = rel.components().count();
        let mut missing_from = None;
        let mut shown = PathBuf::new();
        for (i, component) in rel.components().enumerate() {
            full.push(component);
            shown.push(component);
            if missing_from.is_some() {
                continue;
            }
            match std::fs::symlink_metadata(&full) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(PathError::Symlink(shown.display().to_string()));
                }
                Ok(meta) if i + 1 < count && !meta.is_dir() => {
                    return Err(PathError::NotADirectory(shown.display().to_string()));
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => missing_from = Some(i),
                Err(e) => return Err(PathError::Io(shown.display().to_string(), e)),
            }
        }
        Ok(Confined {
            rel,
            full,
            missing_from,
        })
    }

    /// The deepest existing ancestor, canonicalised, lies inside the root.
    fn canonical_check(&self, confined: &Confined) -> Result<(), PathError> {
        let existing: PathBuf = match confined.missing_from {
            None => confined.full.clone(),
            Some(n) => confined
                .rel
                .components()
                .take(n)
                .fold(self.dir.clone(), |p, c| p.join(c)),
        };
        let canonical = existing
            .canonicalize()
            .map_err(|e| PathError::Io(confined.shown(), e))?;
        if canonical.starts_with(&self.dir) {
            Ok(())
        } else {
            Err(PathError::Escapes(confined.shown()))
        }
    }
}

/// `O_NOFOLLOW` for `OpenOptionsExt::custom_flags`.
pub fn nofollow() -> i32 {
    i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0)
}

fn open_error(confined: &Confined, e: io::Error) -> PathError {
    // ELOOP: the last component became a symlink after the check.
    if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
        PathError::Changed(confined.shown())
    } else {
        PathError::Io(confined.shown(), e)
    }
}
