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
