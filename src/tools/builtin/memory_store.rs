//! The memory directory behind `/memories`: the six commands of Anthropic's
//! `memory_20250818` tool, with its result and error texts.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::args::ArgError;
use super::confine::{Confined, PathError, Root};
use super::fs::FsError;
use super::fs_read::read_capped;
use super::fs_write;
use crate::config::FsToolConfig;

/// The virtual directory memory paths live under.
pub const MEMORIES: &str = "/memories";
/// Largest memory file read or written.
pub const MAX_MEMORY_FILE: u64 = 1024 * 1024;
const MAX_LINES: usize = 999_999;

/// A memory command's result text, or why it failed.
pub type MemoryResult = Result<String, MemoryError>;

/// Why a memory command failed; the message is what the model reads (the texts of
/// Anthropic's `memory_20250818` tool).
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(
        "Error: The path {path} is not allowed: memory paths must start with {}",
        MEMORIES
    )]
    OutsideMemories { path: String },
    #[error("Error: The path {path} is not a valid memory path")]
    InvalidPath { path: String },
    #[error("Error: The path {path} is not allowed: {source}")]
    NotAllowed {
        path: String,
        #[source]
        source: PathError,
    },
    /// What `view` says about a missing path.
    #[error("The path {path} does not exist. Please provide a valid path.")]
    Missing { path: String },
    /// What `str_replace` says about a file it cannot read.
    #[error("Error: The path {path} does not exist. Please provide a valid path.")]
    MissingFile { path: String },
    #[error("Error: The path {path} does not exist")]
    NotFound { path: String },
    #[error("Error: {0}")]
    Fs(#[from] FsError),
    #[error("Error: {path} is larger than {} bytes", MAX_MEMORY_FILE)]
    TooLarge { path: String },
    #[error("File {path} exceeds maximum line limit of 999,999 lines.")]
    TooManyLines { path: String },
    #[error(
        "Error: Invalid `view_range`: [{start}, {end}]. Its first element `{start}` should be within the range of lines of the file: [1, {lines}]"
    )]
    ViewStart { start: i64, end: i64, lines: usize },
    #[error(
        "Error: Invalid `view_range`: [{start}, {end}]. Its second element `{end}` should be -1 or within [{start}, {lines}]"
    )]
    ViewEnd { start: i64, end: i64, lines: usize },
    #[error("Error: `view_range` must be two integers [start, end]")]
    ViewRangeShape,
    #[error("Error: File {path} already exists")]
    Exists { path: String },
    #[error("No replacement was performed, old_str `{old}` did not appear verbatim in {path}.")]
    NoMatch { old: String, path: String },
    #[error(
        "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {}. Please ensure it is unique",
        joined(.lines)
    )]
    Ambiguous { old: String, lines: Vec<usize> },
    #[error(
        "Error: Invalid `insert_line` parameter: {after}. It should be within the range of lines of the file: [0, {lines}]"
    )]
    InsertLine { after: u64, lines: usize },
    #[error("Error: Cannot delete the {} directory itself", MEMORIES)]
    DeleteRoot,
    #[error("Error: Cannot rename the {} directory itself", MEMORIES)]
    RenameRoot,
    #[error("Error: The destination {path} already exists")]
    DestinationExists { path: String },
    #[error("Error: Cannot move {old} into itself ({new})")]
    IntoItself { old: String, new: String },
    /// Removing `path` or creating its parent directories failed.
    #[error("Error: {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("Error: {0}")]
    Rename(#[source] std::io::Error),
    #[error("Error: {0}")]
    Arg(#[from] ArgError),
    #[error(
        "Error: Unknown command `{command}`: use view, create, str_replace, insert, delete or rename"
    )]
    UnknownCommand { command: String },
    /// The memory directory itself cannot be used.
    #[error("{}: {source}", .dir.display())]
    Root {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn joined(lines: &[usize]) -> String {
    lines
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `/memories` mapped onto a directory.
#[derive(Debug, Clone)]
pub struct MemoryStore {
    root: Root,
}

impl MemoryStore {
    pub fn new(root: Root) -> Self {
        Self { root }
    }

    pub fn dir(&self) -> &Path {
        self.root.dir()
    }

    /// Maps `/memories/...` to a checked path under the directory.
    pub fn locate(&self, path: &str) -> Result<Confined, MemoryError> {
        let rest = if path == MEMORIES {
            ""
        } else if let Some(rest) = path.strip_prefix("/memories/") {
            rest
        } else {
            return Err(MemoryError::OutsideMemories { path: path.into() });
        };
        if rest.starts_with('/') {
            return Err(MemoryError::InvalidPath { path: path.into() });
        }
        self.root
            .resolve(rest)
            .map_err(|source| MemoryError::NotAllowed {
                path: path.into(),
                source,
            })
    }

    /// The text of a memory file (at most [`MAX_MEMORY_FILE`] bytes).
    pub fn read_text(&self, path: &str) -> MemoryResult {
        let confined = self.locate(path)?;
        if !confined.exists() {
            return Err(MemoryError::Missing { path: path.into() });
        }
        let capped = read_capped(&self.root, &confined, MAX_MEMORY_FILE)?;
        if capped.truncated {
            return Err(MemoryError::TooLarge { path: path.into() });
        }
        Ok(capped.text)
    }

    pub fn view(&self, path: &str, range: Option<(i64, i64)>) -> MemoryResult {
        let confined = self.locate(path)?;
        if !confined.exists() {
            return Err(MemoryError::Missing { path: path.into() });
        }
        if confined.full.is_dir() {
            return Ok(view_dir(path, &confined));
        }
        let text = self.read_text(path)?;
        let lines: Vec<&str> = text.lines().collect();
        if lines.len() > MAX_LINES {
            return Err(MemoryError::TooManyLines { path: path.into() });
        }
        let (start, end) = match range {
            None => (1, lines.len()),
            Some(r) => check_range(r, lines.len())?,
        };
        let mut out = format!("Here's the content of {path} with line numbers:\n");
        out.push_str(&numbered(&lines, start, end));
        Ok(out)
    }

    pub fn create(&self, path: &str, text: &str) -> MemoryResult {
        let confined = self.locate(path)?;
        if confined.exists() {
            return Err(MemoryError::Exists { path: path.into() });
        }
        self.write(&confined, text)?;
        Ok(format!("File created successfully at: {path}"))
    }

    /// The content after replacing the single `old` with `new`.
    pub fn replaced(&self, path: &str, old: &str, new: &str) -> MemoryResult {
        let text = self
            .read_text(path)
            .map_err(|_| MemoryError::MissingFile { path: path.into() })?;
        let starts: Vec<usize> = text.match_indices(old).map(|(i, _)| i).collect();
        match starts.as_slice() {
            [] => Err(MemoryError::NoMatch {
                old: old.into(),
                path: path.into(),
            }),
            [_] => Ok(text.replacen(old, new, 1)),
            many => {
                let lines = many
                    .iter()
                    .map(|&i| text[..i].matches('\n').count() + 1)
                    .collect();
                Err(MemoryError::Ambiguous {
                    old: old.into(),
                    lines,
                })
            }
        }
    }

    pub fn str_replace(&self, path: &str, old: &str, new: &str) -> MemoryResult {
        let updated = self.replaced(path, old, new)?;
        let confined = self.locate(path)?;
        self.write(&confined, &updated)?;
        let at = updated.find(new).unwrap_or(0);
        let line = updated[..at].matches('\n').count() + 1;
        let lines: Vec<&str> = updated.lines().collect();
        let first = line.saturating_sub(4).max(1);
        let last = (line + new.matches('\n').count() + 4).min(lines.len());
        Ok(format!(
            "The memory file has been edited. Here's the result of running `cat -n` on a snippet of {path}:\n{}",
            numbered(&lines, first, last)
        ))
    }

    /// The content after inserting `insert` after line `after` (0: at the top).
    pub fn inserted(&self, path: &str, after: u64, insert: &str) -> MemoryResult {
        let text = self
            .read_text(path)
            .map_err(|_| MemoryError::NotFound { path: path.into() })?;
        let mut lines: Vec<&str> = text.lines().collect();
        let n = lines.len();
        let at = usize::try_from(after)
            .ok()
            .filter(|&a| a <= n)
            .ok_or(MemoryError::InsertLine { after, lines: n })?;
        let new_lines: Vec<&str> = insert.lines().collect();
        lines.splice(at..at, new_lines);
        let mut out = lines.join("\n");
        if text.ends_with('\n') || text.is_empty() {
            out.push('\n');
        }
        Ok(out)
    }

    pub fn insert(&self, path: &str, after: u64, insert: &str) -> MemoryResult {
        let updated = self.inserted(path, after, insert)?;
        let confined = self.locate(path)?;
        self.write(&confined, &updated)?;
        Ok(format!("The file {path} has been edited."))
    }

    pub fn delete(&self, path: &str) -> MemoryResult {
        let confined = self.locate(path)?;
        if confined.is_root() {
            return Err(MemoryError::DeleteRoot);
        }
        if !confined.exists() {
            return Err(MemoryError::NotFound { path: path.into() });
        }
        let removed = if confined.full.is_dir() {
            // remove_dir_all never follows symlinks inside the tree.
            std::fs::remove_dir_all(&confined.full)
        } else {
            std::fs::remove_file(&confined.full)
        };
        removed.map_err(|source| MemoryError::Io {
            path: path.into(),
            source,
        })?;
        Ok(format!("Successfully deleted {path}"))
    }

    pub fn rename(&self, old: &str, new: &str) -> MemoryResult {
        let from = self.locate(old)?;
        let to = self.locate(new)?;
        if from.is_root() || to.is_root() {
            return Err(MemoryError::RenameRoot);
        }
        if !from.exists() {
            return Err(MemoryError::NotFound { path: old.into() });
        }
        if to.exists() {
            return Err(MemoryError::DestinationExists { path: new.into() });
        }
        if to.full.starts_with(&from.full) {
            return Err(MemoryError::IntoItself {
                old: old.into(),
                new: new.into(),
            });
        }
        if let Some(parent) = to.full.parent() {
            std::fs::create_dir_all(parent).map_err(|source| MemoryError::Io {
                path: new.into(),
                source,
            })?;
        }
        std::fs::rename(&from.full, &to.full).map_err(MemoryError::Rename)?;
        Ok(format!("Successfully renamed {old} to {new}"))
    }

    fn write(&self, confined: &Confined, text: &str) -> Result<(), MemoryError> {
        let limits = FsToolConfig {
            max_write_bytes: MAX_MEMORY_FILE,
            ..FsToolConfig::default()
        };
        fs_write::write(&self.root, &limits, &confined.rel.to_string_lossy(), text)
            .map(|_| ())
            .map_err(MemoryError::Fs)
    }
}

fn view_dir(path: &str, confined: &Confined) -> String {
    let mut out = format!(
        "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items and node_modules:\n"
    );
    let _ = writeln!(out, "{}\t{path}", human_size(tree_size(&confined.full)));
    let shown = path.trim_end_matches('/');
    for (rel, size) in walk(&confined.full, 2) {
        let _ = writeln!(out, "{}\t{shown}/{rel}", human_size(size));
    }
    out
}

fn check_range((start, end): (i64, i64), n: usize) -> Result<(usize, usize), MemoryError> {
    let n_i = i64::try_from(n).unwrap_or(i64::MAX);
    if start < 1 || start > n_i.max(1) {
        return Err(MemoryError::ViewStart {
            start,
            end,
            lines: n,
        });
    }
    if end != -1 && (end < start || end > n_i) {
        return Err(MemoryError::ViewEnd {
            start,
            end,
            lines: n,
        });
    }
    let last = if end == -1 { n_i } else { end };
    Ok((
        usize::try_from(start).unwrap_or(1),
        usize::try_from(last).unwrap_or(n),
    ))
}

/// Lines `start..=end` (1-based), each as a 6-wide right-aligned number, a tab, the line.
pub fn numbered(lines: &[&str], start: usize, end: usize) -> String {
    let mut out = String::new();
    for (i, line) in lines
        .iter()
        .enumerate()
        .skip(start.saturating_sub(1))
        .take(end + 1 - start.min(end + 1))
    {
        let _ = writeln!(out, "{:>6}\t{line}", i + 1);
    }
    out
}

/// Sizes as `du -h` writes them: `512`, `4.0K`, `1.2M`.
pub fn human_size(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    if bytes < 1024 {
        bytes.to_string()
    } else if bytes < 1024 * 1024 {
        format!("{:.1}K", b / 1024.0)
    } else {
        format!("{:.1}M", b / (1024.0 * 1024.0))
    }
}

fn visible(name: &str) -> bool {
    !name.starts_with('.') && name != "node_modules"
}

/// Entries (relative path, size) up to `depth` levels, sorted, hidden items skipped;
/// directories end in `/` and their size is the total of the files below them.
pub fn walk(dir: &Path, depth: usize) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    walk_into(dir, &PathBuf::new(), depth, &mut out);
    out
}

fn walk_into(dir: &Path, rel: &Path, depth: usize, out: &mut Vec<(String, u64)>) {
    if depth == 0 {
        return;
    }
    let Ok(reader) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = reader.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(meta) = entry.metadata() else { continue };
        if !visible(&name) || meta.file_type().is_symlink() {
            continue;
        }
        let path = rel.join(&name);
        if meta.is_dir() {
            out.push((format!("{}/", path.display()), tree_size(&entry.path())));
            walk_into(&entry.path(), &path, depth - 1, out);
        } else {
            out.push((path.display().to_string(), meta.len()));
        }
    }
}

/// Total size of the regular files under `dir` (symlinks not followed).
fn tree_size(dir: &Path) -> u64 {
    let Ok(reader) = std::fs::read_dir(dir) else {
        return 0;
    };
    reader
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.path(), e.metadata().ok()?)))
        .map(|(path, meta)| {
            if meta.is_dir() {
                tree_size(&path)
            } else if meta.is_file() {
                meta.len()
            } else {
                0
            }
        })
        .sum()
}
