//! The `memory` tool (`memory_20250818` commands) and read-only access for a Memory
//! pane.

use std::path::Path;

use serde_json::{Map, Value};

use super::args;
use super::confine::Root;
use super::diff;
use super::memory_store::{MEMORIES, MemoryError, MemoryResult, MemoryStore, walk};
use crate::gate::Preview;
use crate::tools::builtin_specs::memory_spec;
use crate::tools::{Tool, ToolContext, ToolResult, ToolSpec};

/// Deepest level [`list_memory_files`] descends to.
const LIST_DEPTH: usize = 16;

/// Every file under a memory directory as (`/memories/…` path, size), sorted; hidden
/// entries and symlinks are skipped. Empty when the directory does not exist.
pub fn list_memory_files(dir: &Path) -> Vec<(String, u64)> {
    walk(dir, LIST_DEPTH)
        .into_iter()
        .filter(|(rel, _)| !rel.ends_with('/'))
        .map(|(rel, size)| (format!("{MEMORIES}/{rel}"), size))
        .collect()
}

/// The text of one memory file (`/memories/…`), with the same path checks as the tool.
pub fn read_memory_file(dir: &Path, path: &str) -> MemoryResult {
    let root = Root::new(dir).map_err(|source| MemoryError::Root {
        dir: dir.to_path_buf(),
        source,
    })?;
    MemoryStore::new(root).read_text(path)
}

/// `/memories` for the model.
#[derive(Debug)]
pub struct MemoryTool {
    spec: ToolSpec,
    store: MemoryStore,
}

impl MemoryTool {
    pub fn new(root: Root) -> Self {
        Self {
            spec: memory_spec(),
            store: MemoryStore::new(root),
        }
    }

    pub fn dir(&self) -> &Path {
        self.store.dir()
    }

    fn run(&self, args: &Map<String, Value>) -> MemoryResult {
        let command = args::string(args, "command")?;
        let text = |name| args::string(args, name).map(str::to_owned);
        match command {
            "view" => self.store.view(&text("path")?, view_range(args)?),
            "create" => self.store.create(&text("path")?, &text("file_text")?),
            "str_replace" => {
                let new = args::optional_string(args, "new_str")?.unwrap_or("");
                self.store
                    .str_replace(&text("path")?, &text("old_str")?, new)
            }
            "insert" => {
                let line = args::u64_arg(args, "insert_line")?;
                self.store
                    .insert(&text("path")?, line, &text("insert_text")?)
            }
            "delete" => self.store.delete(&text("path")?),
            "rename" => self.store.rename(&text("old_path")?, &text("new_path")?),
            other => Err(MemoryError::UnknownCommand {
                command: other.into(),
            }),
        }
    }
}

fn view_range(args: &Map<String, Value>) -> Result<Option<(i64, i64)>, MemoryError> {
    match args.get("view_range") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) if items.len() == 2 => {
            match (items[0].as_i64(), items[1].as_i64()) {
                (Some(a), Some(b)) => Ok(Some((a, b))),
                _ => Err(MemoryError::ViewRangeShape),
            }
        }
        Some(_) => Err(MemoryError::ViewRangeShape),
    }
}

#[async_trait::async_trait]
impl Tool for MemoryTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, args: Map<String, Value>, _ctx: &ToolContext) -> ToolResult {
        match self.run(&args) {
            Ok(text) => ToolResult::text(text),
            Err(e) => ToolResult::error(e.to_string()),
        }
    }

    fn preview(&self, args: &Map<String, Value>) -> Option<Preview> {
        let get = |name| args.get(name).and_then(Value::as_str);
        let path = get("path").unwrap_or_default();
        let diff_of = |old: Option<String>, new: Option<String>| Preview::Diff {
            path: path.to_owned(),
            unified: diff::unified(path, old.as_deref(), new.as_deref()),
        };
        match get("command")? {
            "create" => Some(diff_of(None, get("file_text").map(str::to_owned))),
            "str_replace" => {
                let old = self.store.read_text(path).ok();
                let new = self
                    .store
                    .replaced(path, get("old_str")?, get("new_str").unwrap_or(""))
                    .ok();
                Some(diff_of(old, new))
            }
            "insert" => {
                let line = args.get("insert_line")?.as_u64()?;
                let old = self.store.read_text(path).ok();
                let new = self.store.inserted(path, line, get("insert_text")?).ok();
                Some(diff_of(old, new))
            }
            "delete" => {
                let head = self
                    .store
                    .read_text(path)
                    .map(|t| format!("\n{}", diff::head(&t, 10)))
                    .unwrap_or_default();
                Some(Preview::Text(format!("delete {path}{head}")))
            }
            "rename" => Some(Preview::Text(format!(
                "rename {} → {}",
                get("old_path")?,
                get("new_path")?
            ))),
            _ => None,
        }
    }
}
