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
            let name = sanitize_line(&s.name);
            // Only stdio servers are sandboxed, so the marker stands for the transport.
            let transport = if s.sandboxed {
                "sandboxed"
            } else {
                s.transport.as_str()
            };
            let meta = match (&s.status, &s.era) {
                (ServerStatus::Builtin, _) => format!("  {label}"),
                // The era when the row has room for it (the details always say it).
                (_, Some(era))
                    if fits(
                        &format!("{dot} {name}  {transport} · {era} · {label}"),
                        inner,
                    ) =>
                {
                    format!("  {transport} · {} · {label}", sanitize_line(era))
                }
                _ => format!("  {transport} · {label}"),
            };
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
