//! The Wire view's data: the captured messages, the filter, the selection.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::mcp::wire::WireEntry;
use crate::mcp::wire::view::WireFilter;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct WirePane {
    /// The newest captured messages, oldest first.
    pub rows: VecDeque<Arc<WireEntry>>,
    /// The rows the filter lets through, oldest first.
    pub shown: VecDeque<Arc<WireEntry>>,
    /// The `seq` of the newest row: the log is asked for what came after it.
    pub last_seq: u64,
    /// The filter as typed.
    pub query: String,
    pub filter: WireFilter,
    /// The filter line takes the keys.
    pub editing: bool,
    /// The selected shown row, counted back from the newest (0: the newest; the view
    /// follows new messages).
    pub sel: usize,
    /// Shown rows below the view's last line (0: the view ends at the newest).
    pub scroll: usize,
    /// The message shown in full, if any.
    pub detail: Option<WireDetail>,
}

/// One message in full: its facts, then its JSON pretty-printed, both sanitised.
#[derive(Debug, Clone, PartialEq)]
pub struct WireDetail {
    pub entry: Arc<WireEntry>,
    pub facts: Vec<(String, String)>,
    pub json: Vec<String>,
    pub scroll: usize,
}

impl WirePane {
    /// The selected shown row.
    pub fn selected(&self) -> Option<&Arc<WireEntry>> {
        let i = self.shown.len().checked_sub(self.sel + 1)?;
        self.shown.get(i)
    }
}
