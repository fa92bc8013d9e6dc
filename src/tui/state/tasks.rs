//! The tasks calls became, as rows.

#[derive(Debug, Clone, PartialEq)]
pub struct TaskRow {
    pub server: String,
    pub task_id: String,
    pub tool: String,
    /// `working`, `input_required`, `completed`, `failed`, `cancelled`.
    pub status: String,
    pub message: Option<String>,
    pub ttl_ms: Option<u64>,
    pub poll_ms: Option<u64>,
    /// The UI clock when it was first seen (for its age).
    pub since_ms: u64,
}

impl TaskRow {
    pub fn is_done(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }
}
