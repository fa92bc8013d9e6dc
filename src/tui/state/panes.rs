//! The Servers and Logs panes and the turn in progress, as plain data.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use super::{LOG_CAPACITY, LogLevel, LogLine, ServerRow, TailScroll};
use crate::mcp::catalog::CatalogSnapshot;
use crate::mcp::catalog_diff::CatalogDiff;
use crate::mcp::{HubSnapshot, ServerStatus as Status};

/// The Servers pane: one row per configured server and the selection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServersPane {
    pub rows: Vec<ServerRow>,
    pub sel: usize,
    /// Each ready server's catalog as last seen, with its connection's generation.
    pub catalogs: BTreeMap<String, (u64, Arc<CatalogSnapshot>)>,
}

impl ServersPane {
    /// The selected server, if any.
    pub fn selected(&self) -> Option<&ServerRow> {
        self.rows.get(self.sel)
    }

    /// Replaces the rows, keeping the selection inside them.
    pub fn refresh(&mut self, rows: Vec<ServerRow>) {
        self.rows = rows;
        self.sel = self.sel.min(self.rows.len().saturating_sub(1));
    }

    /// Remembers each ready server's catalog, and returns a line for each that came
    /// back on a new connection with a catalog other than the one it had
    /// (`weather: +1 tool, −1 prompt, get_weather input changed`). Changes on the same
    /// connection (`list_changed`) are remembered without a line.
    pub fn catalogs_seen(&mut self, snapshot: &HubSnapshot) -> Vec<String> {
        let mut lines = Vec::new();
        for server in &snapshot.servers {
            if server.status != Status::Ready {
                continue;
            }
            if let Some((generation, before)) = self.catalogs.get(&server.name)
                && server.generation > *generation
            {
                let diff = CatalogDiff::between(before, &server.catalog);
                if !diff.is_empty() {
                    lines.push(diff.line(&server.name));
                }
            }
            self.catalogs.insert(
                server.name.clone(),
                (server.generation, Arc::clone(&server.catalog)),
            );
        }
        lines
    }
}

/// The Logs pane: the newest lines, how far it is scrolled back, and the least
/// severe level it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct LogsPane {
    pub lines: VecDeque<LogLine>,
    pub scroll: TailScroll,
    pub level: LogLevel,
}

impl Default for LogsPane {
    fn default() -> Self {
        Self {
            lines: VecDeque::new(),
            scroll: TailScroll::default(),
            level: LogLevel::Trace,
        }
    }
}

impl LogsPane {
    /// Adds a line, dropping the oldest past [`LOG_CAPACITY`]; a view scrolled back
    /// stays on the lines it shows.
    pub fn push(&mut self, line: LogLine) {
        self.lines.push_back(line);
        if self.lines.len() > LOG_CAPACITY {
            self.lines.pop_front();
        } else if self.scroll.0 > 0 {
            self.scroll.0 += 1;
        }
    }

    /// Lines at or above the chosen level, oldest first.
    pub fn visible(&self) -> Vec<&LogLine> {
        self.lines
            .iter()
            .filter(|l| l.level <= self.level)
            .collect()
    }
}

/// The agent turn in progress, if any, and what it waits for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnView {
    /// The run id of the agent turn in progress.
    pub run: Option<String>,
    /// The turn waits for servers still connecting (Esc goes on without them).
    pub waiting_for_servers: bool,
    /// The turn waits for a step signal (step mode).
    pub step_pause: Option<crate::agent::StepPause>,
}

impl TurnView {
    /// A turn is running.
    pub fn running(&self) -> bool {
        self.run.is_some()
    }
}
