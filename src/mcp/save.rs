//! Saving content blocks (what a resource read or a tool call returned) to a file:
//! text as UTF-8, blobs decoded from base64, byte for byte. Used by `switchboard read
//! --output` and the TUI's `/save`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::tools::ContentBlock;

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub path: PathBuf,
    pub bytes: usize,
    pub mime: Option<String>,
}

/// The bytes a content block stands for: text as UTF-8, binary decoded from base64.
/// A resource link has no bytes of its own.
pub fn content_bytes(block: &ContentBlock) -> Result<(Vec<u8>, Option<String>), ContentError> {
    let decode = |data: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map_err(ContentError::Base64)
    };
    match block {
        ContentBlock::Text { text } => Ok((text.as_bytes().to_vec(), None)),
        ContentBlock::Image { mime, data } | ContentBlock::Audio { mime, data } => {
            Ok((decode(data)?, Some(mime.clone())))
        }
        ContentBlock::EmbeddedResource {
            mime, text, blob, ..
        } => match (text, blob) {
            (_, Some(blob)) => Ok((decode(blob)?, mime.clone())),
            (Some(text), None) => Ok((text.as_bytes().to_vec(), mime.clone())),
            (None, None) => Ok((Vec::new(), mime.clone())),
        },
        ContentBlock::ResourceLink { uri, .. } => Err(ContentError::Link { uri: uri.clone() }),
    }
}

/// `saved 4033 bytes (image/png) to logo.png`, the mime sanitised.
impl std::fmt::Display for Saved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "saved {} bytes", self.bytes)?;
        if let Some(mime) = &self.mime {
            write!(f, " ({})", crate::sanitize::sanitize_line(mime))?;
        }
        write!(f, " to {}", self.path.display())
    }
}

/// A content block without bytes to save.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    #[error("the server sent invalid base64: {0}")]
    Base64(#[source] base64::DecodeError),
    /// A resource link; the URI is sanitised when shown.
    #[error(
        "item is a link to {}, not contents; read that URI instead",
        crate::sanitize::sanitize_line(.uri)
    )]
    Link { uri: String },
}

/// Why nothing was saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The file is there and `overwrite` was not given.
    #[error("{} exists", .0.display())]
    Exists(PathBuf),
    #[error("there are no contents to save")]
    NoContents,
    /// `item` (1-based) is not among the `count` items.
    #[error("item {item}: {}", count_text(*.count))]
    NoSuchItem { item: usize, count: usize },
    #[error(transparent)]
    Content(#[from] ContentError),
    #[error("{}: {source}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn count_text(count: usize) -> String {
    if count == 1 {
        "there is one item".to_owned()
    } else {
        format!("there are {count} items (1–{count})")
    }
}

/// Writes item `item` (1-based) of `blocks` to `path`. An existing file is kept unless
/// `overwrite`; the file appears whole or not at all (temp file, then rename).
pub fn save_content(
    blocks: &[ContentBlock],
    item: usize,
    path: &Path,
    overwrite: bool,
) -> Result<Saved, SaveError> {
    let count = blocks.len();
    let block = item
        .checked_sub(1)
        .and_then(|i| blocks.get(i))
        .ok_or(match count {
            0 => SaveError::NoContents,
            count => SaveError::NoSuchItem { item, count },
        })?;
    let (bytes, mime) = content_bytes(block)?;
    if !overwrite && path.exists() {
        return Err(SaveError::Exists(path.to_path_buf()));
    }
    write_atomic(path, &bytes).map_err(|source| SaveError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Saved {
        path: path.to_path_buf(),
        bytes: bytes.len(),
        mime,
    })
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.{}.partial", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(blocks: Vec<ContentBlock>) -> Vec<ContentBlock> {
        blocks
    }

    fn blob(data: &str) -> ContentBlock {
        ContentBlock::EmbeddedResource {
            uri: "test://blob".into(),
            mime: Some("image/png".into()),
            text: None,
            blob: Some(data.into()),
        }
    }

    #[test]
    fn blobs_are_decoded_and_text_is_written_as_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        let saved = save_content(&read(vec![blob("AAEC/w==")]), 1, &path, false).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), [0, 1, 2, 255]);
        assert_eq!(saved.bytes, 4);
        assert_eq!(saved.mime.as_deref(), Some("image/png"));

        let text = ContentBlock::EmbeddedResource {
            uri: "test://t".into(),
            mime: None,
            text: Some("héllo".into()),
            blob: None,
        };
        let path = dir.path().join("t.txt");
        save_content(&read(vec![blob("AA=="), text]), 2, &path, false).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "héllo");
    }

    #[test]
    fn existing_files_items_out_of_range_and_bad_base64_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keep.txt");
        std::fs::write(&path, "mine").unwrap();
        let r = read(vec![blob("AAEC")]);
        assert!(matches!(
            save_content(&r, 1, &path, false).unwrap_err(),
            SaveError::Exists(p) if p == path
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
        save_content(&r, 1, &path, true).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), [0, 1, 2]);

        let other = dir.path().join("x");
        let err = save_content(&r, 2, &other, false).unwrap_err().to_string();
        assert!(err.contains("one item"), "{err}");
        assert!(save_content(&r, 0, &other, false).is_err());
        let bad = save_content(&read(vec![blob("%%%")]), 1, &other, false)
            .unwrap_err()
            .to_string();
        assert!(bad.contains("base64"), "{bad}");
        assert!(!other.exists());
        let only_leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(only_leftovers.len(), 1, "no temp files left behind");
    }
}
