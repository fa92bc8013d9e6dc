//! The `${input:…}` prompt: one line per question, password answers masked.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::input_prompt::InputPrompt;
use crate::tui::style::{pane_block, style};

pub fn render(prompt: &InputPrompt, theme: &Theme, frame: &mut Frame) {
    let area = frame.area();
    frame.buffer_mut().set_style(area, style(theme, Role::Text));
    let height = u16::try_from(prompt.questions.len() * 3 + 6).unwrap_or(u16::MAX);
    let rect = super::popup(frame, area.width.saturating_sub(4).min(80), height);
    let block = pane_block(theme, "Input needed", true);
    let dim = |t: String| Span::styled(t, style(theme, Role::Dim));
    let mut lines = vec![
        Line::from(vec![
            dim("The servers in ".into()),
            Span::styled(prompt.file.clone(), style(theme, Role::Title)),
            dim(" ask for:".into()),
        ]),
        Line::default(),
    ];
    for (i, q) in prompt.questions.iter().enumerate() {
        let selected = i == prompt.sel;
        let label = q
            .spec
            .description
            .as_deref()
            .map_or_else(|| q.spec.id.clone(), sanitize_line);
        let name_style = if selected {
            style(theme, Role::Selection)
        } else {
            style(theme, Role::Text)
        };
        let mut head = vec![
            Span::styled(
                format!("{}{label}", if selected { "› " } else { "  " }),
                name_style,
            ),
            dim(format!("  ${{input:{}}}", sanitize_line(&q.spec.id))),
        ];
        if q.spec.password {
            head.push(Span::styled("  password", style(theme, Role::Warning)));
        }
        lines.push(Line::from(head));
        let shown = if q.spec.password {
            "•".repeat(q.answer.chars().count())
        } else {
            sanitize_line(&q.answer)
        };
        let cursor = if selected { "▏" } else { "" };
        lines.push(Line::styled(
            format!("    {shown}{cursor}"),
            style(theme, Role::Text),
        ));
        lines.push(Line::default());
    }
    lines.push(Line::from(vec![
        Span::styled("Enter", style(theme, Role::KeyHint)),
        dim(" next / start  ".into()),
        Span::styled("Tab", style(theme, Role::KeyHint)),
        dim(" move  ".into()),
        Span::styled("Esc", style(theme, Role::KeyHint)),
        dim(" skip these servers  ".into()),
        Span::styled("Ctrl+C", style(theme, Role::KeyHint)),
        dim(" quit".into()),
    ]));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        rect,
    );
}
