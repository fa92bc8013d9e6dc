//! The session store: every event of a session appended as one JSON line to
//! `$XDG_STATE_HOME/switchboard/sessions/ID.jsonl`, flushed per line.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::event::AgentEvent;
use crate::paths::{APP_DIR, Dirs};
use crate::policy::rfc3339;

/// A store problem.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0:?} is not a session id (letters, digits, `-` and `_` only)")]
    BadId(String),
    #[error("no session {id} in {dir}")]
    NotFound { id: String, dir: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// One line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEvent {
    /// RFC 3339, UTC.
    pub time: String,
    #[serde(flatten)]
    pub event: AgentEvent,
}

/// Where sessions live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionStore {
    dir: PathBuf,
}

/// A session read back.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSession {
    pub id: String,
    pub events: Vec<StoredEvent>,
    /// Set when the file ended mid-line or held unreadable lines.
    pub notice: Option<String>,
}

impl LoadedSession {
    /// The events alone, without their times.
    pub fn agent_events(&self) -> impl Iterator<Item = &AgentEvent> {
        self.events.iter().map(|e| &e.event)
    }

    /// The conversation to continue (`SessionOptions::history`).
    pub fn messages(&self) -> Vec<crate::llm::Message> {
        super::transcript::messages_from_events(self.agent_events())
    }

    /// Tokens used over the session's finished turns.
    pub fn usage(&self) -> crate::llm::Usage {
        super::transcript::session_usage(self.agent_events())
    }
}

/// A line in `switchboard sessions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub id: String,
    pub path: PathBuf,
    pub modified: Option<SystemTime>,
    /// The first user message, if any.
    pub title: Option<String>,
    pub turns: usize,
    /// The directory it worked in (`None` for sessions saved before it was recorded).
    pub workspace: Option<String>,
}

/// Appends events to one session file. The file is created only when the session
/// has something worth keeping (a message, or a call the person made): until then
/// events wait in memory, so an empty session leaves no file.
#[derive(Debug)]
pub struct SessionWriter {
    path: PathBuf,
    file: Option<File>,
    pending: Vec<AgentEvent>,
}

/// An event that makes a session worth a file.
fn has_content(event: &AgentEvent) -> bool {
    matches!(
        event,
        AgentEvent::TurnStarted { .. }
            | AgentEvent::ToolCallRequested { .. }
            | AgentEvent::RequestStarted { .. }
    )
}

impl SessionStore {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `$XDG_STATE_HOME/switchboard/sessions`.
    pub fn from_dirs(dirs: &Dirs) -> Self {
        Self::new(dirs.state_home.join(APP_DIR).join("sessions"))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path(&self, id: &str) -> Result<PathBuf, StoreError> {
        check_id(id)?;
        Ok(self.dir.join(format!("{id}.jsonl")))
    }

    /// A writer for session `id`: it appends to the file (creating it once the
    /// session has content; at once when the file exists, as for a resumed session).
    pub fn writer(&self, id: &str) -> Result<SessionWriter, StoreError> {
        let path = self.path(id)?;
        let mut writer = SessionWriter {
            path,
            file: None,
            pending: Vec::new(),
        };
        if writer.path.exists() {
            writer.open()?;
        }
        Ok(writer)
    }

    /// Reads a session; a last line cut short is left out with a notice.
    pub fn load(&self, id: &str) -> Result<LoadedSession, StoreError> {
        let path = self.path(id)?;
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(StoreError::NotFound {
                    id: id.to_owned(),
                    dir: self.dir.clone(),
                });
            }
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        Ok(parse_session(id, &text))
    }

    /// All sessions, newest first.
    pub fn list(&self) -> Result<Vec<SessionSummary>, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(StoreError::Io {
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".jsonl"))
            else {
                continue;
            };
            let Ok(loaded) = self.load(id) else {
                continue;
            };
            let mut turns = loaded.events.iter().filter_map(|e| match &e.event {
                AgentEvent::TurnStarted { text, .. } => Some(text),
                _ => None,
            });
            let title = turns
                .next()
                .map(|t| t.lines().next().unwrap_or("").to_owned());
            let calls_only = || {
                loaded.events.iter().find_map(|e| match &e.event {
                    AgentEvent::ToolCallRequested { tool, .. } => Some(format!("(calls) {tool}")),
                    AgentEvent::RequestStarted { label, .. } => Some(format!("(calls) {label}")),
                    _ => None,
                })
            };
            let workspace = loaded.events.iter().find_map(|e| match &e.event {
                AgentEvent::SessionStarted { workspace, .. } => workspace.clone(),
                _ => None,
            });
            out.push(SessionSummary {
                id: id.to_owned(),
                modified: entry.metadata().and_then(|m| m.modified()).ok(),
                path,
                turns: usize::from(title.is_some()) + turns.count(),
                title: title.or_else(calls_only),
                workspace,
            });
        }
        out.sort_by(|a, b| b.modified.cmp(&a.modified).then(b.id.cmp(&a.id)));
        Ok(out)
    }

    /// Sessions of one workspace, newest first.
    pub fn list_in(&self, workspace: &Path) -> Result<Vec<SessionSummary>, StoreError> {
        let wanted = workspace.display().to_string();
        Ok(self
            .list()?
            .into_iter()
            .filter(|s| s.workspace.as_deref() == Some(wanted.as_str()))
            .collect())
    }

    /// The newest session of a workspace (`--continue`).
    pub fn latest_in(&self, workspace: &Path) -> Result<Option<String>, StoreError> {
        Ok(self.list_in(workspace)?.into_iter().next().map(|s| s.id))
    }
}

impl SessionWriter {
    fn open(&mut self) -> Result<(), StoreError> {
        let io_err = |source| StoreError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(io_err)?;
        }
        let file = crate::paths::private_file_options()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io_err)?;
        self.file = Some(file);
        Ok(())
    }

    /// Writes one line and flushes it (once the session has content; before, the
    /// event waits in memory).
    pub fn append(&mut self, event: &AgentEvent) -> Result<(), StoreError> {
        if self.file.is_none() {
            if !has_content(event) {
                self.pending.push(event.clone());
                return Ok(());
            }
            self.open()?;
            for pending in std::mem::take(&mut self.pending) {
                self.write_line(&pending)?;
            }
        }
        self.write_line(event)
    }

    fn write_line(&mut self, event: &AgentEvent) -> Result<(), StoreError> {
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        let line = StoredEvent {
            time: rfc3339(SystemTime::now()),
            event: event.clone(),
        };
        let mut text = serde_json::to_string(&line).map_err(|e| StoreError::Io {
            path: self.path.clone(),
            source: io::Error::other(e),
        })?;
        text.push('\n');
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|source| StoreError::Io {
                path: self.path.clone(),
                source,
            })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Parses the text of a session file.
pub fn parse_session(id: &str, text: &str) -> LoadedSession {
    let (whole, cut) = match text.rfind('\n') {
        Some(end) => (&text[..=end], !text[end + 1..].trim().is_empty()),
        None => ("", !text.trim().is_empty()),
    };
    let mut events = Vec::new();
    let mut bad = 0usize;
    for line in whole.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<StoredEvent>(line) {
            Ok(e) => events.push(e),
            Err(_) => bad += 1,
        }
    }
    let mut notes = Vec::new();
    if cut {
        notes.push("the file ends mid-line (was switchboard stopped while writing?); loaded up to the last whole line".to_owned());
    }
    if bad > 0 {
        notes.push(format!("{bad} unreadable line(s) skipped"));
    }
    LoadedSession {
        id: id.to_owned(),
        events,
        notice: (!notes.is_empty()).then(|| format!("session {id}: {}", notes.join("; "))),
    }
}

/// A fresh session id: `20261103-140509-3fa2` (UTC time and a random suffix).
pub fn new_session_id() -> String {
    use std::hash::BuildHasher;
    let time = rfc3339(SystemTime::now());
    let digits: String = time.chars().filter(char::is_ascii_digit).take(14).collect();
    let (date, clock) = digits.split_at(digits.len().min(8));
    let random = std::collections::hash_map::RandomState::new().hash_one(&time) & 0xffff;
    format!("{date}-{clock}-{random:04x}")
}

fn check_id(id: &str) -> Result<(), StoreError> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(StoreError::BadId(id.to_owned()))
    }
}
