//! The executor's local files: `/save` writes a result, `/save-case` appends a test
//! case, the Wire view's export
//! writes a JSONL file under the state directory (`…/switchboard/wire/`; the
//! working directory when the TUI runs without one), and the Memory pane reads the
//! memory directory.

use std::sync::Arc;
use std::time::SystemTime;

use crate::mcp::wire::WireEntry;

use super::super::msg::{FileCmd, Msg};
use super::Executor;

impl Executor {
    pub(super) fn execute_files(&self, cmd: FileCmd) -> Msg {
        match cmd {
            FileCmd::SaveContents {
                blocks,
                item,
                path,
                overwrite,
            } => Msg::Saved(super::super::result_view::save_blocks(
                &blocks, item, &path, overwrite,
            )),
            FileCmd::SaveCase { case, path } => Msg::Saved(save_case(&case, &path)),
            FileCmd::ExportWire(entries) => self.export_wire(&entries),
            FileCmd::ListMemory => Msg::MemoryFiles(
                self.memory_dir
                    .as_deref()
                    .map(crate::tools::builtin::list_memory_files)
                    .unwrap_or_default(),
            ),
            FileCmd::ReadMemory(path) => {
                let text = match self.memory_dir.as_deref() {
                    Some(dir) => crate::tools::builtin::read_memory_file(dir, &path)
                        .unwrap_or_else(|e| e.to_string()),
                    None => "the memory tool is disabled".into(),
                };
                Msg::MemoryFile { path, text }
            }
        }
    }

    fn export_wire(&self, entries: &[Arc<WireEntry>]) -> Msg {
        let dir = self.recipe.as_ref().map_or_else(
            || std::path::PathBuf::from("."),
            |recipe| recipe.dirs.wire_export_dir(),
        );
        let written = crate::mcp::wire::view::export(&dir, entries, SystemTime::now());
        Msg::WireExported(
            written
                .map(|path| (entries.len(), path.display().to_string()))
                .map_err(|e| format!("cannot write to {}: {e}", dir.display())),
        )
    }
}

/// Appends `case` to the collection at `path`; what to say in the transcript.
fn save_case(case: &super::super::state::LastCase, path: &str) -> Result<String, String> {
    let model = crate::cases::case_for(&case.server, &case.target, &case.observed);
    crate::cases::append(std::path::Path::new(path), model)
        .map(|name| {
            format!(
                "saved case {name:?} to {path}; edit its expect, then `switchboard test {path}`"
            )
        })
        .map_err(|e| e.to_string())
}
