//! The call form overlay: one line per argument, the value being typed, the error
//! that stopped the last send.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::keymap::{Action, Layer};
use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::field::FieldKind;
use crate::tui::form::FormState;
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, form: &FormState) {
    let area = frame.area();
    let rect = super::popup(
        frame,
        area.width.saturating_sub(6).min(90),
        area.height.saturating_sub(4),
    );
    let title = form.title();
    let block = pane_block(theme, &title, true);
    let dim = |t: String| Span::styled(t, style(theme, Role::Dim));
    let mut lines = Vec::new();
    if let Some(raw) = &form.raw {
        lines.push(Line::styled("Arguments (JSON)", style(theme, Role::Title)));
        lines.push(Line::from(Span::styled(
            format!("{}▏", sanitize_line(raw)),
            style(theme, Role::Text),
        )));
    } else if form.fields.is_empty() {
        lines.push(Line::from(dim("No arguments.".into())));
    }
    if form.raw.is_none() {
        for i in 0..form.fields.len() {
            field_lines(state, theme, form, i, &mut lines);
        }
    }
    lines.push(Line::default());
    if let Some(e) = &form.error {
        lines.push(Line::styled(sanitize_line(e), style(theme, Role::Error)));
    }
    let km = &state.keymap;
    let key = |a: Action| Span::styled(km.hint(Layer::Form, a), style(theme, Role::KeyHint));
    lines.push(Line::from(vec![
        key(Action::Activate),
        dim(match form.target {
            crate::tui::form::FormTarget::Tool(_) => " send via the gate  ".into(),
            _ => " send  ".into(),
        }),
        key(Action::Down),
        dim(" field  ".into()),
        key(Action::NextTab),
        dim(" choice  ".into()),
        key(Action::ToggleRaw),
        dim(" raw JSON  ".into()),
        key(Action::ExternalEditor),
        dim(" editor  ".into()),
        key(Action::Close),
        dim(" cancel".into()),
    ]));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        rect,
    );
}

/// One argument's lines: name (required mark), type, value (a choice between
/// arrows, the cursor on the selected one), and for the selected field its
/// description, nested fields and the server's suggestions.
fn field_lines(
    state: &State,
    theme: &Theme,
    form: &FormState,
    i: usize,
    lines: &mut Vec<Line<'static>>,
) {
    let Some(f) = form.fields.get(i) else {
        return;
    };
    let dim = |t: String| Span::styled(t, style(theme, Role::Dim));
    let selected = i == form.sel;
    let marker = if selected { "› " } else { "  " };
    let name_style = if selected {
        style(theme, Role::Selection)
    } else {
        style(theme, Role::Text)
    };
    let choice = f.kind.is_choice();
    // Line breaks (from $EDITOR or a paste) show as ⏎ on the one line.
    let shown = sanitize_line(&f.value.replace("\r\n", "\n").replace('\n', "⏎"));
    let value = if choice {
        format!("‹ {shown} ›")
    } else if selected {
        format!("{shown}▏")
    } else {
        shown
    };
    let mut spans = vec![
        Span::styled(format!("{marker}{}", sanitize_line(&f.name)), name_style),
        Span::styled(
            if f.required { "*" } else { "" },
            style(theme, Role::Warning),
        ),
        dim(format!("  {}  ", sanitize_line(&f.ty))),
        Span::styled(value, style(theme, Role::FilterMatch)),
    ];
    if let FieldKind::Choice { options } = &f.kind
        && selected
    {
        let values: Vec<&str> = options.iter().map(|o| o.value.as_str()).collect();
        spans.push(dim(format!("  ({})", sanitize_line(&values.join(" | ")))));
    }
    lines.push(Line::from(spans));
    if let Some(d) = f.description.as_ref().filter(|_| selected) {
        lines.push(Line::from(dim(format!("    {}", sanitize_line(d)))));
    }
    if selected && let Some(nested) = nested_fields(form, i) {
        let editor = state.keymap.hint(Layer::Form, Action::ExternalEditor);
        lines.push(Line::from(dim(format!(
            "    fields: {nested}  ({editor} starts from them)"
        ))));
    }
    if selected && !f.suggestions.is_empty() {
        let shown: Vec<String> = f
            .suggestions
            .iter()
            .take(8)
            .map(|s| sanitize_line(s))
            .collect();
        lines.push(Line::from(vec![
            dim("    suggestions: ".into()),
            Span::styled(shown.join(", "), style(theme, Role::FilterMatch)),
            dim("  (→ takes the first)".into()),
        ]));
    }
}

/// `days* integer · hourly boolean` for an object field (or an array of objects).
fn nested_fields(form: &FormState, index: usize) -> Option<String> {
    let (inner, _) = form.object_schema(index)?;
    let fields: Vec<String> = crate::tools::schema_fields(inner)
        .into_iter()
        .filter(|f| !f.path.contains(['.', '[']))
        .map(|f| {
            format!(
                "{}{} {}",
                sanitize_line(&f.path),
                if f.required { "*" } else { "" },
                sanitize_line(&f.ty)
            )
        })
        .collect();
    (!fields.is_empty()).then(|| fields.join(" · "))
}
