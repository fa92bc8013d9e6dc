//! The question a server asks, drawn over everything: its form, the URL it wants
//! visited, or the sampling request (and then the model's answer). The header names
//! the server; all of it was sanitised when it entered the state.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::keymap::{Action, Layer};
use crate::theme::{Role, Theme};
use crate::tui::ask::elicit::{AskField, ElicitForm, FieldKind};
use crate::tui::ask::sampling::{
    MESSAGE_LINES, REPLY_LINES, SampleCard, SampleStage, clipped, content_text, more_lines,
};
use crate::tui::ask::{AskView, PendingAsk, UrlAsk};
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};

type Lines = Vec<Line<'static>>;

pub fn render(state: &State, theme: &Theme, frame: &mut Frame) {
    let Some(ask) = state.asks.front() else {
        return;
    };
    let more = match state.asks.len() {
        1 => String::new(),
        n => format!(" (+{} waiting)", n - 1),
    };
    let title = format!("{} asks{more}", ask.server);
    let mut lines = Vec::new();
    // Lines pinned to the bottom of the card (the keys that answer it): whatever the
    // server sent above them, they stay on screen.
    let mut footer = Vec::new();
    let dim = style(theme, Role::Dim);
    match &ask.view {
        AskView::Form(form) => form_lines(state, theme, ask, form, &mut lines),
        AskView::Url(url) => url_lines(state, theme, ask, url, &mut lines),
        AskView::Sample(card) => sample_lines(state, theme, card, &mut lines, &mut footer),
    }
    if lines.is_empty() {
        lines.push(Line::styled("(nothing asked)", dim));
    }
    // As tall as the question (with room for wrapped lines), never past the screen.
    let area = frame.area();
    let height = u16::try_from(lines.len() + footer.len() + 4).unwrap_or(u16::MAX);
    let rect = super::popup(
        frame,
        area.width.saturating_sub(6).min(96),
        height.min(area.height.saturating_sub(2)),
    );
    let block = pane_block(theme, &title, true);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let pinned = u16::try_from(footer.len())
        .unwrap_or(u16::MAX)
        .min(inner.height);
    let [body, bottom] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(pinned)]).areas(inner);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
    if pinned > 0 {
        frame.render_widget(Paragraph::new(footer), bottom);
    }
}

fn keys(state: &State, theme: &Theme, items: &[(Action, &str)]) -> Line<'static> {
    let mut spans = Vec::new();
    for (action, label) in items {
        spans.push(Span::styled(
            state.keymap.hint(Layer::Ask, *action),
            style(theme, Role::KeyHint).add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::styled(format!(" {label}  "), style(theme, Role::Dim)));
    }
    Line::from(spans)
}

fn message(theme: &Theme, ask: &PendingAsk, lines: &mut Lines) {
    for l in ask.message.lines() {
        lines.push(Line::styled(l.to_owned(), style(theme, Role::Text)));
    }
    lines.push(Line::default());
}

fn field_value(f: &AskField, selected: bool) -> String {
    match &f.kind {
        FieldKind::Bool => format!("‹ {} ›", f.value),
        FieldKind::Choice { options } => {
            let shown = options
                .iter()
                .find(|o| o.value == f.value)
                .map_or("(none)", |o| o.title.as_str());
            format!("‹ {shown} ›")
        }
        FieldKind::Multi {
            options,
            chosen,
            cursor,
            ..
        } => options
            .iter()
            .zip(chosen)
            .enumerate()
            .map(|(i, (o, c))| {
                let mark = if *c { "[x]" } else { "[ ]" };
                let at = if selected && i == *cursor { "›" } else { "" };
                format!("{at}{mark} {}", o.title)
            })
            .collect::<Vec<_>>()
            .join("  "),
        FieldKind::Text { .. } | FieldKind::Number { .. } | FieldKind::Json { .. } => {
            let shown = crate::sanitize::sanitize_line(&f.value);
            if selected {
                format!("{shown}▏")
            } else {
                shown
            }
        }
    }
}

fn field_kind(f: &AskField) -> String {
    match &f.kind {
        FieldKind::Text { format, .. } => format.clone().unwrap_or_else(|| "text".into()),
        FieldKind::Number { integer: true, .. } => "integer".into(),
        FieldKind::Number { .. } => "number".into(),
        FieldKind::Bool => "yes/no".into(),
        FieldKind::Choice { .. } => "choice".into(),
        FieldKind::Multi { .. } => "any of".into(),
        FieldKind::Json { .. } => "json".into(),
    }
}

fn form_lines(
    state: &State,
    theme: &Theme,
    ask: &PendingAsk,
    form: &ElicitForm,
    lines: &mut Lines,
) {
    message(theme, ask, lines);
    let width = form
        .fields
        .iter()
        .map(|f| f.label.chars().count() + usize::from(f.required))
        .max()
        .unwrap_or(0);
    for (i, f) in form.fields.iter().enumerate() {
        let selected = i == form.sel;
        let name_role = if selected {
            Role::Selection
        } else {
            Role::Text
        };
        let label = format!("{}{}", f.label, if f.required { "*" } else { "" });
        lines.push(Line::from(vec![
            Span::styled(if selected { "› " } else { "  " }, style(theme, name_role)),
            Span::styled(format!("{label:<width$}"), style(theme, name_role)),
            Span::styled(format!("  {:<8} ", field_kind(f)), style(theme, Role::Dim)),
            Span::styled(field_value(f, selected), style(theme, Role::FilterMatch)),
        ]));
        if selected && let Some(d) = &f.description {
            lines.push(Line::styled(format!("    {d}"), style(theme, Role::Dim)));
        }
    }
    lines.push(Line::styled(
        "  * required".to_owned(),
        style(theme, Role::Dim),
    ));
    if let Some(e) = &form.error {
        lines.push(Line::styled(e.clone(), style(theme, Role::Error)));
    }
    lines.push(Line::default());
    let mut footer = keys(
        state,
        theme,
        &[
            (Action::Activate, "accept"),
            (Action::Deny, "decline"),
            (Action::Close, "cancel"),
            (Action::Down, "field"),
            (Action::NextTab, "choice"),
        ],
    );
    footer.spans.push(Span::styled(
        "Space picks (any of)",
        style(theme, Role::Dim),
    ));
    lines.push(footer);
}

fn url_lines(state: &State, theme: &Theme, ask: &PendingAsk, url: &UrlAsk, lines: &mut Lines) {
    message(theme, ask, lines);
    lines.push(Line::styled(
        "It asks you to visit this page:".to_owned(),
        style(theme, Role::Dim),
    ));
    lines.push(Line::styled(url.shown.clone(), style(theme, Role::Text)));
    let host = url
        .host
        .clone()
        .unwrap_or_else(|| "(not a valid URL)".into());
    lines.push(Line::from(vec![
        Span::styled("domain: ", style(theme, Role::Dim)),
        Span::styled(
            host,
            style(theme, Role::Warning).add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        ),
    ]));
    lines.push(Line::styled(
        "Nothing is opened unless you choose to.".to_owned(),
        style(theme, Role::Dim),
    ));
    lines.push(Line::default());
    // A page a failed request named has no server waiting: nothing to decline.
    let answers: &[(Action, &str)] = if ask.waits {
        &[
            (Action::OpenUrl, "open"),
            (Action::CopyUrl, "copy"),
            (Action::Activate, "done"),
            (Action::Deny, "decline"),
            (Action::Close, "cancel"),
        ]
    } else {
        &[
            (Action::OpenUrl, "open"),
            (Action::CopyUrl, "copy"),
            (Action::Activate, "done"),
            (Action::Close, "close"),
        ]
    };
    lines.push(keys(state, theme, answers));
}

/// What the server asks the model: the system prompt, each message (clipped), the
/// tools offered and the preferences.
fn request_lines(theme: &Theme, card: &SampleCard, lines: &mut Lines) {
    let dim = style(theme, Role::Dim);
    if let Some(system) = card.system() {
        lines.push(Line::styled(format!("system: {system}"), dim));
    }
    for (role, text) in card.messages() {
        let role_style = if role == "assistant" {
            Role::Assistant
        } else {
            Role::User
        };
        let (shown, more) = clipped(&text, MESSAGE_LINES);
        for (i, l) in shown.into_iter().enumerate() {
            let head = if i == 0 {
                format!("{role}: ")
            } else {
                "  ".into()
            };
            lines.push(Line::from(vec![
                Span::styled(head, style(theme, role_style).add_modifier(Modifier::BOLD)),
                Span::styled(l, style(theme, Role::Text)),
            ]));
        }
        if more > 0 {
            lines.push(Line::styled(format!("  {}", more_lines(more)), dim));
        }
    }
    let tools = card.tools();
    if !tools.is_empty() {
        lines.push(Line::styled(
            format!("tools offered: {}", tools.join(", ")),
            dim,
        ));
    }
    if let Some(prefs) = card.preferences() {
        lines.push(Line::styled(format!("model preferences: {prefs}"), dim));
    }
    if let Some(n) = card.max_tokens() {
        lines.push(Line::styled(format!("max tokens: {n}"), dim));
    }
}

fn sample_lines(
    state: &State,
    theme: &Theme,
    card: &SampleCard,
    lines: &mut Lines,
    footer: &mut Lines,
) {
    let provider = format!(
        "It asks the model ({}{}) to answer:",
        state.status.provider,
        if state.status.model.is_empty() {
            String::new()
        } else {
            format!(" · {}", state.status.model)
        }
    );
    lines.push(Line::styled(provider, style(theme, Role::Title)));
    request_lines(theme, card, lines);
    let dim = style(theme, Role::Dim);
    lines.push(Line::default());
    let (hints, status): (&[(Action, &str)], Option<Line<'static>>) = match &card.stage {
        SampleStage::Review => (
            &[
                (Action::ApproveOnce, "send to the model"),
                (Action::ExternalEditor, "edit messages"),
                (Action::Deny, "decline"),
            ],
            None,
        ),
        SampleStage::Running => (
            &[(Action::Close, "decline")],
            Some(Line::styled(
                "Asking the model…".to_owned(),
                style(theme, Role::Info),
            )),
        ),
        SampleStage::Reply(reply) => {
            lines.push(Line::styled(
                format!(
                    "The model ({}) answered:",
                    crate::sanitize::sanitize_line(&reply.model)
                ),
                style(theme, Role::Title),
            ));
            let text = crate::sanitize::sanitize(&content_text(&reply.content)).into_owned();
            let (shown, more) = clipped(&text, REPLY_LINES);
            for l in shown {
                lines.push(Line::styled(l, style(theme, Role::Assistant)));
            }
            if more > 0 {
                lines.push(Line::styled(more_lines(more), dim));
            }
            (
                &[
                    (Action::ApproveOnce, "return it to the server"),
                    (Action::ExternalEditor, "edit"),
                    (Action::Deny, "decline"),
                ],
                None,
            )
        }
        SampleStage::Failed(e) => (
            &[
                (Action::ApproveOnce, "try again"),
                (Action::Deny, "decline"),
            ],
            Some(Line::styled(e.clone(), style(theme, Role::Error))),
        ),
    };
    if let Some(status) = status {
        footer.push(status);
    }
    footer.push(keys(state, theme, hints));
}
