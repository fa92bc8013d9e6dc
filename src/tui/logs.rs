//! The Logs pane: lines from the log layer and the servers, the least severe level
//! shown (`v` cycles it, and asks the servers for the same), scrolling.

use crate::keymap::Action;

use super::msg::{Cmd, ServerCmd};
use super::state::{LogLevel, LogsPane, TailScroll};

/// `v`: the next level; servers that offer logging send only what is shown
/// (`logging/setLevel`).
pub fn cycle_level(logs: &mut LogsPane) -> Vec<Cmd> {
    let (level, wire) = match logs.level {
        LogLevel::Trace | LogLevel::Debug => (LogLevel::Info, "info"),
        LogLevel::Info => (LogLevel::Warn, "warning"),
        LogLevel::Warn => (LogLevel::Error, "error"),
        LogLevel::Error => (LogLevel::Trace, "debug"),
    };
    logs.level = level;
    logs.scroll = TailScroll(0);
    vec![ServerCmd::SetLogLevel(wire.into()).into()]
}

/// Scrolling the log lines, `page` rows at a time, at most `max` back.
pub fn nav(logs: &mut LogsPane, action: Action, page: usize, max: usize) {
    logs.scroll = super::scroll::scrolled(logs.scroll, max, action, page);
}
