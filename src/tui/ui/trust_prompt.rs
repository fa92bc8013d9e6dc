//! The trust question: the folder, then each untrusted file with what it would do,
//! marked by effect (runs, sends, loosens, sets), and the three answers.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::theme::{Role, Theme};
use crate::trust::Effect;
use crate::tui::style::{pane_block, style};
use crate::tui::trust_prompt::{Row, TrustPrompt};

/// Draws the prompt; returns how many list rows fit (the page size for scrolling).
pub fn render(prompt: &TrustPrompt, theme: &Theme, frame: &mut Frame) -> usize {
    let area = frame.area();
    frame.buffer_mut().set_style(area, style(theme, Role::Text));
    let width = area.width.saturating_sub(4).min(110);
    let wanted = u16::try_from(prompt.rows.len() + 9).unwrap_or(u16::MAX);
    let rect = super::popup(frame, width, wanted.min(area.height.saturating_sub(2)));
    let block = pane_block(theme, "Trust this folder?", true);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let [head, list, foot] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Min(1),
        Constraint::Length(3),
    ])
    .areas(inner);
    let dim = |t: &str| Span::styled(t.to_owned(), style(theme, Role::Dim));
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(vec![
                dim("This folder's config would do the following. Nothing of it runs until you say so: "),
            ]),
            Line::from(Span::styled(prompt.folder.clone(), style(theme, Role::Title))),
        ])
        .wrap(Wrap { trim: false }),
        head,
    );
    let page = usize::from(list.height);
    let lines: Vec<Line> = prompt
        .rows
        .iter()
        .skip(prompt.scroll)
        .take(page)
        .map(|row| match row {
            Row::File { shown, state } => Line::from(vec![
                Span::styled(shown.clone(), style(theme, Role::Title)),
                dim(&format!("  {}", state.label())),
            ]),
            Row::Item { effect, text } => Line::from(vec![
                Span::styled(
                    format!("  {:<8}", effect.label()),
                    effect_style(theme, *effect),
                ),
                Span::styled(text.clone(), style(theme, Role::Text)),
            ]),
        })
        .collect();
    // Wrapped, never cut: every command and address is shown whole.
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), list);
    let more = prompt.rows.len().saturating_sub(prompt.scroll + page);
    let key = |k: &str| Span::styled(k.to_owned(), style(theme, Role::KeyHint));
    let mut hint = vec![
        key("t"),
        dim(" trust (until a file changes)  "),
        key("o"),
        dim(" once (this run)  "),
        key("i"),
        dim(" ignore (your config only)  "),
        key("q"),
        dim(" quit"),
    ];
    if more > 0 || prompt.scroll > 0 {
        hint.push(dim(&format!("   ↑↓ {more} more")));
    }
    frame.render_widget(
        Paragraph::new(vec![Line::default(), Line::from(hint)]).wrap(Wrap { trim: false }),
        foot,
    );
    page
}

fn effect_style(theme: &Theme, effect: Effect) -> ratatui::style::Style {
    style(
        theme,
        match effect {
            Effect::Runs => Role::EffectDelete,
            Effect::Sends | Effect::Loosens => Role::EffectWrite,
            Effect::Sets => Role::Dim,
        },
    )
}
