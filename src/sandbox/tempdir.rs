//! The private temporary directory of a sandboxed server: writable by it, its
//! `TMPDIR`, and nobody else's. `TMP/switchboard-sandbox-UID/NAME-HASH`, both levels
//! 0700 and owned by this user (an existing directory that is not is refused, so
//! another user cannot plant one); the same server in the same workspace gets the same
//! directory back, so runs do not leave a new one each time.

use std::fs::DirBuilder;
use std::io;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

/// Creates (or reuses) the directory for `server` working in `workspace`, under `base`
/// (normally `std::env::temp_dir()`).
pub fn private_dir(base: &Path, server: &str, workspace: &Path) -> io::Result<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let parent = base.join(format!("switchboard-sandbox-{uid}"));
    ensure_private(&parent, uid)?;
    let mut hash = Sha256::new();
    hash.update(server.as_bytes());
    hash.update([0]);
    hash.update(workspace.as_os_str().as_encoded_bytes());
    let digest = hash.finalize();
    let slug: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let short = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    let dir = parent.join(format!("{slug}-{short:08x}"));
    ensure_private(&dir, uid)?;
    Ok(dir)
}

fn ensure_private(dir: &Path, uid: u32) -> io::Result<()> {
    match DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(io::Error::other(format!(
            "{} exists but is not a private directory of this user (0700); remove it",
            dir.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_is_private_stable_and_per_server() {
        let base = tempfile::tempdir().unwrap();
        let a = private_dir(base.path(), "fs/x", Path::new("/w")).unwrap();
        assert_eq!(std::fs::metadata(&a).unwrap().mode() & 0o777, 0o700);
        assert_eq!(
            private_dir(base.path(), "fs/x", Path::new("/w")).unwrap(),
            a
        );
        assert_ne!(
            private_dir(base.path(), "fs/x", Path::new("/v")).unwrap(),
            a
        );
        assert!(
            a.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("fs_x-")
        );
    }

    #[test]
    fn a_directory_open_to_others_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let base = tempfile::tempdir().unwrap();
        let a = private_dir(base.path(), "s", Path::new("/w")).unwrap();
        std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = private_dir(base.path(), "s", Path::new("/w")).unwrap_err();
        assert!(e.to_string().contains("not a private directory"), "{e}");
    }
}
