//! The Logs pane: the newest log lines, sanitised, one per row.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::state::{LogLevel, Pane, State};
use crate::tui::style::{pane_block, style};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, area: Rect) {
    let focused = state.focus == Pane::Logs && state.overlays.is_empty();
    let level = match state.logs.level {
        LogLevel::Trace => String::new(),
        LogLevel::Debug => " ≥ debug".into(),
        LogLevel::Info => " ≥ info".into(),
        LogLevel::Warn => " ≥ warn".into(),
        LogLevel::Error => " errors".into(),
    };
    let title = if state.logs.scroll.0 > 0 {
        format!("Logs{level} ↑{}", state.logs.scroll.0)
    } else {
        format!("Logs{level}")
    };
    let block = pane_block(theme, &title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    let logs = state.logs.visible();
    let end = logs.len().saturating_sub(state.logs.scroll.0);
    let start = end.saturating_sub(height);
    let lines: Vec<Line> = logs[start..end]
        .iter()
        .map(|l| {
            let (label, role) = match l.level {
                LogLevel::Error => ("ERROR", Role::LogError),
                LogLevel::Warn => ("WARN ", Role::LogWarn),
                LogLevel::Info => ("INFO ", Role::LogInfo),
                LogLevel::Debug => ("DEBUG", Role::LogDebug),
                LogLevel::Trace => ("TRACE", Role::LogDebug),
            };
            Line::from(vec![
                Span::styled(label, style(theme, role)),
                Span::styled(
                    format!(" {} ", sanitize_line(&l.target)),
                    style(theme, Role::Dim),
                ),
                Span::styled(sanitize_line(&l.message), style(theme, Role::Text)),
            ])
        })
        .collect();
    if lines.is_empty() {
        frame.render_widget(
            Line::styled("No log lines yet.", style(theme, Role::Dim)),
            inner,
        );
    } else {
        frame.render_widget(Paragraph::new(lines), inner);
    }
}
