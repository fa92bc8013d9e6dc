//! The Chat pane: the transcript, newest at the bottom, scrollable.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::sanitize::sanitize;
use crate::theme::{Role, Theme};
use crate::tui::state::{ChatEntry, ChatKind, Pane, State};
use crate::tui::style::{pane_block, style};
use crate::tui::transcript::{INDENT, TranscriptLine, layout_transcript};

fn role_of(kind: ChatKind) -> (Role, &'static str) {
    match kind {
        ChatKind::User => (Role::User, "you"),
        ChatKind::Assistant => (Role::Assistant, "assistant"),
        ChatKind::Tool => (Role::Tool, "tool"),
        ChatKind::Note => (Role::Dim, "switchboard"),
        ChatKind::Error => (Role::Error, "error"),
    }
}

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, area: Rect) {
    let focused = state.focus == Pane::Chat && state.overlay.is_none();
    let title = if state.chat_scroll.0 > 0 {
        format!("Chat ↑{}", state.chat_scroll.0)
    } else {
        "Chat".to_string()
    };
    let block = pane_block(theme, &title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);

    // Sanitise once per entry, before layout, so widths are those of what is drawn.
    let entries: Vec<ChatEntry> = state
        .chat
        .iter()
        .map(|e| ChatEntry {
            kind: e.kind,
            text: sanitize(&e.text).into_owned(),
        })
        .collect();
    let lines = layout_transcript(&entries, inner.width);
    let height = usize::from(inner.height);
    let end = lines.len().saturating_sub(state.chat_scroll.0);
    let start = end.saturating_sub(height);
    let indent = " ".repeat(INDENT);
    let text: Vec<Line> = lines[start..end]
        .iter()
        .map(|line| match line {
            TranscriptLine::Header(kind) => {
                let (role, label) = role_of(*kind);
                Line::from(vec![
                    Span::styled("▌ ", style(theme, role)),
                    Span::styled(label, style(theme, role)),
                ])
            }
            TranscriptLine::Body(kind, text) => {
                let role = match kind {
                    ChatKind::Note => Role::Dim,
                    ChatKind::Error => Role::Error,
                    _ => Role::Text,
                };
                Line::from(vec![
                    Span::raw(indent.clone()),
                    Span::styled(text.clone(), style(theme, role)),
                ])
            }
            TranscriptLine::Blank => Line::default(),
        })
        .collect();
    frame.render_widget(Paragraph::new(text), inner);
}
