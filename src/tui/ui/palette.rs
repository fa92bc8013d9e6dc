//! The command palette overlay.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState};

use crate::theme::{Role, Theme};
use crate::tui::palette::{PaletteState, matching_items};
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, palette: &PaletteState) {
    let items = matching_items(state, palette);
    let height = u16::try_from(items.len())
        .unwrap_or(u16::MAX)
        .saturating_add(4)
        .min(16);
    let area = super::popup(frame, 56, height);
    let block = pane_block(theme, "Commands", true);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [query, list_area] =
        Layout::vertical([Constraint::Length(2), Constraint::Min(0)]).areas(inner);
    frame.render_widget(
        Line::from(vec![
            Span::styled("> ", style(theme, Role::KeyHint)),
            Span::styled(format!("{}▏", palette.query), style(theme, Role::Text)),
        ]),
        query,
    );
    if items.is_empty() {
        frame.render_widget(
            Line::styled("no matching command", style(theme, Role::Dim)),
            list_area,
        );
        return;
    }
    let list = List::new(
        items
            .iter()
            .map(|i| ListItem::new(Line::styled(i.label.clone(), style(theme, Role::Text)))),
    )
    .highlight_style(style(theme, Role::Selection));
    let mut list_state = ListState::default();
    list_state.select(Some(palette.selected));
    frame.render_stateful_widget(list, list_area, &mut list_state);
}
