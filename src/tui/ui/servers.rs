//! The Servers pane: one row per server with a status dot, its transport, the
//! protocol generation it speaks (once connected) and its tool count or state; a stdio
//! server under its Landlock sandbox says `sandboxed` in place of `stdio`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState};

use crate::keymap::{Action, Layer};
use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::state::{Pane, ServerStatus, State};
use crate::tui::style::{pane_block, style};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, area: Rect) {
    let focused = state.focus == Pane::Servers && state.overlays.is_empty();
    let block = pane_block(theme, "Servers", focused);
    let inner = usize::from(area.width.saturating_sub(2));
    let items: Vec<ListItem> = state
        .servers
        .rows
        .iter()
        .map(|s| {
            let (dot, dot_role, label) = match s.status {
                ServerStatus::Builtin | ServerStatus::Ready => (
                    "●",
                    Role::ToolOk,
                    crate::tui::words::count(s.tools, "tool", "tools"),
                ),
                ServerStatus::Idle => ("○", Role::Dim, "not connected".to_string()),
                ServerStatus::Connecting => ("◐", Role::Warning, "connecting".to_string()),
                ServerStatus::Failed => ("✗", Role::Error, "failed".to_string()),
                ServerStatus::NeedsLogin => ("◆", Role::Warning, "needs login".to_string()),
                ServerStatus::Disconnected => ("○", Role::Warning, "disconnected".to_string()),
                ServerStatus::Disabled => ("◌", Role::Dim, "disabled".to_string()),
                ServerStatus::OnDemand if s.tools > 0 => (
                    "◇",
                    Role::Dim,
                    crate::tui::words::count(s.tools, "tool", "tools"),
                ),
                ServerStatus::OnDemand => ("◇", Role::Dim, "on demand".to_string()),
            };
            let cost = match s.status {
                ServerStatus::Builtin | ServerStatus::Ready => {
                    tool_cost(s.tools, s.declared, state)
                }
                _ => None,
            };
            let name = sanitize_line(&s.name);
            // Only stdio servers are sandboxed, so the marker stands for the transport.
            let transport = if s.sandboxed {
                "sandboxed"
            } else {
                s.transport.as_str()
            };
            let meta = meta(
                s,
                &name,
                &Meta {
                    dot,
                    transport,
                    label: &label,
                    cost,
                },
                inner,
            );
            let mut lines = vec![Line::from(vec![
                Span::styled(format!("{dot} "), style(theme, dot_role)),
                Span::styled(name, style(theme, Role::Text)),
                Span::styled(meta, style(theme, Role::Dim)),
            ])];
            if s.status == ServerStatus::NeedsLogin {
                let key = state.keymap.hint(Layer::Normal, Action::Login);
                lines.push(Line::styled(
                    format!("  {key} to log in"),
                    style(theme, Role::KeyHint),
                ));
            }
            if let Some(detail) = &s.detail {
                let role = if s.status == ServerStatus::Failed {
                    Role::Error
                } else {
                    Role::Dim
                };
                lines.push(Line::styled(
                    format!("  {}", sanitize_line(detail)),
                    style(theme, role),
                ));
            }
            ListItem::new(lines)
        })
        .collect();
    let mut items = items;
    items.extend(serve_items(state, theme));
    let list = List::new(items)
        .block(block)
        .highlight_style(style(theme, Role::Selection));
    let mut list_state = ListState::default();
    if focused && !state.servers.rows.is_empty() {
        list_state.select(Some(state.servers.sel));
    }
    frame.render_stateful_widget(list, area, &mut list_state);
}

fn fits(text: &str, width: usize) -> bool {
    unicode_width::UnicodeWidthStr::width(text) <= width
}

/// `--serve`: the gateway's URL, then one row per connected client (not selectable:
/// they follow the servers).
fn serve_items(state: &State, theme: &Theme) -> Vec<ListItem<'static>> {
    let Some(url) = &state.serve.url else {
        return Vec::new();
    };
    let mut items = vec![ListItem::new(Line::from(vec![
        Span::styled("⇄ ", style(theme, Role::ToolOk)),
        Span::styled("serving", style(theme, Role::Text)),
        Span::styled(format!("  {}", sanitize_line(url)), style(theme, Role::Dim)),
    ]))];
    for client in &state.serve.clients {
        items.push(ListItem::new(Line::styled(
            format!("  ← {}", sanitize_line(client)),
            style(theme, Role::Dim),
        )));
    }
    items
}

/// What declaring a row's tools costs (`3.1k tok`), when it has tools.
fn tool_cost(tools: usize, declared: crate::llm::DeclarationSize, state: &State) -> Option<String> {
    if tools == 0 || declared.tools == 0 {
        return None;
    }
    let tokens = declared.tokens(state.status.declaration_shape());
    Some(format!(
        "{} tok",
        crate::llm::token_estimate::short(tokens as u64)
    ))
}

/// The parts of a row after its name.
struct Meta<'a> {
    dot: &'a str,
    transport: &'a str,
    label: &'a str,
    cost: Option<String>,
}

/// The first of these that fits the row: transport, era, count and cost; transport,
/// count and cost; count and cost; else transport and count, cut at the edge (the
/// details always say everything).
fn meta(row: &crate::tui::state::ServerRow, name: &str, m: &Meta<'_>, inner: usize) -> String {
    let label = match &m.cost {
        Some(cost) => format!("{} · {cost}", m.label),
        None => m.label.to_owned(),
    };
    if row.status == ServerStatus::Builtin {
        return format!("  {label}");
    }
    let transport = m.transport;
    let mut candidates = Vec::new();
    if let Some(era) = &row.era {
        candidates.push(format!("  {transport} · {} · {label}", sanitize_line(era)));
    }
    candidates.push(format!("  {transport} · {label}"));
    if m.cost.is_some() {
        candidates.push(format!("  {label}"));
    }
    candidates
        .into_iter()
        .find(|c| fits(&format!("{} {name}{c}", m.dot), inner))
        .unwrap_or_else(|| format!("  {transport} · {}", m.label))
}
