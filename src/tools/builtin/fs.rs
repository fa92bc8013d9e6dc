//! The `fs` tool: read, list, stat and check files under the workspace root; write
//! (atomically) and delete them.

use serde_json::{Map, Value};

use super::args::{self, ArgError};
use super::confine::{PathError, Root};
use super::diff;
use super::{fs_read, fs_write};
use crate::config::FsToolConfig;
use crate::gate::Preview;
use crate::tools::builtin_specs::fs_spec;
use crate::tools::{PrecheckError, Tool, ToolContext, ToolResult, ToolSpec};

/// Why an `fs` call failed; the message is what the model reads.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error(transparent)]
    Path(#[from] PathError),
    #[error(transparent)]
    Arg(#[from] ArgError),
    #[error("unknown operation `{0}`: use read, list, exists, stat, write or delete")]
    Operation(String),
    #[error("{0} does not exist")]
    NotFound(String),
    #[error("{0} is not a regular file")]
    NotAFile(String),
    #[error("{0} is not a directory")]
    NotADirectory(String),
    #[error(
        "refused: {0} looks binary (it holds NUL bytes or is not UTF-8); the fs tool reads text only"
    )]
    Binary(String),
    #[error("refused: writes are disabled ([tools.fs] allow_write = false)")]
    WritesDisabled,
    #[error("refused: {path} has {links} hard links; changing it would change the other names too")]
    HardLinked { path: String, links: u64 },
    #[error(
        "refused: the content is {size} bytes, more than [tools.fs] max_write_bytes ({max} bytes)"
    )]
    TooLarge { size: u64, max: u64 },
    #[error("refused: the workspace root itself cannot be written or deleted")]
    RootItself,
    #[error("{0} is a directory that is not empty; delete its entries first")]
    NotEmpty(String),
    #[error("invalid line range: start_line {start} is after end_line {end}")]
    LineRange { start: u64, end: u64 },
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
}

/// Files under one root.
#[derive(Debug)]
pub struct FsTool {
    spec: ToolSpec,
    root: Root,
    config: FsToolConfig,
}

impl FsTool {
    pub fn new(root: Root, config: FsToolConfig) -> Self {
        Self {
            spec: fs_spec(),
            root,
            config,
        }
    }

    fn run(&self, args: &Map<String, Value>) -> Result<String, FsError> {
        let operation = args::string(args, "operation")?;
        let path = args::optional_string(args, "path")?.unwrap_or(".");
        match operation {
            "read" => fs_read::read(&self.root, &self.config, path, args),
            "list" => fs_read::list(&self.root, &self.config, path),
            "exists" => fs_read::exists(&self.root, path),
            "stat" => fs_read::stat(&self.root, path),
            "write" | "delete" if !self.config.allow_write => Err(FsError::WritesDisabled),
            "write" => {
                let content = args::string(args, "content")?;
                fs_write::write(&self.root, &self.config, path, content)
            }
            "delete" => fs_write::delete(&self.root, path),
            other => Err(FsError::Operation(other.to_owned())),
        }
    }

    /// The current text of a file for previews; `None` when absent or unreadable.
    fn current_text(&self, path: &str) -> Option<String> {
        let confined = self.root.resolve(path).ok()?;
        if !confined.exists() {
            return None;
        }
        let text = fs_read::read_capped(&self.root, &confined, self.config.max_read_bytes).ok()?;
        Some(text.text)
    }
}

#[async_trait::async_trait]
impl Tool for FsTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, args: Map<String, Value>, _ctx: &ToolContext) -> ToolResult {
        match self.run(&args) {
            Ok(text) => ToolResult::text(text),
            Err(e) => ToolResult::error(e.to_string()),
        }
    }

    fn precheck(&self, args: &Map<String, Value>) -> Result<(), PrecheckError> {
        let check = || -> Result<(), FsError> {
            let operation = args::string(args, "operation")?;
            let path = args::optional_string(args, "path")?.unwrap_or(".");
            match operation {
                "write" | "delete" if !self.config.allow_write => {
                    return Err(FsError::WritesDisabled);
                }
                "read" | "list" | "exists" | "stat" | "write" | "delete" => {}
                other => return Err(FsError::Operation(other.to_owned())),
            }
            self.root.resolve(path)?;
            Ok(())
        };
        Ok(check()?)
    }

    fn preview(&self, args: &Map<String, Value>) -> Option<Preview> {
        let operation = args.get("operation")?.as_str()?;
        let path = args.get("path")?.as_str()?;
        match operation {
            "write" => {
                let new = args.get("content").and_then(Value::as_str).unwrap_or("");
                let old = self.current_text(path);
                Some(Preview::Diff {
                    path: path.to_owned(),
                    unified: diff::unified(path, old.as_deref(), Some(new)),
                })
            }
            "delete" => {
                let size = self
                    .root
                    .resolve(path)
                    .ok()
                    .and_then(|c| std::fs::symlink_metadata(&c.full).ok())
                    .map_or_else(|| "missing".to_owned(), |m| format!("{} bytes", m.len()));
                let head = self
                    .current_text(path)
                    .map(|t| format!("\n{}", diff::head(&t, 10)))
                    .unwrap_or_default();
                Some(Preview::Text(format!("delete {path} ({size}){head}")))
            }
            _ => None,
        }
    }
}
