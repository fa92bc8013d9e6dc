//! The Skills and Memory panes: a list on the left, the selected item's text on the
//! right.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph};

use crate::keymap::{Action, Layer};
use crate::sanitize::{sanitize, sanitize_line};
use crate::theme::{Role, Theme};
use crate::tools::builtin::human_size;
use crate::tui::library::BrowseKind;
use crate::tui::state::State;
use crate::tui::state::transcript::wrap;
use crate::tui::style::{pane_block, style};

fn text_lines(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    sanitize(text)
        .lines()
        .flat_map(|l| wrap(l, usize::from(width.max(1))))
        .map(|l| Line::styled(l, style(theme, Role::Text)))
        .collect()
}

fn skills(
    state: &State,
    theme: &Theme,
    sel: usize,
) -> (Vec<ListItem<'static>>, Vec<Line<'static>>, String) {
    let lib = &state.library;
    let items: Vec<ListItem> = lib
        .skills
        .iter()
        .map(|s| {
            let mut spans = vec![Span::styled(
                sanitize_line(&s.name),
                style(theme, Role::Text),
            )];
            if let Some(v) = &s.version {
                spans.push(Span::styled(
                    format!(" {}", sanitize_line(v)),
                    style(theme, Role::Dim),
                ));
            }
            if !s.visible {
                spans.push(Span::styled(
                    " hidden from model",
                    style(theme, Role::Warning),
                ));
            }
            ListItem::new(Line::from(spans))
        })
        .chain(lib.skipped.iter().map(|reason| {
            ListItem::new(Line::styled(
                format!("skipped: {}", sanitize_line(reason)),
                style(theme, Role::Warning),
            ))
        }))
        .collect();
    let mut detail = Vec::new();
    if let Some(s) = lib.skills.get(sel) {
        detail.push(Line::styled(
            sanitize_line(&s.description),
            style(theme, Role::Title),
        ));
        detail.push(Line::styled(
            format!(
                "sha256 {} · {}",
                s.sha256.get(..12).unwrap_or(&s.sha256),
                sanitize_line(&s.path)
            ),
            style(theme, Role::Dim),
        ));
        detail.push(Line::default());
        detail.extend(text_lines(&s.body, 200, theme));
    } else if lib.skills.is_empty() {
        detail.push(Line::styled(
            "No skills loaded. Put NAME/SKILL.md under ./skills/ or [skills] paths.",
            style(theme, Role::Dim),
        ));
    }
    (items, detail, "Skills".into())
}

fn memory(state: &State, theme: &Theme) -> (Vec<ListItem<'static>>, Vec<Line<'static>>, String) {
    let lib = &state.library;
    let items: Vec<ListItem> = lib
        .memory_files
        .iter()
        .map(|(path, size)| {
            ListItem::new(Line::from(vec![
                Span::styled(
                    format!("{:>6}  ", human_size(*size)),
                    style(theme, Role::Dim),
                ),
                Span::styled(sanitize_line(path), style(theme, Role::Text)),
            ]))
        })
        .collect();
    let detail = match (&lib.memory_open, &lib.memory_dir) {
        (Some((path, text)), _) => {
            let mut lines = vec![Line::styled(sanitize_line(path), style(theme, Role::Title))];
            lines.extend(text_lines(text, 200, theme));
            lines
        }
        (None, Some(dir)) if lib.memory_files.is_empty() => vec![Line::styled(
            format!("No memory files yet in {}.", sanitize_line(dir)),
            style(theme, Role::Dim),
        )],
        (None, Some(_)) => vec![Line::styled(
            format!(
                "{} shows the selected file.",
                state.keymap.hint(Layer::Browse, Action::Activate)
            ),
            style(theme, Role::Dim),
        )],
        (None, None) => vec![Line::styled(
            "The memory tool is disabled.",
            style(theme, Role::Dim),
        )],
    };
    let title = lib.memory_dir.as_deref().map_or_else(
        || "Memory".to_string(),
        |d| format!("Memory · {}", sanitize_line(d)),
    );
    (items, detail, title)
}

pub fn render(
    state: &State,
    theme: &Theme,
    frame: &mut Frame,
    kind: BrowseKind,
    sel: usize,
    scroll: u16,
) {
    let area = frame.area();
    let rect = super::popup(
        frame,
        area.width.saturating_sub(4),
        area.height.saturating_sub(4),
    );
    let (items, detail, title) = match kind {
        BrowseKind::Skills => skills(state, theme, sel),
        BrowseKind::Memory => memory(state, theme),
    };
    let block = pane_block(theme, &title, true);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let list_w = (inner.width / 3).clamp(20.min(inner.width), 40);
    let [list_area, text_area] =
        Layout::horizontal([Constraint::Length(list_w), Constraint::Min(1)]).areas(inner);
    let list = List::new(items)
        .block(
            Block::default()
                .borders(Borders::RIGHT)
                .border_style(style(theme, Role::Border)),
        )
        .highlight_style(style(theme, Role::Selection));
    let mut list_state = ListState::default();
    list_state.select(Some(sel));
    frame.render_stateful_widget(list, list_area, &mut list_state);
    let text_area = Rect {
        x: text_area.x + 1,
        width: text_area.width.saturating_sub(1),
        ..text_area
    };
    let detail: Vec<Line> = detail
        .into_iter()
        .flat_map(|l| {
            let s: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
            let st = l.style;
            wrap(&s, usize::from(text_area.width.max(1)))
                .into_iter()
                .map(move |w| Line::styled(w, st))
                .collect::<Vec<_>>()
        })
        .collect();
    frame.render_widget(Paragraph::new(detail).scroll((scroll, 0)), text_area);
}
