//! The Logs pane: lines from the log layer and the servers, the least severe level
//! shown (`v` cycles it, and asks the servers for the same), scrolling.

use crate::keymap::Action;

use super::msg::{Cmd, ServerCmd};
use super::state::{LOG_CAPACITY, LogLevel, LogLine, Pane, State, TailScroll};

/// A new line: kept (the oldest goes past the capacity), the view stays put.
pub fn push(state: &mut State, line: LogLine) {
    state.logs.push_back(line);
    if state.logs.len() > LOG_CAPACITY {
        state.logs.pop_front();
    } else if state.logs_scroll.0 > 0 {
        // Keep the lines the reader is looking at in place.
        state.logs_scroll.0 += 1;
    }
}

/// `v`: the next level; servers that offer logging send only what is shown
/// (`logging/setLevel`).
pub fn cycle_level(state: &mut State) -> Vec<Cmd> {
    let (level, wire) = match state.log_level {
        LogLevel::Trace | LogLevel::Debug => (LogLevel::Info, "info"),
        LogLevel::Info => (LogLevel::Warn, "warning"),
        LogLevel::Warn => (LogLevel::Error, "error"),
        LogLevel::Error => (LogLevel::Trace, "debug"),
    };
    state.log_level = level;
    state.logs_scroll = TailScroll(0);
    vec![ServerCmd::SetLogLevel(wire.into()).into()]
}

/// Scrolling the log lines.
pub fn nav(state: &mut State, action: Action) {
    let max = super::scroll::logs_max_scroll(state);
    let page = super::scroll::page(state, Pane::Logs);
    state.logs_scroll = super::scroll::scrolled(state.logs_scroll, max, action, page);
}
