//! The composer pane: a multi-line textarea.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::keymap::{Action, Layer};
use crate::theme::{Role, Theme};
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
