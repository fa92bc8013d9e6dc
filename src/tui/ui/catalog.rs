//! The Catalog pane: tabs for tools, resources, templates and prompts across all
//! servers, with an incremental filter.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph, Tabs, Wrap};

use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::state::{CatalogTab, Pane, State};
use crate::tui::style::{pane_block, style};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, area: Rect) {
    let focused = state.focus == Pane::Catalog && state.overlay.is_none();
    let block = pane_block(theme, "Catalog", focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let show_filter = state.filter.editing || !state.filter.query.is_empty();
    let [tabs_area, filter_area, list_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(u16::from(show_filter)),
        Constraint::Min(0),
    ])
    .areas(inner);

    let full: Vec<String> = CatalogTab::ALL
        .iter()
        .map(|t| format!("{} {}", t.title(), state.catalog.entries(*t).len()))
        .collect();
    let full_width = full.iter().map(|t| t.chars().count() + 1).sum::<usize>();
    let short: Vec<String> = CatalogTab::ALL
        .iter()
        .map(|t| format!("{} {}", t.short_title(), state.catalog.entries(*t).len()))
        .collect();
    let short_width = short.iter().map(|t| t.chars().count() + 1).sum::<usize>();
    let width = usize::from(tabs_area.width);
    let titles: Vec<Line> = if full_width <= width {
        full.into_iter().map(Line::from).collect()
    } else if short_width <= width {
        short.into_iter().map(Line::from).collect()
    } else {
        // Narrowest: the count only on the active tab.
        CatalogTab::ALL
            .iter()
            .zip(short)
            .map(|(t, s)| {
                if *t == state.tab {
                    Line::from(s)
                } else {
                    Line::from(t.short_title())
                }
            })
            .collect()
    };
    let tabs = Tabs::new(titles)
        .select(state.tab.index())
        .style(style(theme, Role::TabInactive))
        .highlight_style(style(theme, Role::TabActive))
        .divider(Span::styled("│", style(theme, Role::Border)))
        .padding("", "");
    frame.render_widget(tabs, tabs_area);

    if show_filter {
        let cursor = if state.filter.editing { "▏" } else { "" };
        frame.render_widget(
            Line::from(vec![
                Span::styled("/ ", style(theme, Role::KeyHint)),
                Span::styled(
                    format!("{}{cursor}", state.filter.query),
                    style(theme, Role::FilterMatch),
                ),
            ]),
            filter_area,
        );
    }

    let entries = state.visible_catalog();
    if entries.is_empty() {
        let what = state.tab.title().to_lowercase();
        let text = if state.filter.query.is_empty() {
            vec![
                Line::styled(format!("No {what} yet."), style(theme, Role::Dim)),
                Line::styled(
                    format!(
                        "{} from connected servers are listed here.",
                        state.tab.title()
                    ),
                    style(theme, Role::Dim),
                ),
            ]
        } else {
            vec![Line::styled(
                format!("No {what} match “{}”.", state.filter.query),
                style(theme, Role::Dim),
            )]
        };
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), list_area);
        return;
    }
    let items: Vec<ListItem> = entries
        .iter()
        .map(|e| {
            // MCP tools are listed without their `SERVER__` prefix; the server follows.
            let name = e
                .name
                .strip_prefix(&format!("{}__", e.server))
                .unwrap_or(&e.name);
            ListItem::new(Line::from(vec![
                Span::styled(sanitize_line(name), style(theme, Role::Text)),
                Span::styled(
                    format!("  {}", sanitize_line(&e.server)),
                    style(theme, Role::Dim),
                ),
            ]))
        })
        .collect();
    let list = List::new(items).highlight_style(style(theme, Role::Selection));
    let mut list_state = ListState::default();
    list_state.select(Some(state.catalog_sel));
    frame.render_stateful_widget(list, list_area, &mut list_state);
}
