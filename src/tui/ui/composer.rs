//! The composer pane: a multi-line textarea.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::keymap::{Action, Layer};
use crate::theme::{Role, Theme};
use crate::tui::completion;
use crate::tui::state::{Pane, State};
use crate::tui::style::{pane_block, style};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, area: Rect) {
    let focused = state.focus == Pane::Composer && state.overlays.is_empty();
    let mut textarea = state.composer.textarea().clone();
    textarea.set_block(pane_block(theme, "Message", focused));
    textarea.set_style(style(theme, Role::Text));
    textarea.set_cursor_line_style(Style::default());
    textarea.set_cursor_style(if focused {
        style(theme, Role::Text).add_modifier(ratatui::style::Modifier::REVERSED)
    } else {
        Style::default()
    });
    let km = &state.keymap;
    textarea.set_placeholder_text(format!(
        "Type a message · {} send · {} new line",
        km.hint(Layer::Composer, Action::Send),
        km.hint(Layer::Composer, Action::Newline),
    ));
    textarea.set_placeholder_style(style(theme, Role::Dim));
    frame.render_widget(&textarea, area);
}

/// The completion popup, just above the composer (it never covers what is typed):
/// each candidate with its usage or type, the highlighted one selected.
pub fn render_popup(state: &State, theme: &Theme, frame: &mut Frame, composer: Rect, top: u16) {
    use crate::sanitize::sanitize_line;
    use ratatui::text::{Line, Span};
    use ratatui::widgets::{Clear, List, ListItem, ListState};

    if state.focus != Pane::Composer || !state.overlays.is_empty() {
        return;
    }
    let shown = completion::shown(state);
    if shown.is_empty() {
        return;
    }
    let rows = u16::try_from(shown.len().min(completion::MAX)).unwrap_or(u16::MAX);
    let height = rows.saturating_add(2).min(composer.y.saturating_sub(top));
    if height < 3 {
        return;
    }
    let area = Rect::new(composer.x, composer.y - height, composer.width, height);
    let block = pane_block(theme, "Tab complete · ↑↓ · Esc", true);
    let width = shown
        .iter()
        .map(|c| c.text.chars().count())
        .max()
        .unwrap_or(0);
    let items = shown.iter().take(completion::MAX).map(|c| {
        let text = sanitize_line(&c.text);
        let pad = width.saturating_sub(text.chars().count()) + 2;
        ListItem::new(Line::from(vec![
            Span::styled(
                format!("{text}{}", " ".repeat(pad)),
                style(theme, Role::Text),
            ),
            Span::styled(sanitize_line(&c.detail), style(theme, Role::Dim)),
        ]))
    });
    let list = List::new(items)
        .block(block)
        .highlight_style(style(theme, Role::Selection));
    let mut list_state = ListState::default();
    list_state.select(Some(state.composer.popup.sel.min(shown.len() - 1)));
    frame.render_widget(Clear, area);
    frame.render_stateful_widget(list, area, &mut list_state);
}
