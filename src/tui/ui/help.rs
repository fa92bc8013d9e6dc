//! The help overlay, generated from the keymap table.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::keymap::{Action, Layer};
use crate::theme::{Role, Theme};
use crate::tui::help::{HelpRow, rows};
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};

/// The help's rows, styled.
pub fn help_lines(state: &State, theme: &Theme) -> Vec<Line<'static>> {
    let keys = style(theme, Role::KeyHint);
    let text = style(theme, Role::Text);
    let usage_width = crate::tui::slash::COMMANDS
        .iter()
        .map(|c| c.usage.chars().count())
        .max()
        .unwrap_or(0);
    rows(&state.keymap)
        .into_iter()
        .map(|row| match row {
            HelpRow::Blank => Line::default(),
            HelpRow::Heading(title) => Line::styled(title, style(theme, Role::Title)),
            // A long key list keeps a space before its help text.
            HelpRow::Keys { keys: k, help } => Line::from(vec![
                Span::styled(format!("  {:<16}", format!("{k} ")), keys),
                Span::styled(help, text),
            ]),
            HelpRow::Command(c) => Line::from(vec![
                Span::styled(format!("  {:<usage_width$}  ", c.usage), keys),
                Span::styled(c.about, text),
            ]),
            HelpRow::Note(note) => Line::styled(format!("  {note}"), style(theme, Role::Dim)),
        })
        .collect()
}

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, scroll: u16) {
    let area = super::popup(frame, 80, frame.area().height.saturating_sub(4));
    let title = format!(
        "Keys · {} closes",
        state.keymap.hint(Layer::Help, Action::Close)
    );
    let block = pane_block(theme, &title, true);
    let lines = help_lines(state, theme);
    let inner_h = block.inner(area).height;
    let max = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(inner_h);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll.min(max), 0)),
        area,
    );
}
