//! The status bar: provider and model, step mode, policy mode, pending approvals,
//! token usage, a notice, and key hints generated from the keymap.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use crate::keymap::{Action, Layer};
use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::state::{NoticeLevel, Pane, State};
use crate::tui::style::style;

/// Hints shown for a layer: (action, short label).
fn hint_actions(state: &State) -> Vec<(Layer, Action, &'static str)> {
    let layer = state.layer();
    let mut hints = match layer {
        Layer::Composer => vec![
            (layer, Action::Send, "send"),
            (layer, Action::Close, "leave"),
        ],
        Layer::Filter => vec![
            (layer, Action::Activate, "keep"),
            (layer, Action::Close, "clear"),
        ],
        Layer::Palette => vec![
            (layer, Action::Activate, "run"),
            (layer, Action::Close, "close"),
        ],
        Layer::Help => vec![(layer, Action::Close, "close")],
        Layer::Form => vec![
            (layer, Action::Activate, "send"),
            (layer, Action::Close, "cancel"),
        ],
        Layer::Browse => vec![
            (layer, Action::Activate, "open"),
            (layer, Action::PageDown, "scroll"),
            (layer, Action::Close, "close"),
        ],
        // A server's details only scroll; a catalog item can be called and shown raw.
        Layer::Detail
            if matches!(
                state.overlay,
                Some(super::super::state::Overlay::Server { .. })
            ) =>
        {
            vec![
                (layer, Action::PageDown, "scroll"),
                (layer, Action::Close, "close"),
            ]
        }
        Layer::Detail => vec![
            (layer, Action::CallTool, "call"),
            (layer, Action::ToggleRaw, "raw"),
            (layer, Action::Close, "close"),
        ],
        Layer::Approval => vec![
            (layer, Action::ApproveOnce, "approve"),
            (layer, Action::Deny, "deny"),
            (layer, Action::AbortTurn, "abort"),
        ],
        _ => {
            let mut v = vec![
                (layer, Action::Help, "help"),
                (layer, Action::Palette, "commands"),
            ];
            if state.focus == Pane::Catalog {
                v.push((layer, Action::Filter, "filter"));
                v.push((layer, Action::NextTab, "tab"));
            }
            v.push((layer, Action::Quit, "quit"));
            v
        }
    };
    if matches!(layer, Layer::Composer | Layer::Normal) {
        hints.insert(
            hints.len().saturating_sub(1),
            (layer, Action::FocusNext, "pane"),
        );
    }
    hints
}

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, area: Rect) {
    let base = style(theme, Role::Status);
    frame.buffer_mut().set_style(area, base);
    let s = &state.status;
    let sep = Span::styled(" · ", style(theme, Role::Dim));
    let model = if s.model.is_empty() {
        sanitize_line(&s.provider)
    } else {
        format!("{}/{}", sanitize_line(&s.provider), sanitize_line(&s.model))
    };
    let mode_role = if s.policy_mode == "full-auto" {
        Role::StatusWarn
    } else {
        Role::Status
    };
    let mut left = vec![
        Span::styled(format!(" {model}"), base),
        sep.clone(),
        Span::styled(if s.step_mode { "step on" } else { "step off" }, base),
        sep.clone(),
        Span::styled(format!("mode {}", s.policy_mode), style(theme, mode_role)),
    ];
    if state.manual_running > 0 {
        left.push(sep.clone());
        left.push(Span::styled(
            format!("{} running · Esc cancels", state.manual_running),
            style(theme, Role::Warning),
        ));
    }
    if !state.approvals.is_empty() {
        left.push(sep.clone());
        left.push(Span::styled(
            format!("{} waiting", state.approvals.len()),
            style(theme, Role::Approval),
        ));
    }
    left.push(sep.clone());
    left.push(Span::styled(
        format!("tokens {}↑ {}↓", s.tokens_in, s.tokens_out),
        base,
    ));
    // A notice takes the place of the key hints until the next key press.
    let right = if let Some(notice) = &s.notice {
        let role = match notice.level {
            NoticeLevel::Info => Role::Status,
            NoticeLevel::Warn => Role::Warning,
            NoticeLevel::Error => Role::Error,
        };
        Line::from(Span::styled(
            format!("  {} ", sanitize_line(&notice.text)),
            style(theme, role),
        ))
    } else {
        let mut spans = vec![Span::styled("  ", base)];
        for (layer, action, label) in hint_actions(state) {
            spans.push(Span::styled(
                state.keymap.hint(layer, action),
                style(theme, Role::KeyHint),
            ));
            spans.push(Span::styled(format!(" {label}  "), base));
        }
        Line::from(spans)
    };
    // The right side wins when space is short: hints and notices matter most.
    let right_w = u16::try_from(right.width())
        .unwrap_or(u16::MAX)
        .min(area.width);
    let [l, r] = Layout::horizontal([Constraint::Min(0), Constraint::Length(right_w)]).areas(area);
    frame.render_widget(Line::from(left), l);
    frame.render_widget(right.right_aligned(), r);
}
