//! Loading `ROOT/NAME/SKILL.md` files with limits; every entry that is not loaded gets
//! a typed reason.

use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::front_matter::{self, FrontMatterError};
use super::{Skill, SkillLimits, SkillSet, SkipReason};

/// The file every skill directory holds.
pub const SKILL_FILE: &str = "SKILL.md";

/// Loads the skills under `roots`, in order; the first skill of a name wins. Roots that
/// do not exist are skipped silently unless `report_missing`.
pub fn load_skills(roots: &[PathBuf], limits: &SkillLimits, report_missing: bool) -> SkillSet {
    let mut set = SkillSet::default();
    for root in roots {
        load_root(root, limits, report_missing, &mut set);
    }
    set
}

fn load_root(root: &Path, limits: &SkillLimits, report_missing: bool, set: &mut SkillSet) {
    let reader = match std::fs::read_dir(root) {
        Ok(reader) => reader,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !report_missing => return,
        Err(e) => return set.skip(root, SkipReason::Io(e.to_string())),
    };
    let mut entries = Vec::new();
    for entry in reader {
        if entries.len() == limits.max_entries {
            set.skip(root, SkipReason::TooManyEntries(limits.max_entries));
            break;
        }
        match entry {
            Ok(entry) => entries.push(entry),
            Err(e) => set.skip(root, SkipReason::Io(e.to_string())),
        }
    }
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let folder = entry.file_name().to_string_lossy().into_owned();
        if folder.starts_with('.') {
            continue;
        }
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_symlink() {
            set.skip(&path, SkipReason::Symlink);
            continue;
        }
        if !file_type.is_dir() {
            continue;
        }
        if set.skills.len() == limits.max_skills {
            set.skip(&path, SkipReason::TooManySkills(limits.max_skills));
            continue;
        }
        match load_skill(&path, &folder, limits) {
            Ok(skill) => match set.skills.iter().find(|s| s.name == skill.name) {
                Some(first) => {
                    let first = first.path.clone();
                    set.skip(&path, SkipReason::Duplicate { first });
                }
                None => set.skills.push(skill),
            },
            Err(reason) => set.skip(&path, reason),
        }
    }
}

/// Loads `dir/SKILL.md`; `folder` is the directory's name.
pub fn load_skill(dir: &Path, folder: &str, limits: &SkillLimits) -> Result<Skill, SkipReason> {
    let file = dir.join(SKILL_FILE);
    let meta = match std::fs::symlink_metadata(&file) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SkipReason::MissingSkillFile);
        }
        Err(e) => return Err(SkipReason::Io(e.to_string())),
    };
    if meta.file_type().is_symlink() {
        return Err(SkipReason::Symlink);
    }
    if !meta.is_file() {
        return Err(SkipReason::NotAFile);
    }
    if meta.nlink() > 1 {
        return Err(SkipReason::HardLinked(meta.nlink()));
    }
    if meta.len() > limits.max_file_bytes {
        return Err(SkipReason::TooLarge {
            size: meta.len(),
            max: limits.max_file_bytes,
        });
    }
    let bytes = read_bounded(&file, &meta, limits.max_file_bytes)?;
    let sha256 = hex(&Sha256::digest(&bytes));
    let text = String::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
    let fm = front_matter::parse(&text, limits.max_front_matter_lines).map_err(|e| match e {
        FrontMatterError::Missing => SkipReason::MissingFrontMatter,
        FrontMatterError::TooLong(n) => SkipReason::FrontMatterTooLong(n),
        FrontMatterError::BadLine { line, text } => SkipReason::BadFrontMatter { line, text },
    })?;
    let field = |key: &'static str| {
        fm.fields
            .get(key)
            .filter(|v| !v.trim().is_empty())
            .cloned()
            .ok_or(SkipReason::MissingField(key))
    };
    let name = field("name")?;
    if !valid_name(&name) {
        return Err(SkipReason::InvalidName(name));
    }
    if name != folder {
        return Err(SkipReason::NameMismatch {
            name,
            folder: folder.to_owned(),
        });
    }
    Ok(Skill {
        description: field("description")?,
        version: fm.fields.get("version").cloned(),
        body: fm.body.to_owned(),
        name,
        sha256,
        path: file,
    })
}

/// Reads at most `max` bytes without following a symlink, and makes sure the file
/// opened is the one that was checked.
fn read_bounded(file: &Path, checked: &std::fs::Metadata, max: u64) -> Result<Vec<u8>, SkipReason> {
    let nofollow = i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0);
    let handle = OpenOptions::new()
        .read(true)
        .custom_flags(nofollow)
        .open(file)
        .map_err(|e| SkipReason::Io(e.to_string()))?;
    let opened = handle
        .metadata()
        .map_err(|e| SkipReason::Io(e.to_string()))?;
    if opened.dev() != checked.dev() || opened.ino() != checked.ino() {
        return Err(SkipReason::Changed);
    }
    if opened.nlink() > 1 {
        return Err(SkipReason::HardLinked(opened.nlink()));
    }
    let mut bytes = Vec::new();
    handle
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| SkipReason::Io(e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(SkipReason::TooLarge {
            size: bytes.len() as u64,
            max,
        });
    }
    Ok(bytes)
}

/// Lower-case letters, digits and `-`, 1–64 characters, not starting with `-`.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
