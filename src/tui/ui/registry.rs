//! The "Add server…" overlay: the query and results, an entry's details, the
//! install form and the entry to be written. Every text from the registry passes
//! `sanitize_line` before it is drawn.

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::keymap::{Action, Layer};
use crate::registry::search::cut;
use crate::registry::{ServerResponse, Status};
use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::registry::{InstallForm, RegistryPhase, RegistryView, preview, selected, shown};
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};

const WIDTH: u16 = 96;
const HEIGHT: u16 = 24;

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, view: &RegistryView) {
    let area = super::popup(frame, WIDTH, HEIGHT);
    let rows = usize::from(area.height.saturating_sub(2));
    let cols = usize::from(area.width.saturating_sub(2));
    let mut lines = match &view.phase {
        RegistryPhase::List => list(theme, view, rows.saturating_sub(2), cols),
        RegistryPhase::Details => selected(view).map_or_else(Vec::new, |e| details(theme, e)),
        RegistryPhase::Form(form) => form_lines(theme, view, form),
        RegistryPhase::Confirm { key, plan } => {
            let target = state
                .registry_place
                .as_ref()
                .map_or_else(String::new, |p| p.user_config.display().to_string());
            let mut out = vec![Line::styled(
                format!("writes [servers.{}] in {target}:", sanitize_line(key)),
                style(theme, Role::Title),
            )];
            for line in shown(plan) {
                out.push(Line::styled(
                    format!("  {}", sanitize_line(&line)),
                    style(theme, Role::Code),
                ));
            }
            out.push(Line::default());
            out.push(Line::styled(
                "It connects when switchboard next starts.",
                style(theme, Role::Dim),
            ));
            out
        }
    };
    lines.truncate(rows.saturating_sub(2));
    lines.push(Line::default());
    lines.push(Line::styled(
        hints(state, view),
        style(theme, Role::KeyHint),
    ));
    let block = pane_block(theme, "Add server (MCP Registry)", true);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}

fn hints(state: &State, view: &RegistryView) -> String {
    let key = |action| state.keymap.hint(Layer::Registry, action);
    match view.phase {
        RegistryPhase::List => format!(
            "type to search · {}/{} select · {} details · {} close",
            key(Action::Up),
            key(Action::Down),
            key(Action::Activate),
            key(Action::Close)
        ),
        RegistryPhase::Details => {
            format!(
                "{} install · {} back",
                key(Action::Activate),
                key(Action::Close)
            )
        }
        RegistryPhase::Form(_) => format!(
            "{}/{} field · {} check · {} back",
            key(Action::Up),
            key(Action::Down),
            key(Action::Activate),
            key(Action::Close)
        ),
        RegistryPhase::Confirm { .. } => format!(
            "{} write it · {} back",
            key(Action::ApproveOnce),
            key(Action::Close)
        ),
    }
}

fn list<'a>(theme: &Theme, view: &'a RegistryView, rows: usize, cols: usize) -> Vec<Line<'a>> {
    let mut out = vec![Line::from(vec![
        Span::styled("> ", style(theme, Role::KeyHint)),
        Span::styled(
            format!("{}▏", sanitize_line(&view.query)),
            style(theme, Role::Text),
        ),
        Span::styled(
            if view.searching { "  searching…" } else { "" },
            style(theme, Role::Dim),
        ),
    ])];
    if let Some(error) = &view.error {
        out.push(Line::styled(
            cut(&sanitize_line(error), cols),
            style(theme, Role::Error),
        ));
    }
    if let Some(age) = &view.cached_age {
        out.push(Line::styled(
            format!("these results are from the list cached {age} ago"),
            style(theme, Role::Warning),
        ));
    }
    if view.results.is_empty() {
        let text = if view.query.is_empty() {
            "type to search names, titles and descriptions"
        } else if view.searching || view.error.is_some() {
            ""
        } else {
            "no server matches"
        };
        out.push(Line::styled(text, style(theme, Role::Dim)));
        return out;
    }
    let room = rows.saturating_sub(out.len()).max(1);
    let first = view.selected.saturating_sub(room - 1);
    for (i, entry) in view.results.iter().enumerate().skip(first).take(room) {
        let line = row(entry, cols);
        let role = if i == view.selected {
            Role::Selection
        } else {
            Role::Text
        };
        out.push(Line::styled(line, style(theme, role)));
    }
    out
}

/// One result: name, version, what it installs as, `(deprecated)`, description cut.
fn row(entry: &ServerResponse, cols: usize) -> String {
    let server = &entry.server;
    let mut about = sanitize_line(&crate::registry::search::about(server));
    if entry.status() == Status::Deprecated {
        about = format!("(deprecated) {about}");
    }
    let head = format!(
        "{:<36} {:<10} {:<7} ",
        cut(&sanitize_line(&server.name), 36),
        cut(&sanitize_line(&server.version), 10),
        crate::registry::search::installs_as(entry),
    );
    let rest = cols.saturating_sub(head.chars().count());
    format!("{head}{}", cut(&about, rest))
}

fn details(theme: &Theme, entry: &ServerResponse) -> Vec<Line<'static>> {
    let server = &entry.server;
    let text = style(theme, Role::Text);
    let dim = style(theme, Role::Dim);
    let title = server.title.as_deref().unwrap_or(&server.name);
    let mut out = vec![Line::styled(
        format!(
            "{} — {} {}",
            sanitize_line(title),
            sanitize_line(&server.name),
            sanitize_line(&server.version)
        ),
        style(theme, Role::Title),
    )];
    if entry.status() == Status::Deprecated {
        out.push(Line::styled(
            "deprecated in the registry",
            style(theme, Role::Warning),
        ));
    }
    if !server.description.is_empty() {
        out.push(Line::styled(sanitize_line(&server.description), text));
    }
    let repository = server
        .repository
        .as_ref()
        .and_then(|r| r.get("url"))
        .and_then(|u| u.as_str());
    for (label, value) in [
        ("repository", repository),
        ("website", server.website_url.as_deref()),
    ] {
        if let Some(value) = value {
            out.push(labelled(
                label,
                &sanitize_line(value),
                dim,
                style(theme, Role::Link),
            ));
        }
    }
    out.push(Line::default());
    match preview(entry) {
        Ok(plan) => {
            out.push(Line::styled(
                format!("installs as {} (values not given yet in <>):", plan.source),
                text,
            ));
            for line in shown(&plan) {
                out.push(Line::styled(
                    format!("  {}", sanitize_line(&line)),
                    style(theme, Role::Code),
                ));
            }
        }
        Err(why) => out.push(Line::styled(sanitize_line(&why), style(theme, Role::Error))),
    }
    out
}

fn labelled(label: &str, value: &str, dim: Style, value_style: Style) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label}: "), dim),
        Span::styled(value.to_owned(), value_style),
    ])
}

fn form_lines<'a>(theme: &Theme, view: &RegistryView, form: &'a InstallForm) -> Vec<Line<'a>> {
    let name = selected(view).map_or("", |e| e.server.name.as_str());
    let mut out = vec![Line::styled(
        format!("{} asks for:", sanitize_line(name)),
        style(theme, Role::Title),
    )];
    for (i, (question, value)) in form.questions.iter().zip(&form.values).enumerate() {
        let mut about = sanitize_line(&question.what);
        if let Some(description) = &question.description {
            let _ = write!(about, " — {}", cut(&sanitize_line(description), 60));
        }
        if !question.choices.is_empty() {
            let choices: Vec<String> = question.choices.iter().map(|c| sanitize_line(c)).collect();
            let _ = write!(about, " (one of {})", choices.join(", "));
        }
        let mark = match &question.default {
            Some(default) => format!(" [{}]", sanitize_line(default)),
            None if question.required => " (required)".to_owned(),
            None => " (optional)".to_owned(),
        };
        out.push(Line::styled(
            format!("{about}{mark}"),
            style(theme, Role::Dim),
        ));
        let cursor = if i == form.field { "▏" } else { "" };
        let role = if i == form.field {
            Role::Selection
        } else {
            Role::Text
        };
        out.push(Line::from(vec![
            Span::styled("> ", style(theme, Role::KeyHint)),
            Span::styled(
                format!("{}{cursor}", sanitize_line(value)),
                style(theme, role),
            ),
        ]));
    }
    if let Some(error) = &form.error {
        out.push(Line::styled(
            sanitize_line(error),
            style(theme, Role::Error),
        ));
    }
    out.push(Line::styled(
        "secrets are not asked: they are written as ${VAR} and read from the environment",
        style(theme, Role::Dim),
    ));
    out
}
