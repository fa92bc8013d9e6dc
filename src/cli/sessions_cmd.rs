//! `switchboard sessions` and `switchboard export ID`.

use std::fmt::Write as _;
use std::io::Write;

use clap::ValueEnum;

use crate::agent::transcript::{
    manual_calls_from_events, messages_from_events, session_usage, to_json, to_markdown,
};
use crate::agent::{AgentEvent, SessionStore};
use crate::paths::Dirs;
use crate::policy::rfc3339;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Md,
    Json,
    Html,
}

/// A closed pipe (`| head`) is not an error worth a report.
fn quiet_pipe(result: std::io::Result<()>) -> color_eyre::Result<()> {
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Lists saved sessions of this workspace (`all`: of every workspace, with theirs),
/// newest first: `ID  TIME  TURNS  FIRST MESSAGE`.
pub fn list(all: bool) -> color_eyre::Result<()> {
    let dirs = Dirs::from_env();
    let store = SessionStore::from_dirs(&dirs);
    let sessions = if all {
        store.list()?
    } else {
        store.list_in(&dirs.cwd)?
    };
    let mut text = String::new();
    if sessions.is_empty() {
        let _ = if all {
            writeln!(text, "no sessions in {}", store.dir().display())
        } else {
            writeln!(
                text,
                "no sessions for {} (`switchboard sessions --all` lists every workspace's)",
                dirs.cwd.display()
            )
        };
    }
    for s in sessions {
        let time = s.modified.map(rfc3339).unwrap_or_default();
        let title: String = s.title.unwrap_or_default().chars().take(60).collect();
        let turns = crate::tui::words::count(s.turns, "turn", "turns");
        if all {
            let workspace = s.workspace.as_deref().unwrap_or("?");
            let _ = writeln!(text, "{}  {time}  {workspace}  {turns}  {title}", s.id);
        } else {
            let _ = writeln!(text, "{}  {time}  {turns}  {title}", s.id);
        }
    }
    let mut out = std::io::stdout().lock();
    quiet_pipe(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}

/// Prints a session as Markdown, JSON or HTML.
pub fn export(id: &str, format: ExportFormat) -> color_eyre::Result<()> {
    let store = SessionStore::from_dirs(&Dirs::from_env());
    let loaded = match store.load(id) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    if let Some(notice) = &loaded.notice {
        eprintln!("{notice}");
    }
    let events: Vec<&AgentEvent> = loaded.events.iter().map(|e| &e.event).collect();
    let messages = messages_from_events(events.iter().copied());
    let manual = manual_calls_from_events(events.iter().copied());
    let usage = session_usage(events.iter().copied());
    let text = match format {
        ExportFormat::Md => to_markdown(id, &messages, &manual, usage),
        ExportFormat::Json => {
            serde_json::to_string_pretty(&to_json(id, &messages, &manual, usage))? + "\n"
        }
        ExportFormat::Html => crate::agent::transcript_html::to_html(id, &loaded.events),
    };
    let mut out = std::io::stdout().lock();
    quiet_pipe(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}
