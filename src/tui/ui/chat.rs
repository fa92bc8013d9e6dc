//! The Chat pane: the transcript, newest at the bottom, scrollable.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::theme::{Role, Theme};
use crate::tui::markdown::MdStyle;
use crate::tui::state::transcript::{INDENT, Tone, TranscriptLine};
use crate::tui::state::{ChatKind, Pane, State};
use crate::tui::style::{pane_block, style};

fn role_of(kind: ChatKind) -> (Role, &'static str) {
    match kind {
        ChatKind::User => (Role::User, "you"),
        ChatKind::Assistant => (Role::Assistant, "assistant"),
        ChatKind::Tool => (Role::Tool, "tool"),
        ChatKind::Note => (Role::Dim, "switchboard"),
        ChatKind::Error => (Role::Error, "error"),
    }
}

fn md_style(theme: &Theme, base: Role, md: MdStyle) -> ratatui::style::Style {
    use ratatui::style::Modifier;
    match md {
        MdStyle::Text => style(theme, base),
        MdStyle::Strong => style(theme, base).add_modifier(Modifier::BOLD),
        MdStyle::Emphasis => style(theme, base).add_modifier(Modifier::ITALIC),
        MdStyle::Code | MdStyle::CodeBlock => style(theme, Role::Code),
        MdStyle::Heading => style(theme, Role::Title).add_modifier(Modifier::BOLD),
        MdStyle::Marker | MdStyle::Quote => style(theme, Role::Dim),
    }
}

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, area: Rect) {
    let focused = state.focus == Pane::Chat && state.overlays.is_empty();
    let mut title = if state.chat.scroll.0 > 0 {
        format!("Chat ↑{}", state.chat.scroll.0)
    } else {
        "Chat".to_string()
    };
    if let Some(search) = crate::tui::chat_search::title(state) {
        title.push_str(" · ");
        title.push_str(&search);
    }
    let block = pane_block(theme, &title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    // Layout sanitises, so widths are those of what is drawn.
    let window = state.chat.layout.window(
        &state.chat.entries,
        inner.width,
        state.chat.cards_expanded,
        state.clock_ms,
        (state.chat.scroll.0, usize::from(inner.height)),
    );
    let indent = " ".repeat(INDENT);
    let text: Vec<Line> = window
        .lines
        .iter()
        .map(|line| match line {
            TranscriptLine::Header(kind, label, tone) => {
                let (role, default) = role_of(*kind);
                let role = match tone {
                    Tone::Normal => role,
                    Tone::Running => Role::Warning,
                    Tone::Ok => Role::ToolOk,
                    Tone::Bad => Role::ToolError,
                };
                Line::from(vec![
                    Span::styled("▌ ", style(theme, role)),
                    Span::styled(
                        label.clone().unwrap_or_else(|| default.to_string()),
                        style(theme, role),
                    ),
                ])
            }
            TranscriptLine::Nested(depth, label, tone) => {
                let role = match tone {
                    Tone::Normal => Role::Dim,
                    Tone::Running => Role::Warning,
                    Tone::Ok => Role::ToolOk,
                    Tone::Bad => Role::ToolError,
                };
                Line::from(vec![
                    Span::raw(format!("{indent}{}", "  ".repeat(*depth))),
                    Span::styled("↳ ", style(theme, Role::Dim)),
                    Span::styled(label.clone(), style(theme, role)),
                ])
            }
            TranscriptLine::Body(kind, pieces) => {
                let base = match kind {
                    ChatKind::Note => Role::Dim,
                    ChatKind::Error => Role::Error,
                    _ => Role::Text,
                };
                let mut spans = vec![Span::raw(indent.clone())];
                spans.extend(
                    pieces
                        .iter()
                        .map(|(md, text)| Span::styled(text.clone(), md_style(theme, base, *md))),
                );
                Line::from(spans)
            }
            TranscriptLine::Blank => Line::default(),
        })
        .collect();
    frame.render_widget(Paragraph::new(text), inner);
}
