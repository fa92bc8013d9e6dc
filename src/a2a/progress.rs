//! What is known of a task while it runs, and how it ended.

use super::wire::{TaskState, Update};

/// How a task ended (or stopped to wait for the user).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `None` when the agent answered with a message instead of a task.
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    pub state: TaskState,
    /// The artifacts' text, else the status message, else the direct reply.
    pub text: String,
    /// The last status message (the reason of a failure).
    pub status_text: String,
}

/// What is known of the task so far.
#[derive(Debug, Default)]
pub(super) struct Progress {
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    pub state: Option<TaskState>,
    pub status_text: String,
    pub artifacts: String,
    pub reply: Option<String>,
}

impl Progress {
    pub fn apply(&mut self, update: &Update) {
        match update {
            Update::Task(t) => {
                self.task_id = Some(t.id.clone());
                self.context_id.clone_from(&t.context_id);
                self.state = Some(t.state.clone());
                if !t.status_text.is_empty() {
                    self.status_text.clone_from(&t.status_text);
                }
                if !t.artifacts_text.is_empty() {
                    self.artifacts.clone_from(&t.artifacts_text);
                }
            }
            Update::Message(text) if self.task_id.is_none() => self.reply = Some(text.clone()),
            Update::Message(text) => self.status_text.clone_from(text),
            Update::Status {
                task_id,
                state,
                text,
            } => {
                if self.task_id.is_none() && !task_id.is_empty() {
                    self.task_id = Some(task_id.clone());
                }
                self.state = Some(state.clone());
                if !text.is_empty() {
                    self.status_text.clone_from(text);
                }
            }
            Update::Artifact { text, append, .. } => {
                if !*append && !self.artifacts.is_empty() {
                    self.artifacts.push('\n');
                }
                self.artifacts.push_str(text);
            }
        }
    }

    pub fn done(&self) -> bool {
        self.reply.is_some()
            || self
                .state
                .as_ref()
                .is_some_and(|s| s.is_terminal() || s.is_interrupted())
    }

    pub fn outcome(&self) -> Outcome {
        let text = [&self.artifacts, &self.status_text]
            .into_iter()
            .find(|t| !t.is_empty())
            .cloned()
            .or_else(|| self.reply.clone())
            .unwrap_or_default();
        let state = match (&self.state, &self.reply) {
            (Some(state), _) => state.clone(),
            (None, Some(_)) => TaskState::Completed,
            (None, None) => TaskState::Unknown(String::new()),
        };
        Outcome {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            state,
            text,
            status_text: self.status_text.clone(),
        }
    }
}
