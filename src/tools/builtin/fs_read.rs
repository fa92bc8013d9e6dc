//! The `fs` tool's read operations: read (capped, text only), list, exists, stat.

use std::fmt::Write as _;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::time::UNIX_EPOCH;

use serde_json::{Map, Value, json};

use super::args;
use super::confine::{Confined, Root};
use super::fs::FsError;
use crate::config::FsToolConfig;

/// Text read from the start of a file, at most the cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped {
    pub text: String,
    /// The file's size.
    pub total: u64,
    pub truncated: bool,
}

/// Reads at most `cap` bytes of a regular text file; never the whole of a huge one.
pub fn read_capped(root: &Root, confined: &Confined, cap: u64) -> Result<Capped, FsError> {
    let (file, meta) = root.open_read(confined)?;
    if !meta.is_file() {
        return Err(FsError::NotAFile(confined.shown()));
    }
    let mut bytes = Vec::new();
    file.take(cap)
        .read_to_end(&mut bytes)
        .map_err(|e| FsError::Io(confined.shown(), e))?;
    let truncated = meta.len() > bytes.len() as u64;
    if bytes.contains(&0) {
        return Err(FsError::Binary(confined.shown()));
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let utf8 = e.utf8_error();
            // A character cut by the cap is not binary.
            if !(truncated && utf8.error_len().is_none()) {
                return Err(FsError::Binary(confined.shown()));
            }
            let mut bytes = e.into_bytes();
            bytes.truncate(utf8.valid_up_to());
            String::from_utf8(bytes).map_err(|_| FsError::Binary(confined.shown()))?
        }
    };
    Ok(Capped {
        text,
        total: meta.len(),
        truncated,
    })
}

/// `read`: the text, or lines `start_line..=end_line` (1-based) of it.
pub fn read(
    root: &Root,
    config: &FsToolConfig,
    path: &str,
    args: &Map<String, Value>,
) -> Result<String, FsError> {
    let start = args::optional_u64(args, "start_line")?;
    let end = args::optional_u64(args, "end_line")?;
    if let (Some(start), Some(end)) = (start, end)
        && start > end
    {
        return Err(FsError::LineRange { start, end });
    }
    let confined = root.resolve(path)?;
    if !confined.exists() {
        return Err(FsError::NotFound(confined.shown()));
    }
    let capped = read_capped(root, &confined, config.max_read_bytes)?;
    let mut out = if start.is_none() && end.is_none() {
        capped.text
    } else {
        let first = usize::try_from(start.unwrap_or(1).max(1)).unwrap_or(usize::MAX);
        let last = end.map_or(usize::MAX, |e| usize::try_from(e).unwrap_or(usize::MAX));
        let lines: Vec<&str> = capped
            .text
            .lines()
            .skip(first - 1)
            .take(last.saturating_sub(first - 1))
            .collect();
        lines.join("\n")
    };
    if capped.truncated {
        let _ = write!(
            out,
            "\n[truncated: only the first {} of {} bytes were read ([tools.fs] max_read_bytes)]",
            config.max_read_bytes, capped.total
        );
    }
    Ok(out)
}

/// `list`: one entry a line, sorted; directories end in `/`, symlinks in `@` (never
/// followed), files show their size.
pub fn list(root: &Root, config: &FsToolConfig, path: &str) -> Result<String, FsError> {
    let confined = root.resolve(path)?;
    if !confined.exists() {
        return Err(FsError::NotFound(confined.shown()));
    }
    root.before_open(&confined);
    let meta =
        std::fs::symlink_metadata(&confined.full).map_err(|e| FsError::Io(confined.shown(), e))?;
    if !meta.is_dir() {
        return Err(FsError::NotADirectory(confined.shown()));
    }
    let reader = std::fs::read_dir(&confined.full).map_err(|e| FsError::Io(confined.shown(), e))?;
    root.recheck(&confined, &meta)?;
    let max = usize::try_from(config.max_list_entries).unwrap_or(usize::MAX);
    let mut entries = Vec::new();
    let mut more = 0usize;
    for entry in reader {
        let entry = entry.map_err(|e| FsError::Io(confined.shown(), e))?;
        if entries.len() >= max {
            more += 1;
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let line = match entry.metadata() {
            Ok(m) if m.file_type().is_symlink() => format!("{name}@"),
            Ok(m) if m.is_dir() => format!("{name}/"),
            Ok(m) => format!("{name}\t{}", m.len()),
            Err(_) => format!("{name}\t?"),
        };
        entries.push(line);
    }
    entries.sort();
    if more > 0 {
        entries.push(format!(
            "[… {more} more entries not listed ([tools.fs] max_list_entries = {max})]"
        ));
    }
    if entries.is_empty() {
        return Ok(format!("{} is empty", confined.shown()));
    }
    Ok(entries.join("\n"))
}

/// `exists`: `true` or `false`.
pub fn exists(root: &Root, path: &str) -> Result<String, FsError> {
    Ok(root.resolve(path)?.exists().to_string())
}

/// `stat`: type, size, mode, links and modification time as JSON.
pub fn stat(root: &Root, path: &str) -> Result<String, FsError> {
    let confined = root.resolve(path)?;
    if !confined.exists() {
        return Err(FsError::NotFound(confined.shown()));
    }
    let meta =
        std::fs::symlink_metadata(&confined.full).map_err(|e| FsError::Io(confined.shown(), e))?;
    let kind = if meta.is_dir() {
        "directory"
    } else if meta.is_file() {
        "file"
    } else {
        "other"
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs());
    Ok(json!({
        "path": confined.shown(),
        "type": kind,
        "size": meta.len(),
        "mode": format!("{:o}", meta.permissions().mode() & 0o7777),
        "links": meta.nlink(),
        "modified_unix": modified,
    })
    .to_string())
}
