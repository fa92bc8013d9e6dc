//! The Tasks view: one line per task (status, server · tool, id, age, poll interval,
//! TTL), its status message under the selected one, and the keys.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::keymap::{Action, Layer};
use crate::theme::{Role, Theme};
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};
use crate::tui::tasks::age;

fn status_role(status: &str) -> Role {
    match status {
        "completed" => Role::Success,
        "failed" => Role::Error,
        "cancelled" => Role::Dim,
        "input_required" => Role::Warning,
        _ => Role::Info,
    }
}

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, sel: usize) {
    let dim = style(theme, Role::Dim);
    let mut lines = Vec::new();
    if state.tasks.is_empty() {
        lines.push(Line::styled(
            "No tasks yet: a call the server turns into a task shows here.",
            dim,
        ));
    }
    for (i, t) in state.tasks.iter().enumerate() {
        let selected = i == sel;
        let name = if selected {
            Role::Selection
        } else {
            Role::Text
        };
        let mut facts = vec![format!(
            "{} ago",
            age(state.clock_ms.saturating_sub(t.since_ms))
        )];
        if let Some(p) = t.poll_ms.filter(|_| !t.is_done()) {
            facts.push(format!("poll {p} ms"));
        }
        if let Some(ttl) = t.ttl_ms {
            facts.push(format!("ttl {}", age(ttl)));
        }
        lines.push(Line::from(vec![
            Span::styled(if selected { "› " } else { "  " }, style(theme, name)),
            Span::styled(
                format!("{:<15}", t.status),
                style(theme, status_role(&t.status)),
            ),
            Span::styled(format!("{} · {}", t.server, t.tool), style(theme, name)),
            Span::styled(format!("  {}  ", t.task_id), dim),
            Span::styled(facts.join(" · "), dim),
        ]));
        if selected && let Some(m) = &t.message {
            lines.push(Line::styled(format!("    {m}"), dim));
        }
    }
    lines.push(Line::default());
    let key = |a: Action| {
        Span::styled(
            state.keymap.hint(Layer::Tasks, a),
            style(theme, Role::KeyHint),
        )
    };
    lines.push(Line::from(vec![
        key(Action::Activate),
        Span::styled(" get (result once done)  ", dim),
        key(Action::CancelTask),
        Span::styled(" cancel task  ", dim),
        key(Action::Close),
        Span::styled(" close", dim),
    ]));
    let area = frame.area();
    let height = u16::try_from(lines.len() + 4).unwrap_or(u16::MAX);
    let rect = super::popup(
        frame,
        area.width.saturating_sub(6).min(100),
        height.min(area.height.saturating_sub(2)),
    );
    let title = format!("Tasks ({})", state.tasks.len());
    frame.render_widget(
        Paragraph::new(lines)
            .block(pane_block(theme, &title, true))
            .wrap(Wrap { trim: false }),
        rect,
    );
}
