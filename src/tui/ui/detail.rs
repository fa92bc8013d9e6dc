//! The detail view of a catalog item: description, effect, the input schema as a field
//! list (or raw JSON), and further facts.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::keymap::{Action, Layer};
use crate::sanitize::{sanitize, sanitize_line};
use crate::theme::{Role, Theme};
use crate::tools::schema_fields;
use crate::tui::state::transcript::wrap;
use crate::tui::state::{CatalogEntry, CatalogTab, State};
use crate::tui::style::{pane_block, style};

use super::approval::effect_role;

fn lines(
    state: &State,
    entry: &CatalogEntry,
    theme: &Theme,
    raw: bool,
    width: usize,
) -> Vec<Line<'static>> {
    let title = |t: &str| Line::styled(t.to_string(), style(theme, Role::Title));
    let dim = |t: String| Span::styled(t, style(theme, Role::Dim));
    let text = |t: String| Span::styled(t, style(theme, Role::Text));
    let mut out = Vec::new();
    let mut head = vec![Span::styled(
        sanitize_line(&entry.name),
        style(theme, Role::Title),
    )];
    if let Some(effect) = entry.effect {
        head.push(Span::raw("  "));
        head.push(Span::styled(
            format!(" {} ", effect.to_string().to_uppercase()),
            style(theme, effect_role(effect)).add_modifier(ratatui::style::Modifier::REVERSED),
        ));
    }
    head.push(dim(format!("  {}", sanitize_line(&entry.server))));
    out.push(Line::from(head));
    if let Some(t) = &entry.title {
        out.push(Line::from(text(sanitize_line(t))));
    }
    out.push(Line::default());
    for para in sanitize(&entry.description).lines() {
        for l in wrap(para, width) {
            out.push(Line::from(text(l)));
        }
    }
    for (k, v) in &entry.facts {
        out.push(Line::from(vec![
            dim(format!("{}: ", sanitize_line(k))),
            text(sanitize_line(v)),
        ]));
    }
    if let Some(card) = state.catalog.items.cards.get(&entry.name) {
        out.extend(super::agent_card::lines(card, theme, width));
    }
    let Some(schema) = &entry.schema else {
        return out;
    };
    out.push(Line::default());
    if raw {
        out.push(title("Input schema (JSON)"));
        let json = serde_json::to_string_pretty(schema).unwrap_or_default();
        out.extend(
            sanitize(&json)
                .lines()
                .map(|l| Line::from(text(l.to_string()))),
        );
        return out;
    }
    out.push(title("Arguments"));
    let fields = schema_fields(schema);
    if fields.is_empty() {
        out.push(Line::from(dim("none".into())));
    }
    for f in fields {
        let mut spans = vec![
            Span::styled(
                format!("  {}", sanitize_line(&f.path)),
                style(theme, Role::Text),
            ),
            dim(format!("  {}", sanitize_line(&f.ty))),
        ];
        if f.required {
            spans.push(Span::styled("  required", style(theme, Role::Warning)));
        }
        if !f.enum_values.is_empty() {
            spans.push(dim(format!(
                "  one of {}",
                sanitize_line(&f.enum_values.join(", "))
            )));
        }
        if let Some(d) = &f.default {
            spans.push(dim(format!("  default {}", sanitize_line(d))));
        }
        out.push(Line::from(spans));
        if let Some(d) = &f.description {
            for l in wrap(&sanitize_line(d), width.saturating_sub(4)) {
                out.push(Line::from(dim(format!("    {l}"))));
            }
        }
    }
    if state.catalog.tab == CatalogTab::Tools || entry.schema.is_some() || !entry.facts.is_empty() {
        out.push(Line::default());
        out.push(Line::from(vec![
            Span::styled(
                state.keymap.hint(Layer::Detail, Action::CallTool),
                style(theme, Role::KeyHint),
            ),
            dim(" call  ".into()),
            Span::styled(
                state.keymap.hint(Layer::Detail, Action::ToggleRaw),
                style(theme, Role::KeyHint),
            ),
            dim(" raw JSON".into()),
        ]));
    }
    out
}

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, scroll: u16, raw: bool) {
    let Some(entry) = state.catalog.selected_entry() else {
        return;
    };
    let area = frame.area();
    let rect = super::popup(
        frame,
        area.width.saturating_sub(6).min(90),
        area.height.saturating_sub(4),
    );
    let block = pane_block(theme, state.catalog.tab.title(), true);
    let inner = block.inner(rect);
    let lines = lines(state, entry, theme, raw, usize::from(inner.width));
    let max = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(inner.height);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll.min(max), 0)),
        rect,
    );
}

/// The selected server: status, transport, capabilities, instructions, stderr tail.
pub fn render_server(state: &State, theme: &Theme, frame: &mut Frame, scroll: u16) {
    let Some(row) = state.servers.rows.get(state.servers.sel) else {
        return;
    };
    let area = frame.area();
    let rect = super::popup(
        frame,
        area.width.saturating_sub(6).min(96),
        area.height.saturating_sub(4),
    );
    let block = pane_block(theme, "Server", true);
    let width = usize::from(block.inner(rect).width.max(1));
    let dim = |t: String| Span::styled(t, style(theme, Role::Dim));
    let text = |t: String| Span::styled(t, style(theme, Role::Text));
    let mut lines = vec![Line::styled(
        sanitize_line(&row.name),
        style(theme, Role::Title),
    )];
    if let Some(d) = &row.detail {
        lines.push(Line::styled(sanitize_line(d), style(theme, Role::Warning)));
    }
    for (k, v) in &row.facts {
        lines.push(Line::from(vec![
            dim(format!("{}: ", sanitize_line(k))),
            text(sanitize_line(v)),
        ]));
    }
    if row.declared.tools > 0 {
        lines.push(Line::from(vec![
            dim("tool declarations: ".into()),
            text(declaration_cost(state, row.declared)),
        ]));
    }
    if let Some(instructions) = &row.instructions {
        lines.push(Line::default());
        lines.push(Line::styled("Instructions", style(theme, Role::Title)));
        for para in sanitize(instructions).lines() {
            lines.extend(wrap(para, width).into_iter().map(|l| Line::from(text(l))));
        }
    }
    if !row.stderr.is_empty() {
        lines.push(Line::default());
        lines.push(Line::styled(
            "stderr (last lines)",
            style(theme, Role::Title),
        ));
        lines.extend(row.stderr.iter().map(|l| Line::from(dim(sanitize_line(l)))));
    }
    lines.push(Line::default());
    lines.push(Line::from(vec![
        Span::styled(
            state.keymap.hint(Layer::Normal, Action::Reconnect),
            style(theme, Role::KeyHint),
        ),
        dim(" reconnect (from the Servers pane)".into()),
    ]));
    let max = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(block.inner(rect).height);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll.min(max), 0)),
        rect,
    );
}

/// `≈ 3.1k tokens (2 % of a 200k window) as anthropic sends them`.
fn declaration_cost(state: &State, size: crate::llm::DeclarationSize) -> String {
    use crate::llm::token_estimate::{percent, short};
    use std::fmt::Write as _;
    let tokens = size.tokens(state.status.declaration_shape());
    let mut text = format!("≈ {} tokens", short(tokens as u64));
    if let Some(budget) = &state.status.budget {
        let _ = write!(
            text,
            " ({} of a {} window) as {} declares them",
            percent(tokens, budget.window),
            short(budget.window),
            budget.kind
        );
    }
    text
}
