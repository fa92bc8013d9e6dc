//! The `fs` tool's changes: atomic write (temp file in the same directory, fsync,
//! rename) and delete (a file or an empty directory).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::confine::{Confined, Root, nofollow};
use super::fs::FsError;
use crate::config::FsToolConfig;

static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// Creates or replaces `path` with `content`, atomically.
pub fn write(
    root: &Root,
    config: &FsToolConfig,
    path: &str,
    content: &str,
) -> Result<String, FsError> {
    let size = content.len() as u64;
    if size > config.max_write_bytes {
        return Err(FsError::TooLarge {
            size,
            max: config.max_write_bytes,
        });
    }
    let confined = root.resolve(path)?;
    if confined.is_root() {
        return Err(FsError::RootItself);
    }
    let mode = check_target(&confined)?.unwrap_or(0o644);
    create_parents(root, &confined)?;
    let temp_rel = temp_name(&confined.rel);
    let temp = root.resolve(&temp_rel.to_string_lossy())?;
    root.before_open(&confined);
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(nofollow())
        .open(&temp.full)
        .map_err(|e| FsError::Io(confined.shown(), e))?;
    if let Err(e) = fill_and_check(root, &confined, &temp, file, content) {
        let _ = std::fs::remove_file(&temp.full);
        return Err(e);
    }
    std::fs::rename(&temp.full, &confined.full).map_err(|e| {
        let _ = std::fs::remove_file(&temp.full);
        FsError::Io(confined.shown(), e)
    })?;
    if let Some(parent) = confined.full.parent()
        && let Ok(dir) = File::open(parent)
    {
        let _ = dir.sync_all();
    }
    let verb = if confined.exists() {
        "replaced"
    } else {
        "created"
    };
    Ok(format!("{verb} {} ({size} bytes)", confined.shown()))
}

/// An existing target must be a regular file with one link; returns its mode.
fn check_target(confined: &Confined) -> Result<Option<u32>, FsError> {
    if !confined.exists() {
        return Ok(None);
    }
    let meta =
        std::fs::symlink_metadata(&confined.full).map_err(|e| FsError::Io(confined.shown(), e))?;
    if !meta.is_file() {
        return Err(FsError::NotAFile(confined.shown()));
    }
    if meta.nlink() > 1 {
        return Err(FsError::HardLinked {
            path: confined.shown(),
            links: meta.nlink(),
        });
    }
    Ok(Some(meta.permissions().mode() & 0o7777))
}

/// Writes and syncs the temp file, then re-checks both paths before the rename.
fn fill_and_check(
    root: &Root,
    confined: &Confined,
    temp: &Confined,
    mut file: File,
    content: &str,
) -> Result<(), FsError> {
    file.write_all(content.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| FsError::Io(confined.shown(), e))?;
    let meta = file
        .metadata()
        .map_err(|e| FsError::Io(confined.shown(), e))?;
    root.recheck(temp, &meta)?;
    let again = root.resolve(&confined.rel.to_string_lossy())?;
    check_target(&again)?;
    Ok(())
}

/// Creates the missing parent directories one at a time (never through a symlink:
/// every existing component was checked, and `create_dir` fails on anything present).
fn create_parents(root: &Root, confined: &Confined) -> Result<(), FsError> {
    let Some(first_missing) = confined.missing_from else {
        return Ok(());
    };
    let parents: Vec<_> = confined.rel.components().collect();
    let mut dir = root.dir().to_path_buf();
    for (i, component) in parents.iter().enumerate().take(parents.len() - 1) {
        dir.push(component);
        if i >= first_missing {
            std::fs::create_dir(&dir).map_err(|e| FsError::Io(confined.shown(), e))?;
        }
    }
    Ok(())
}

fn temp_name(rel: &Path) -> PathBuf {
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
    let temp = format!(".{name}.{}.{n}.switchboard-tmp", std::process::id());
    rel.with_file_name(temp)
}

/// Deletes a file or an empty directory.
pub fn delete(root: &Root, path: &str) -> Result<String, FsError> {
    let confined = root.resolve(path)?;
    if confined.is_root() {
        return Err(FsError::RootItself);
    }
    if !confined.exists() {
        return Err(FsError::NotFound(confined.shown()));
    }
    let meta =
        std::fs::symlink_metadata(&confined.full).map_err(|e| FsError::Io(confined.shown(), e))?;
    root.before_open(&confined);
    root.recheck(&confined, &meta)?;
    if meta.is_dir() {
        std::fs::remove_dir(&confined.full).map_err(|e| {
            if e.kind() == std::io::ErrorKind::DirectoryNotEmpty {
                FsError::NotEmpty(confined.shown())
            } else {
                FsError::Io(confined.shown(), e)
            }
        })?;
        Ok(format!("deleted directory {}", confined.shown()))
    } else {
        std::fs::remove_file(&confined.full).map_err(|e| FsError::Io(confined.shown(), e))?;
        Ok(format!(
            "deleted {} ({} bytes)",
            confined.shown(),
            meta.len()
        ))
    }
}
