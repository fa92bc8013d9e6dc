//! The approval pane: the front request of the queue, what it will do, and the keys
//! that answer it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::gate::{ApprovalRequest, Preview};
use crate::keymap::{Action, Layer};
use crate::sanitize::{sanitize, sanitize_line};
use crate::theme::{Role, Theme};
use crate::tools::ToolEffect;
use crate::tui::approval::{ApprovalStage, PendingApproval};
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};

pub fn effect_role(effect: ToolEffect) -> Role {
    match effect {
        ToolEffect::Read => Role::EffectRead,
        ToolEffect::Compute => Role::EffectCompute,
        ToolEffect::Write => Role::EffectWrite,
        ToolEffect::Delete => Role::EffectDelete,
        ToolEffect::Unknown => Role::EffectUnknown,
    }
}

/// Preview and arguments, the scrollable body.
fn body_lines(request: &ApprovalRequest, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let heading = |text: String| Line::styled(text, style(theme, Role::Title));
    match &request.preview {
        Some(Preview::Diff { path, unified }) => {
            lines.push(heading(format!("Change to {}", sanitize_line(path))));
            for l in sanitize(unified).lines() {
                let role = if l.starts_with("+++") || l.starts_with("---") || l.starts_with("@@") {
                    Role::DiffHeader
                } else if l.starts_with('+') {
                    Role::DiffAdd
                } else if l.starts_with('-') {
                    Role::DiffRemove
                } else {
                    Role::Text
                };
                lines.push(Line::styled(l.to_string(), style(theme, role)));
            }
        }
        Some(Preview::Command(cmd)) => {
            lines.push(heading("Command".into()));
            lines.push(Line::styled(
                format!("$ {}", sanitize_line(cmd)),
                style(theme, Role::Text),
            ));
        }
        Some(Preview::Url { method, url }) => {
            lines.push(heading("Request".into()));
            lines.push(Line::styled(
                format!("{} {}", sanitize_line(method), sanitize_line(url)),
                style(theme, Role::Text),
            ));
        }
        Some(Preview::Text(text)) => {
            lines.push(heading("Preview".into()));
            for l in sanitize(text).lines() {
                lines.push(Line::styled(l.to_string(), style(theme, Role::Text)));
            }
        }
        None => {}
    }
    if !lines.is_empty() {
        lines.push(Line::default());
    }
    lines.push(heading("Arguments".into()));
    let args = serde_json::to_string_pretty(&request.args).unwrap_or_default();
    for l in sanitize(&args).lines() {
        lines.push(Line::styled(l.to_string(), style(theme, Role::Text)));
    }
    lines
}

fn footer(state: &State, pending: &PendingApproval, theme: &Theme) -> Vec<Line<'static>> {
    let km = &state.keymap;
    let key = |a: Action| Span::styled(km.hint(Layer::Approval, a), style(theme, Role::KeyHint));
    let text = |t: String| Span::styled(t, style(theme, Role::Text));
    let warn = |t: String| Span::styled(t, style(theme, Role::Warning));
    match &pending.stage {
        ApprovalStage::Choose => vec![Line::from(vec![
            key(Action::ApproveOnce),
            text(" once  ".into()),
            key(Action::ApproveSession),
            text(format!(
                " session ({})  ",
                sanitize_line(&pending.request.session_grant)
            )),
            key(Action::ApproveAlways),
            text(" always  ".into()),
            key(Action::Deny),
            text(" deny  ".into()),
            key(Action::DenyWithReason),
            text(" deny with reason  ".into()),
            key(Action::AbortTurn),
            text(" abort turn".into()),
        ])],
        ApprovalStage::ConfirmDelete => vec![Line::from(vec![
            warn("This deletes. Press ".into()),
            key(Action::ApproveOnce),
            warn(" again to confirm; ".into()),
            key(Action::AbortTurn),
            warn(" goes back.".into()),
        ])],
        ApprovalStage::ConfirmAlways => vec![
            Line::from(vec![
                text("Always adds to [policy] in ".into()),
                Span::styled(sanitize_line(&state.always_file), style(theme, Role::Title)),
                text(":".into()),
            ]),
            Line::styled(
                format!(
                    "  allow = [\"{}\"]",
                    sanitize_line(&pending.request.always_rule)
                ),
                style(theme, Role::DiffAdd),
            ),
            Line::from(vec![
                key(Action::ApproveAlways),
                text(" write it and run  ".into()),
                key(Action::AbortTurn),
                text(" back".into()),
            ]),
        ],
        ApprovalStage::Reason(reason) => vec![Line::from(vec![
            text("Reason for the model: ".into()),
            Span::styled(
                format!("{}▏", sanitize_line(reason)),
                style(theme, Role::Title),
            ),
            Span::styled("  Enter deny · Esc back", style(theme, Role::Dim)),
        ])],
    }
}

pub fn render(state: &State, theme: &Theme, frame: &mut Frame) {
    let Some(pending) = state.approvals.front() else {
        return;
    };
    let request = &pending.request;
    let area = frame.area();
    let rect = super::popup(
        frame,
        area.width.saturating_sub(6).min(96),
        area.height.saturating_sub(4).min(24),
    );
    let title = if state.approvals.len() > 1 {
        format!("Approval 1 of {}", state.approvals.len())
    } else {
        "Approval".to_string()
    };
    let block = pane_block(theme, &title, true).border_style(style(theme, Role::Approval));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);

    let footer_lines = footer(state, pending, theme);
    // Wrapped height of the footer, plus a blank line above it.
    let width = usize::from(inner.width.max(1));
    let footer_rows: usize = footer_lines
        .iter()
        .map(|l| l.width().div_ceil(width).max(1))
        .sum();
    let footer_h = u16::try_from(footer_rows).unwrap_or(1).saturating_add(1);
    let [head, body, foot] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Min(1),
        Constraint::Length(footer_h),
    ])
    .areas(inner);

    let effect = request.effect;
    let server = request.server.as_deref().unwrap_or("builtin");
    let badge = format!(" {} ", effect.to_string().to_uppercase());
    let asked = format!(
        "  {} · asked by {}",
        sanitize_line(server),
        crate::tui::words::asked_by(request.origin, request.client.as_deref())
    );
    // A long tool name loses its middle before the badge or the asker leave the line.
    let room = width.saturating_sub(2 + badge.chars().count() + asked.chars().count());
    let tool = crate::tui::words::middle(&sanitize_line(&request.tool), room, 16);
    let head_lines = vec![
        Line::from(vec![
            Span::styled(tool, style(theme, Role::Title)),
            Span::raw("  "),
            Span::styled(
                badge,
                style(theme, effect_role(effect)).add_modifier(ratatui::style::Modifier::REVERSED),
            ),
            Span::styled(asked, style(theme, Role::Dim)),
        ]),
        Line::from(vec![
            Span::styled("why: ", style(theme, Role::Dim)),
            Span::styled(sanitize_line(&request.reason), style(theme, Role::Text)),
        ]),
    ];
    frame.render_widget(Paragraph::new(head_lines), head);

    let lines = body_lines(request, theme);
    let max = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(body.height);
    let scroll = pending.scroll.min(max);
    let mut body_title = Vec::new();
    if max > 0 {
        body_title.push(format!("↑↓ scroll ({scroll}/{max})"));
    }
    frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), body);
    if let Some(t) = body_title.first() {
        let w = u16::try_from(t.chars().count()).unwrap_or(0);
        let r = ratatui::layout::Rect::new(body.right().saturating_sub(w), body.y, w, 1);
        frame.render_widget(Span::styled(t.clone(), style(theme, Role::Dim)), r);
    }
    let [_, foot] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(foot);
    frame.render_widget(Paragraph::new(footer_lines).wrap(Wrap { trim: true }), foot);
}
