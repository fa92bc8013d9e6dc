//! A log file that rotates by size: past [`MAX_BYTES`] the file becomes `NAME.1`
//! (`NAME.1` becomes `NAME.2`, …) and a fresh one is started; [`KEEP`] old files are
//! kept, older ones are removed. Files are created 0600: logs hold server output.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Size at which the file is rotated.
pub const MAX_BYTES: u64 = 10 * 1024 * 1024;
/// Rotated files kept next to the current one.
pub const KEEP: usize = 3;

/// An append-only file that rotates itself.
#[derive(Debug)]
pub struct RotatingFile {
    path: PathBuf,
    file: File,
    written: u64,
    max_bytes: u64,
    keep: usize,
}

impl RotatingFile {
    /// Opens `path` for appending (rotating first when it is already full).
    pub fn open(path: &Path) -> io::Result<Self> {
        Self::with_limits(path, MAX_BYTES, KEEP)
    }

    pub fn with_limits(path: &Path, max_bytes: u64, keep: usize) -> io::Result<Self> {
        let file = open_append(path)?;
        let written = file.metadata()?.len();
        let mut out = Self {
            path: path.to_owned(),
            file,
            written,
            max_bytes,
            keep,
        };
        if out.written >= out.max_bytes {
            out.rotate()?;
        }
        Ok(out)
    }

    fn rotated(&self, n: usize) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    fn rotate(&mut self) -> io::Result<()> {
        self.file.flush()?;
        let _ = std::fs::remove_file(self.rotated(self.keep));
        for n in (1..self.keep).rev() {
            let from = self.rotated(n);
            if from.exists() {
                std::fs::rename(&from, self.rotated(n + 1))?;
            }
        }
        if self.keep > 0 {
            std::fs::rename(&self.path, self.rotated(1))?;
        } else {
            std::fs::remove_file(&self.path)?;
        }
        self.file = open_append(&self.path)?;
        self.written = 0;
        Ok(())
    }
}

fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

impl Write for RotatingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written > 0 && self.written + buf.len() as u64 > self.max_bytes {
            self.rotate()?;
        }
        let n = self.file.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_rotates_by_size_and_keeps_a_few() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.log");
        let mut file = RotatingFile::with_limits(&path, 100, 2).unwrap();
        for i in 0..10 {
            writeln!(file, "{i}: {}", "x".repeat(40)).unwrap();
        }
        drop(file);
        let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
        assert!(size(&path) <= 100, "{}", size(&path));
        assert!(size(&dir.path().join("s.log.1")) > 0);
        assert!(size(&dir.path().join("s.log.2")) > 0);
        assert!(!dir.path().join("s.log.3").exists());
        let last = std::fs::read_to_string(&path).unwrap();
        assert!(
            last.ends_with(&format!("9: {}\n", "x".repeat(40))),
            "{last}"
        );
        // Reopening a full file rotates before writing.
        std::fs::write(&path, "y".repeat(200)).unwrap();
        let _reopened = RotatingFile::with_limits(&path, 100, 2).unwrap();
        assert_eq!(size(&path), 0);
    }
}
