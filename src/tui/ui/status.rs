//! The status bar: provider and model, step mode, policy mode, pending approvals,
//! token usage, a notice, and key hints generated from the keymap.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use crate::keymap::{Action, Layer};
use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::state::{NoticeLevel, Overlay, Pane, State};
use crate::tui::style::style;

/// The status-bar hints for the layer taking the keys, from the key table (the rows
/// with a short label), less those that do nothing where the focus is: (label, key).
fn hints(state: &State) -> Vec<(&str, String)> {
    let layer = if state.typing_through_pause() {
        Layer::Composer
    } else {
        state.layer()
    };
    let with_global = matches!(layer, Layer::Normal | Layer::Composer);
    let server_details = matches!(state.overlays.top(), Some(Overlay::Server { .. }));
    // The Wire view's details take only copy and close; its empty list, filter and close.
    let wire_list = layer == Layer::Wire && state.wire.detail.is_none();
    let wire_rows = layer != Layer::Wire || (wire_list && !state.wire.shown.is_empty());
    // A failed login has nothing to send: only Esc closes it.
    let login_failed = matches!(state.overlays.top(), Some(Overlay::Login(v))
        if matches!(v.phase, crate::tui::login::LoginPhase::Failed(_)));
    state
        .keymap
        .hints(layer, with_global)
        .into_iter()
        .filter(|(action, _, _)| match action {
            Action::Filter => matches!(state.focus, Pane::Catalog | Pane::Chat) || wire_list,
            Action::ExportWire => wire_rows,
            Action::CopyCommand => wire_rows || state.wire.detail.is_some(),
            Action::NextTab => state.focus == Pane::Catalog,
            Action::CopyEntry => state.focus == Pane::Chat,
            Action::OpenApp => state.focus == Pane::Chat && crate::tui::apps::available(state),
            // The servers' own keys where they are; `s` on a resource, `r` rereads it.
            Action::Login | Action::ToggleServer => state.focus == Pane::Servers,
            Action::Reconnect => state.focus == Pane::Servers || on_resources(state),
            Action::Subscribe => on_resources(state),
            Action::CallTool | Action::ToggleRaw => !server_details,
            Action::Activate => !login_failed && wire_rows,
            // The resume picker is a short list: nothing to scroll.
            Action::PageDown => !matches!(state.overlays.top(), Some(Overlay::Sessions(_))),
            // While typing, the bar keeps room for what runs; F1 and Ctrl+P are in the
            // welcome text and the help.
            Action::Help | Action::Palette => layer != Layer::Composer,
            _ => true,
        })
        .map(|(_, label, key)| (label, key))
        .collect()
}

/// The Catalog's Resources tab is focused (`s` subscribes, `r` reads again).
fn on_resources(state: &State) -> bool {
    state.focus == Pane::Catalog && state.catalog.tab == crate::tui::state::CatalogTab::Resources
}

/// The key that cancels running calls where the focus is: the composer's Esc
/// (leave) cancels them first, elsewhere the panes' cancel.
fn cancel_key(state: &State) -> String {
    if state.layer() == Layer::Composer {
        state.keymap.hint(Layer::Composer, Action::Close)
    } else {
        state.keymap.hint(Layer::Normal, Action::CancelTurn)
    }
}

/// The left side: what always shows (provider, step mode, the permission mode, the
/// tools' cost when it matters, a pause waiting for the message), then what may go
/// when space is short; with the width and the number of spans always shown.
fn left_spans(state: &State, theme: &Theme) -> (Vec<Span<'static>>, usize, usize) {
    let base = style(theme, Role::Status);
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
    // What the tools cost, when it matters, is kept beside them too.
    if let Some(cost) = tool_cost(state) {
        left.push(sep.clone());
        left.push(Span::styled(cost, style(theme, Role::StatusWarn)));
    }
    // A step pause that waits for the message being typed says how to step.
    if state.typing_through_pause() {
        left.push(sep.clone());
        left.push(Span::styled(
            format!(
                "paused: send or clear to step ({})",
                state.keymap.hint(Layer::Step, Action::StepNext)
            ),
            style(theme, Role::Warning),
        ));
    }
    // What always shows: provider, step mode, the permission mode (and the tools'
    // cost when it matters, a pause waiting for the message).
    let kept: usize = left.iter().map(Span::width).sum::<usize>() + 1;
    let kept_spans = left.len();
    let running = state.open_manual_calls().len();
    if running > 0 {
        left.push(sep.clone());
        left.push(Span::styled(
            format!("{running} running · {} cancels", cancel_key(state)),
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

    (left, kept, kept_spans)
}

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, area: Rect) {
    let base = style(theme, Role::Status);
    frame.buffer_mut().set_style(area, base);
    let s = &state.status;
    let (mut left, kept, kept_spans) = left_spans(state, theme);
    // A notice takes the place of the key hints until the next key press.
    let right = if let Some(notice) = &s.notice {
        let role = match notice.level {
            NoticeLevel::Info => Role::Status,
            NoticeLevel::Warn => Role::Warning,
            NoticeLevel::Error => Role::Error,
        };
        // A notice longer than the bar keeps its start (right-aligned text would
        // keep its end, cutting off what the notice is about).
        let text = fit(
            &sanitize_line(&notice.text),
            usize::from(area.width).saturating_sub(3),
        );
        Line::from(Span::styled(format!("  {text} "), style(theme, role)))
    } else {
        // Hints go from the end (the global ones) until the rest fits beside the
        // permission mode, which is never cut for them.
        let room = usize::from(area.width).saturating_sub(kept);
        let mut shown = hints(state);
        let width = |h: &[(&str, String)]| -> usize {
            2 + h
                .iter()
                .map(|(label, key)| {
                    unicode_width::UnicodeWidthStr::width(key.as_str())
                        + unicode_width::UnicodeWidthStr::width(*label)
                        + 3
                })
                .sum::<usize>()
        };
        while !shown.is_empty() && width(&shown) > room {
            shown.pop();
        }
        let mut spans = vec![Span::styled("  ", base)];
        for (label, key) in shown {
            spans.push(Span::styled(key, style(theme, Role::KeyHint)));
            spans.push(Span::styled(format!(" {label}  "), base));
        }
        Line::from(spans)
    };
    // The right side wins when space is short: a notice matters most (hints were cut
    // to fit beside the permission mode above).
    let right_w = u16::try_from(right.width())
        .unwrap_or(u16::MAX)
        .min(area.width);
    // What may go (running calls, waiting approvals, tokens) goes whole, last first,
    // rather than cut mid-word by the right side.
    let left_room = usize::from(area.width.saturating_sub(right_w));
    while left.len() > kept_spans && left.iter().map(Span::width).sum::<usize>() > left_room {
        left.truncate(left.len() - 2);
    }
    let [l, r] = Layout::horizontal([Constraint::Min(0), Constraint::Length(right_w)]).areas(area);
    frame.render_widget(Line::from(left), l);
    frame.render_widget(right.right_aligned(), r);
}

/// `text` cut to `width` columns, ending in `…` when cut.
fn fit(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar as _;
    if unicode_width::UnicodeWidthStr::width(text) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// Share of the window past which the status bar shows what the tools cost.
const SHOW_TOOL_COST_PERCENT: u64 = 5;

/// What declaring the tools costs, when it matters: `tools 41k tok (32 %)` once they
/// take 5 % of the context window, `tools 2.1k tok · search` with tool search on.
fn tool_cost(state: &State) -> Option<String> {
    use crate::llm::token_estimate::{percent, short};
    let s = &state.status;
    if let Some(offered) = s.offered.as_ref().filter(|r| r.search) {
        return Some(format!(
            "tools {} tok · search",
            short(offered.offered_tokens as u64)
        ));
    }
    let window = s.budget.as_ref()?.window;
    let shape = s.declaration_shape();
    let tokens: usize = state
        .servers
        .rows
        .iter()
        .map(|r| r.declared.tokens(shape))
        .sum();
    let share = (tokens as u64).saturating_mul(100).checked_div(window)?;
    (share >= SHOW_TOOL_COST_PERCENT).then(|| {
        format!(
            "tools {} tok ({})",
            short(tokens as u64),
            percent(tokens, window)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn a_long_notice_keeps_its_start() {
        assert_eq!(fit("logged in to linear", 40), "logged in to linear");
        assert_eq!(fit("logged in to linear", 10), "logged in…");
        assert_eq!(fit("日本語のテキスト", 7), "日本語…");
    }
}
