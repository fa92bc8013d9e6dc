//! The Catalog pane: tabs for tools, resources, templates and prompts across all
//! servers, with an incremental filter.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph, Tabs, Wrap};

use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tools::ToolEffect;
use crate::tui::state::{CatalogTab, Pane, State};
use crate::tui::style::{pane_block, style};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, area: Rect) {
    let focused = state.focus == Pane::Catalog && state.overlays.is_empty();
    let block = pane_block(theme, "Catalog", focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let show_filter = state.catalog.filter.editing || !state.catalog.filter.query.is_empty();
    let [tabs_area, filter_area, list_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(u16::from(show_filter)),
        Constraint::Min(0),
    ])
    .areas(inner);

    let entries = state.catalog.visible();
    render_tabs(state, theme, frame, tabs_area, entries.len());
    if show_filter {
        let cursor = if state.catalog.filter.editing {
            "▏"
        } else {
            ""
        };
        frame.render_widget(
            Line::from(vec![
                Span::styled("/ ", style(theme, Role::KeyHint)),
                Span::styled(
                    format!("{}{cursor}", state.catalog.filter.query),
                    style(theme, Role::FilterMatch),
                ),
            ]),
            filter_area,
        );
    }

    if entries.is_empty() {
        let what = state.catalog.tab.title().to_lowercase();
        let text = if state.catalog.filter.query.is_empty() {
            vec![
                Line::styled(format!("No {what} yet."), style(theme, Role::Dim)),
                Line::styled(
                    format!(
                        "{} from connected servers are listed here.",
                        state.catalog.tab.title()
                    ),
                    style(theme, Role::Dim),
                ),
            ]
        } else {
            vec![Line::styled(
                format!("No {what} match “{}”.", state.catalog.filter.query),
                style(theme, Role::Dim),
            )]
        };
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), list_area);
        return;
    }
    let width = usize::from(list_area.width);
    // Only the rows on screen are built: the window the list would scroll to, with
    // the selection on its last row once it is past the first screen.
    let sel = state.catalog.sel.min(entries.len().saturating_sub(1));
    let start = (sel + 1).saturating_sub(usize::from(list_area.height).max(1));
    let items: Vec<ListItem> = entries
        .iter()
        .skip(start)
        .take(usize::from(list_area.height))
        .map(|e| row(state, theme, e, width))
        .collect();
    let list = List::new(items).highlight_style(style(theme, Role::Selection));
    let mut list_state = ListState::default();
    list_state.select(Some(sel - start));
    frame.render_stateful_widget(list, list_area, &mut list_state);
}

/// The tab bar: full titles when they fit, short ones when not, and at the narrowest
/// the count on the active tab only; while filtering, the active tab says how many
/// of its entries match.
fn render_tabs(state: &State, theme: &Theme, frame: &mut Frame, tabs_area: Rect, shown: usize) {
    let count = |t: CatalogTab| {
        let total = state.catalog.items.entries(t).len();
        if t == state.catalog.tab && !state.catalog.filter.query.is_empty() {
            format!("{shown}/{total}")
        } else {
            total.to_string()
        }
    };
    let full: Vec<String> = state
        .catalog
        .items
        .tabs()
        .iter()
        .map(|t| format!("{} {}", t.title(), count(*t)))
        .collect();
    let full_width = full.iter().map(|t| t.chars().count() + 1).sum::<usize>();
    let short: Vec<String> = state
        .catalog
        .items
        .tabs()
        .iter()
        .map(|t| format!("{} {}", t.short_title(), count(*t)))
        .collect();
    let short_width = short.iter().map(|t| t.chars().count() + 1).sum::<usize>();
    let width = usize::from(tabs_area.width);
    let titles: Vec<Line> = if full_width <= width {
        full.into_iter().map(Line::from).collect()
    } else if short_width <= width {
        short.into_iter().map(Line::from).collect()
    } else {
        // Narrowest: the count only on the active tab.
        state
            .catalog
            .items
            .tabs()
            .iter()
            .zip(short)
            .map(|(t, s)| {
                if *t == state.catalog.tab {
                    Line::from(s)
                } else {
                    Line::from(t.short_title())
                }
            })
            .collect()
    };
    let tabs = Tabs::new(titles)
        .select(
            state
                .catalog
                .items
                .tabs()
                .iter()
                .position(|t| *t == state.catalog.tab)
                .unwrap_or(0),
        )
        .style(style(theme, Role::TabInactive))
        .highlight_style(style(theme, Role::TabActive))
        .divider(Span::styled("│", style(theme, Role::Border)))
        .padding("", "");
    frame.render_widget(tabs, tabs_area);
}

/// One row: the effect badge, the title (or name without its `SERVER__` prefix),
/// marks, and the server (or a remote agent's card summary), cut to `width`.
fn row<'a>(
    state: &State,
    theme: &Theme,
    e: &crate::tui::state::CatalogEntry,
    width: usize,
) -> ListItem<'a> {
    // MCP tools are listed without their `SERVER__` prefix; the server follows.
    let name = e
        .name
        .strip_prefix(&format!("{}__", e.server))
        .unwrap_or(&e.name);
    let mut spans = Vec::new();
    let mut room = width;
    if let Some(effect) = e.effect {
        let role = super::approval::effect_role(effect);
        spans.push(Span::styled(
            format!("{} ", badge(effect)),
            style(theme, role),
        ));
        room = room.saturating_sub(2);
    } else if e.facts.iter().any(|(k, _)| k.starts_with("effect by")) {
        // fs, http, memory: the effect depends on the arguments.
        spans.push(Span::styled("~ ", style(theme, Role::Dim)));
        room = room.saturating_sub(2);
    }
    // The title when the server gave one; the name is in the detail view.
    let name = fit(&sanitize_line(e.title.as_deref().unwrap_or(name)), room);
    room = room.saturating_sub(name.chars().count());
    spans.push(Span::styled(name, style(theme, Role::Text)));
    for (mark, role) in marks(state, e) {
        if room > mark.chars().count() {
            room -= mark.chars().count();
            spans.push(Span::styled(mark, style(theme, role)));
        }
    }
    // A remote agent's row says what its card is; other rows name the server.
    let (after, role) = match state.catalog.items.cards.get(&e.name) {
        Some(card) => match crate::tui::agent_cards::summary(card) {
            (text, true) => (text, Role::Warning),
            (text, false) => (text, Role::Dim),
        },
        None => (e.server.clone(), Role::Dim),
    };
    if room > 3 {
        let after = fit(&sanitize_line(&after), room - 2);
        spans.push(Span::styled(format!("  {after}"), style(theme, role)));
    }
    ListItem::new(Line::from(spans))
}

/// After the name: `◆` has icons, `ui` an MCP Apps UI (`app only` when no model may
/// call it), `●` subscribed, `✱` changed since read.
fn marks(state: &State, e: &crate::tui::state::CatalogEntry) -> Vec<(&'static str, Role)> {
    use crate::tui::hub_view::{APP_ONLY_FACT, UI_FACT};
    let mut out = Vec::new();
    if e.icons > 0 {
        out.push((" ◆", Role::Dim));
    }
    if e.facts.iter().any(|(k, _)| k == UI_FACT) {
        out.push((" ui", Role::Info));
    }
    if e.facts.iter().any(|(k, _)| k == APP_ONLY_FACT) {
        out.push((" app only", Role::Warning));
    }
    if let Some((_, uri)) = e.facts.iter().find(|(k, _)| k == "uri") {
        if state.subscriptions.is_changed(&e.server, uri) {
            out.push((" ✱", Role::Warning));
        } else if state.subscriptions.is_on(&e.server, uri) {
            out.push((" ●", Role::Info));
        }
    }
    out
}

/// One letter for a tool's effect: Read, Write, Delete, Compute, `?` unknown (`~`,
/// drawn by `row`, when it depends on the arguments).
fn badge(effect: ToolEffect) -> char {
    match effect {
        ToolEffect::Read => 'R',
        ToolEffect::Write => 'W',
        ToolEffect::Delete => 'D',
        ToolEffect::Compute => 'C',
        ToolEffect::Unknown => '?',
    }
}

/// `text` in at most `width` columns, ending in `…` when cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{kept}…")
}
