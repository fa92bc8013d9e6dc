//! The last lines a stdio server wrote on stderr.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// Lines kept.
pub const STDERR_LINES: usize = 200;
/// Characters kept of one line.
const LINE_CHARS: usize = 2_000;

#[derive(Debug, Default)]
pub struct StderrTail(Mutex<VecDeque<String>>);

impl StderrTail {
    pub fn push(&self, line: &str) {
        let line: String = line.chars().take(LINE_CHARS).collect();
        let mut lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    pub fn last(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .back()
            .cloned()
    }

    pub fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

/// Lines of one server's stderr written to the log per second, at most.
pub const LOG_LINES_PER_SECOND: u32 = 100;
/// Lines of one server's stderr written to the log in a whole session, at most.
pub const LOG_LINES_PER_SESSION: u64 = 5_000;

/// What to do with one stderr line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admit {
    /// Write it; first write `note` when there is one (what was dropped before it).
    Log { note: Option<String> },
    /// Drop it; write `note` first when this is the first line dropped in a row.
    Drop { note: Option<String> },
}

/// How much of a server's stderr reaches the log file: a rate (per one-second
/// window) and a total for the session, with a visible marker when lines are dropped.
/// The in-memory tail ([`StderrTail`]) keeps the last lines regardless.
#[derive(Debug)]
pub struct LogBudget {
    per_second: u32,
    per_session: u64,
    window: Option<std::time::Instant>,
    in_window: u32,
    logged: u64,
    dropped_in_row: u64,
}

impl Default for LogBudget {
    fn default() -> Self {
        Self::new(LOG_LINES_PER_SECOND, LOG_LINES_PER_SESSION)
    }
}

impl LogBudget {
    pub fn new(per_second: u32, per_session: u64) -> Self {
        Self {
            per_second,
            per_session,
            window: None,
            in_window: 0,
            logged: 0,
            dropped_in_row: 0,
        }
    }

    /// Decides for a line arriving at `now`.
    pub fn admit(&mut self, now: std::time::Instant) -> Admit {
        let fresh = self
            .window
            .is_none_or(|start| now.duration_since(start) >= std::time::Duration::from_secs(1));
        if fresh {
            self.window = Some(now);
            self.in_window = 0;
        }
        if self.logged >= self.per_session {
            self.dropped_in_row += 1;
            let note = (self.dropped_in_row == 1).then(|| {
                format!(
                    "stderr: the log keeps at most {} lines of this server per session; later lines are dropped (the last {STDERR_LINES} stay in memory)",
                    self.per_session
                )
            });
            return Admit::Drop { note };
        }
        if self.in_window >= self.per_second {
            self.dropped_in_row += 1;
            let note = (self.dropped_in_row == 1).then(|| {
                format!(
                    "stderr: more than {} lines per second; dropping lines",
                    self.per_second
                )
            });
            return Admit::Drop { note };
        }
        self.in_window += 1;
        self.logged += 1;
        let dropped = std::mem::take(&mut self.dropped_in_row);
        let note = (dropped > 0).then(|| format!("stderr: {dropped} lines dropped"));
        Admit::Log { note }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn stderr_log_is_capped_per_second_and_per_session() {
        let start = Instant::now();
        let mut budget = LogBudget::new(3, 5);
        let at = |ms| start + Duration::from_millis(ms);
        for _ in 0..3 {
            assert_eq!(budget.admit(at(0)), Admit::Log { note: None });
        }
        assert!(
            matches!(budget.admit(at(10)), Admit::Drop { note: Some(n) } if n.contains("per second"))
        );
        assert_eq!(budget.admit(at(20)), Admit::Drop { note: None });
        assert_eq!(
            budget.admit(at(1000)),
            Admit::Log {
                note: Some("stderr: 2 lines dropped".into())
            }
        );
        assert_eq!(budget.admit(at(1001)), Admit::Log { note: None });
        // Five logged: the session total is reached.
        assert!(
            matches!(budget.admit(at(5000)), Admit::Drop { note: Some(n) } if n.contains("per session"))
        );
        assert_eq!(budget.admit(at(9000)), Admit::Drop { note: None });
    }
}
