//! The built-in tools (`fs`, `shell`, `http`, `memory`, `skills`) and their
//! registration. Each runs only through [`crate::tools::Registry::invoke`].

mod args;
mod confine;
mod diff;
mod fs;
mod fs_read;
mod fs_write;
mod http;
mod http_rules;
mod memory;
mod memory_store;
mod process_group;
mod shell;
mod skills;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use confine::{Confined, PathError, RaceHook, Root};
pub use fs::{FsError, FsTool};
pub use http::{HttpError, HttpTool, MAX_REDIRECTS};
pub use http_rules::{HttpRuleError, HttpRules};
pub use memory::{MemoryTool, list_memory_files, read_memory_file};
pub use memory_store::{MEMORIES, MemoryError, MemoryStore, human_size};
pub use shell::{MINIMAL_PATH, ShellError, ShellTool, command_line, find_on_path};
pub use skills::{MAX_GET_CHARS, SkillsTool, UNTRUSTED_CLOSE, UNTRUSTED_OPEN, wrap};

use super::{Registry, ToolError};
use crate::config::Config;
use crate::paths::Dirs;
use crate::skills::{SkillSet, load_configured};

/// What [`register_builtins`] registered: enough for a Servers pane entry named
/// `builtin`, a Skills pane and a Memory pane.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuiltinSummary {
    /// Registered tool names, in registration order.
    pub tools: Vec<String>,
    /// The skills load report (loaded and skipped, with reasons); empty when the
    /// `skills` tool is disabled.
    pub skills: Arc<SkillSet>,
    /// The directory `/memories` maps to, when `memory` is enabled.
    pub memory_dir: Option<PathBuf>,
    /// The `fs` root, when `fs` is enabled.
    pub fs_root: Option<PathBuf>,
}

impl BuiltinSummary {
    /// Name and description of each skill the model may read.
    pub fn visible_skills(&self, allow: Option<&[String]>) -> Vec<(String, String)> {
        self.skills
            .visible(allow)
            .map(|s| (s.name.clone(), s.description.clone()))
            .collect()
    }
}

/// Registers every enabled built-in tool with the configuration's limits.
pub async fn register_builtins(
    registry: &Registry,
    config: &Config,
    dirs: &Dirs,
    workspace: &Path,
) -> Result<BuiltinSummary, ToolError> {
    let tools = &config.tools;
    let mut summary = BuiltinSummary::default();
    if tools.fs.enabled {
        let dir = tools
            .fs
            .root
            .as_ref()
            .map_or_else(|| workspace.to_path_buf(), |r| workspace.join(r));
        let root = Root::new(&dir).map_err(|e| start_error("fs", &dir, &e))?;
        summary.fs_root = Some(root.dir().to_path_buf());
        registry
            .register(Arc::new(FsTool::new(root, tools.fs.clone())))
            .await?;
        summary.tools.push("fs".into());
    }
    if tools.shell.enabled {
        let shell = ShellTool::new(tools.shell.clone(), workspace);
        registry.register(Arc::new(shell)).await?;
        summary.tools.push("shell".into());
    }
    if tools.http.enabled {
        registry
            .register(Arc::new(HttpTool::new(tools.http.clone())?))
            .await?;
        summary.tools.push("http".into());
    }
    if tools.memory.enabled {
        let dir = memory_dir(config, dirs, workspace);
        std::fs::create_dir_all(&dir).map_err(|e| start_error("memory", &dir, &e))?;
        let root = Root::new(&dir).map_err(|e| start_error("memory", &dir, &e))?;
        summary.memory_dir = Some(root.dir().to_path_buf());
        registry.register(Arc::new(MemoryTool::new(root))).await?;
        summary.tools.push("memory".into());
    }
    if config.skills.enabled {
        let set = Arc::new(load_configured(&config.skills, dirs, workspace));
        let tool = SkillsTool::new(Arc::clone(&set), config.skills.allow.clone());
        registry.register(Arc::new(tool)).await?;
        summary.skills = set;
        summary.tools.push("skills".into());
    }
    Ok(summary)
}

/// `[tools.memory] dir` (relative to the workspace), else
/// `$XDG_DATA_HOME/switchboard/memories/<workspace folder name>`.
pub fn memory_dir(config: &Config, dirs: &Dirs, workspace: &Path) -> PathBuf {
    if let Some(dir) = &config.tools.memory.dir {
        return workspace.join(dir);
    }
    let project = workspace
        .file_name()
        .map_or_else(|| "default".into(), |n| n.to_string_lossy().into_owned());
    dirs.memory_dir().join(project)
}

fn start_error(tool: &str, dir: &Path, e: &std::io::Error) -> ToolError {
    ToolError::Start {
        tool: tool.to_owned(),
        message: format!("{}: {e}", dir.display()),
    }
}
