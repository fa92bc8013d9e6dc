//! The Wire view's side of the executor: new captured messages into `update`, and
//! the export to a JSONL file under the state directory (`…/switchboard/wire/`; the
//! working directory when the TUI runs without one).

use std::sync::Arc;
use std::time::SystemTime;

use crate::mcp::wire::{WireEntry, WireLog};

use super::executor::Executor;
use super::msg::Msg;
use super::state::Overlay;

impl Executor {
    /// Hands what `log` captured since the view's last message to `update`; true when
    /// the open view needs a redraw.
    pub fn wire_arrived(&mut self, log: &WireLog) -> bool {
        let entries = log.entries_after(self.state.wire.last_seq);
        if entries.is_empty() {
            return false;
        }
        let open = matches!(self.state.overlay, Some(Overlay::Wire));
        self.handle(Msg::Wire(entries)) && open
    }

    pub(super) fn export_wire(&self, entries: &[Arc<WireEntry>]) -> Msg {
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
