//! "Add server…" in the palette: the MCP Registry from the TUI. Typing searches the
//! registry (the executor waits a moment and sends only the newest search); Up/Down
//! select, Enter shows an entry's details and again installs it: the values it asks
//! for in a small form, then the exact entry, written to the person's own config on
//! `y` (the same write `mcp add` does; secrets as `${VAR}` references, through
//! `registry::plan`). Esc steps back, and closes from the list.

pub use super::state::{
    InstallForm, Installed, RegistryMsg, RegistryPhase, RegistryPlace, RegistryView, Results,
};
use crate::keymap::{Action, Key, KeyCode};
use crate::registry::{self, Answers, Plan, ServerResponse};

use super::msg::{Cmd, Handled, RegistryCmd};
use super::state::{ChatEntry, ChatKind, NoticeLevel, Overlay, State};

/// Opens the overlay over the others.
pub fn open(state: &mut State) -> Vec<Cmd> {
    state.overlays.push(Overlay::Registry(Box::default()));
    Vec::new()
}

fn view_mut(state: &mut State) -> Option<&mut RegistryView> {
    match state.overlays.top_mut() {
        Some(Overlay::Registry(view)) => Some(view),
        _ => None,
    }
}

/// Keys in the overlay, by phase.
pub fn key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    let Some(view) = view_mut(state) else {
        return Handled::nothing();
    };
    let typing = matches!(view.phase, RegistryPhase::List | RegistryPhase::Form(_));
    if typing && let Some(c) = key.typed_char() {
        return typed(view, Edit::Push(c)).into();
    }
    if typing && key.code == KeyCode::Backspace {
        return typed(view, Edit::Pop).into();
    }
    if typing && key.clears_line() {
        return typed(view, Edit::Clear).into();
    }
    match action {
        Some(Action::Close) => {
            if view.phase == RegistryPhase::List {
                state.overlays.pop();
            } else if matches!(view.phase, RegistryPhase::Details) {
                view.phase = RegistryPhase::List;
            } else {
                view.phase = RegistryPhase::Details;
            }
            Handled::nothing()
        }
        Some(Action::Up) => {
            step(view, -1);
            Handled::nothing()
        }
        Some(Action::Down) => {
            step(view, 1);
            Handled::nothing()
        }
        Some(Action::Activate) => activate(state).into(),
        Some(Action::ApproveOnce) => write(view).into(),
        Some(other) => Handled::Unhandled(other),
        None => Handled::nothing(),
    }
}

#[derive(Clone, Copy)]
enum Edit<'a> {
    Push(char),
    Paste(&'a str),
    Pop,
    Clear,
}

/// Bracketed paste into the query (a new search) or the form's field: one line.
pub fn paste(state: &mut State, text: &str) -> Vec<Cmd> {
    match view_mut(state) {
        Some(view) if matches!(view.phase, RegistryPhase::List | RegistryPhase::Form(_)) => {
            typed(view, Edit::Paste(text))
        }
        _ => Vec::new(),
    }
}

/// Typing into the query (a new search) or the form's field.
fn typed(view: &mut RegistryView, edit: Edit<'_>) -> Vec<Cmd> {
    let text = match &mut view.phase {
        RegistryPhase::Form(form) => match form.values.get_mut(form.field) {
            Some(value) => value,
            None => return Vec::new(),
        },
        _ => &mut view.query,
    };
    match edit {
        Edit::Push(c) => text.push(c),
        Edit::Paste(pasted) => text.push_str(crate::sanitize::sanitize_line(pasted).trim()),
        Edit::Pop => {
            text.pop();
        }
        Edit::Clear => text.clear(),
    }
    if let RegistryPhase::Form(form) = &mut view.phase {
        form.error = None;
        return Vec::new();
    }
    view.seq += 1;
    view.searching = true;
    vec![
        RegistryCmd::Search {
            seq: view.seq,
            query: view.query.clone(),
        }
        .into(),
    ]
}

fn step(view: &mut RegistryView, by: isize) {
    let (at, count) = match &mut view.phase {
        RegistryPhase::List => (&mut view.selected, view.results.len()),
        RegistryPhase::Form(form) => (&mut form.field, form.questions.len()),
        RegistryPhase::Details | RegistryPhase::Confirm { .. } => return,
    };
    *at = at.saturating_add_signed(by).min(count.saturating_sub(1));
}

/// Enter: the list opens the details, the details start the install, the form is
/// checked and shows what would be written.
fn activate(state: &mut State) -> Vec<Cmd> {
    let Some(view) = view_mut(state) else {
        return Vec::new();
    };
    let outcome = match &view.phase {
        RegistryPhase::List => {
            if view.results.get(view.selected).is_some() {
                view.phase = RegistryPhase::Details;
            }
            return Vec::new();
        }
        RegistryPhase::Details => start_install(view),
        RegistryPhase::Form(form) => finish_form(view, form.clone()),
        RegistryPhase::Confirm { .. } => return Vec::new(),
    };
    if let Err(message) = outcome {
        state.notice(NoticeLevel::Error, message);
    }
    Vec::new()
}

/// The selected entry.
pub fn selected(view: &RegistryView) -> Option<&ServerResponse> {
    view.results.get(view.selected)
}

/// From the details: the form when the entry asks for values, else the entry to
/// write.
fn start_install(view: &mut RegistryView) -> Result<(), String> {
    let Some(entry) = selected(view) else {
        return Ok(());
    };
    let choice = registry::plan::choose(&entry.server, false).map_err(|e| e.to_string())?;
    let questions = registry::plan::questions(choice).map_err(|e| e.to_string())?;
    if questions.is_empty() {
        let plan = registry::plan::build(choice, &Answers::new()).map_err(|e| e.to_string())?;
        view.phase = confirm(entry, plan);
        return Ok(());
    }
    let values = vec![String::new(); questions.len()];
    view.phase = RegistryPhase::Form(InstallForm {
        questions,
        values,
        field: 0,
        error: None,
    });
    Ok(())
}

fn confirm(entry: &ServerResponse, plan: Plan) -> RegistryPhase {
    RegistryPhase::Confirm {
        key: registry::plan::config_name(&entry.server.name),
        plan: Box::new(plan),
    }
}

/// The form's values checked: a required one left empty (without a default) is
/// named in the form; else the entry to write.
fn finish_form(view: &mut RegistryView, mut form: InstallForm) -> Result<(), String> {
    let Some(entry) = selected(view) else {
        return Ok(());
    };
    let empty_required = form
        .questions
        .iter()
        .zip(&form.values)
        .position(|(q, v)| q.required && q.default.is_none() && v.trim().is_empty());
    if let Some(at) = empty_required {
        form.error = Some(format!("{} is required", form.questions[at].what));
        form.field = at;
        view.phase = RegistryPhase::Form(form);
        return Ok(());
    }
    let answers: Answers = form
        .questions
        .iter()
        .zip(&form.values)
        .filter(|(_, v)| !v.trim().is_empty())
        .map(|(q, v)| ((q.flag, q.key.clone()), v.trim().to_owned()))
        .collect();
    let choice = registry::plan::choose(&entry.server, false).map_err(|e| e.to_string())?;
    match registry::plan::build(choice, &answers) {
        Ok(plan) => view.phase = confirm(entry, plan),
        Err(e) => {
            form.error = Some(e.to_string());
            view.phase = RegistryPhase::Form(form);
        }
    }
    Ok(())
}

/// `y` on the entry to be written: the write.
fn write(view: &RegistryView) -> Vec<Cmd> {
    let RegistryPhase::Confirm { key, plan } = &view.phase else {
        return Vec::new();
    };
    vec![
        RegistryCmd::Install {
            key: key.clone(),
            server: Box::new(plan.server.clone()),
            shown: shown(plan),
        }
        .into(),
    ]
}

/// What an install writes, a line each: the command or URL, environment and
/// headers, then each secret the server reads from the environment.
pub fn shown(plan: &Plan) -> Vec<String> {
    let mut lines = plan.shown();
    for secret in &plan.secrets {
        lines.push(format!(
            "secret: ${{{}}} ({}) is read from the environment when the server starts",
            secret.var, secret.what
        ));
    }
    lines
}

/// What the registry work said.
pub fn on_msg(state: &mut State, msg: RegistryMsg) -> Vec<Cmd> {
    match msg {
        RegistryMsg::Found { seq, query, result } => {
            if let Some(view) = view_mut(state).filter(|v| v.seq == seq && v.query == query) {
                found(view, result);
            }
        }
        RegistryMsg::Installed(Ok(done)) => {
            if view_mut(state).is_some() {
                state.overlays.pop();
            }
            let mut text = format!("added {} server {} in {}:", done.kind, done.key, done.path);
            for line in done.shown.iter().chain(done.notes.iter()) {
                text.push_str("\n  ");
                text.push_str(&crate::sanitize::sanitize_line(line));
            }
            text.push_str(
                "\nIt connects when switchboard next starts (this session's servers were started with it).",
            );
            state.chat.push(ChatEntry::new(ChatKind::Note, text));
            state.chat.follow();
            state.notice(NoticeLevel::Info, format!("added server {}", done.key));
        }
        RegistryMsg::Installed(Err(message)) => state.notice(NoticeLevel::Error, message),
    }
    Vec::new()
}

fn found(view: &mut RegistryView, result: Result<Box<Results>, String>) {
    view.searching = false;
    match result {
        Ok(results) => {
            let Results { servers, cached } = *results;
            view.results = servers;
            view.selected = 0;
            (view.cached_age, view.error) = match cached {
                Some((age, error)) => (Some(age), Some(error)),
                None => (None, None),
            };
        }
        Err(error) => {
            view.results.clear();
            view.selected = 0;
            view.cached_age = None;
            view.error = Some(error);
        }
    }
}

/// The details' preview of what an install would write: the values not given yet
/// shown as `<name>` (or their default).
pub fn preview(entry: &ServerResponse) -> Result<Plan, String> {
    let choice = registry::plan::choose(&entry.server, false).map_err(|e| e.to_string())?;
    let questions = registry::plan::questions(choice).map_err(|e| e.to_string())?;
    let answers: Answers = questions
        .into_iter()
        .map(|q| {
            let value = q.default.clone().unwrap_or_else(|| format!("<{}>", q.key));
            ((q.flag, q.key), value)
        })
        .collect();
    registry::plan::build(choice, &answers).map_err(|e| e.to_string())
}
