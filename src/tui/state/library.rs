//! Skills and memory files, for their panes.

/// A skill as the Skills pane lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillRow {
    pub name: String,
    pub description: String,
    pub version: Option<String>,
    pub sha256: String,
    pub path: String,
    /// On `[skills] allow` (the model may read it).
    pub visible: bool,
    pub body: String,
}

/// What the Skills and Memory panes show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Library {
    pub skills: Vec<SkillRow>,
    /// `path: reason` for every skipped skill entry.
    pub skipped: Vec<String>,
    /// The directory `/memories` maps to; `None` when the memory tool is off.
    pub memory_dir: Option<String>,
    pub memory_files: Vec<(String, u64)>,
    /// The memory file being shown: path and text (or the error reading it).
    pub memory_open: Option<(String, String)>,
}

/// Which of the two panes, with its selection and text scroll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowseKind {
    Skills,
    Memory,
}
