//! The help overlay, generated from the keymap table.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::keymap::{Action, Layer};
use crate::theme::{Role, Theme};
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};

/// Help lines: one heading per layer, one row per action with all its keys.
pub fn help_lines(state: &State, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for layer in Layer::ALL {
        // In `Action` order; the keys in table order.
        let mut rows: BTreeMap<Action, (Vec<String>, String)> = BTreeMap::new();
        for b in state.keymap.bindings().iter().filter(|b| b.layer == layer) {
            let row = rows
                .entry(b.action)
                .or_insert_with(|| (Vec::new(), b.help.clone()));
            row.0.push(b.key.to_string());
        }
        if rows.is_empty() {
            continue;
        }
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::styled(layer.title(), style(theme, Role::Title)));
        for (_, (keys, help)) in rows {
            // A long key list keeps a space before its help text.
            let keys = format!("{} ", keys.join(" "));
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<16}"), style(theme, Role::KeyHint)),
                Span::styled(help, style(theme, Role::Text)),
            ]));
        }
    }
    lines
}

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, scroll: u16) {
    let area = super::popup(frame, 64, frame.area().height.saturating_sub(4));
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
