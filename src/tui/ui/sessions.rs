//! The resume picker overlay.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph};

use crate::keymap::{Action, Layer};
use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::sessions::SessionPicker;
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, picker: &SessionPicker) {
    let count = picker.rows.as_ref().map_or(1, Vec::len).max(1);
    let height = u16::try_from(count)
        .unwrap_or(u16::MAX)
        .saturating_add(2)
        .min(20);
    let area = super::popup(frame, 90, height);
    let title = format!(
        "Resume a session · {} opens · {} closes",
        state.keymap.hint(Layer::Browse, Action::Activate),
        state.keymap.hint(Layer::Browse, Action::Close)
    );
    let block = pane_block(theme, &title, true);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(rows) = &picker.rows else {
        frame.render_widget(
            Line::styled("reading sessions…", style(theme, Role::Dim)),
            inner,
        );
        return;
    };
    if rows.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "No saved session for this workspace yet.",
                style(theme, Role::Dim),
            )),
            inner,
        );
        return;
    }
    let items: Vec<ListItem> = rows
        .iter()
        .map(|r| {
            let when: String = r
                .time
                .chars()
                .take(16)
                .collect::<String>()
                .replace('T', " ");
            ListItem::new(Line::from(vec![
                Span::styled(format!("{when}  "), style(theme, Role::Dim)),
                Span::styled(
                    format!("{:<9}", crate::tui::words::count(r.turns, "turn", "turns")),
                    style(theme, Role::Dim),
                ),
                Span::styled(sanitize_line(&r.title), style(theme, Role::Text)),
            ]))
        })
        .collect();
    let mut list_state = ListState::default();
    list_state.select(Some(picker.sel));
    frame.render_stateful_widget(
        List::new(items).highlight_style(style(theme, Role::Selection)),
        inner,
        &mut list_state,
    );
}
