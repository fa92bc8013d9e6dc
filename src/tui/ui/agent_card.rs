//! A remote agent's card in the Agents tab's detail view: name, version, description,
//! the protocol spoken, streaming, and its skills. All of it is the remote agent's own
//! text, so every string is sanitised here.

use ratatui::text::{Line, Span};

use crate::sanitize::{sanitize, sanitize_line};
use crate::theme::{Role, Theme};
use crate::tui::agent_cards::RemoteCard;
use crate::tui::state::transcript::wrap;
use crate::tui::style::style;

pub fn lines(card: &RemoteCard, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let dim = |t: String| Span::styled(t, style(theme, Role::Dim));
    let text = |t: String| Span::styled(t, style(theme, Role::Text));
    let wrapped = |body: &str, indent: usize, role: Role| -> Vec<Line<'static>> {
        let pad = " ".repeat(indent);
        sanitize(body)
            .lines()
            .flat_map(|para| wrap(para, width.saturating_sub(indent).max(1)))
            .map(|l| Line::styled(format!("{pad}{l}"), style(theme, role)))
            .collect()
    };
    let mut out = vec![
        Line::default(),
        Line::styled("Agent card", style(theme, Role::Title)),
    ];
    let card = match card {
        RemoteCard::Reading => {
            out.push(Line::from(dim("  reading…".into())));
            return out;
        }
        RemoteCard::Unreadable(why) => {
            out.extend(wrapped(
                &format!("could not be read: {why}"),
                2,
                Role::Warning,
            ));
            return out;
        }
        RemoteCard::Read(card) => card,
    };
    let mut head = vec![text(format!("  {}", sanitize_line(&card.name)))];
    if !card.version.is_empty() {
        head.push(dim(format!(" {}", sanitize_line(&card.version))));
    }
    out.push(Line::from(head));
    out.extend(wrapped(&card.description, 2, Role::Text));
    let fact = |k: &str, v: String| Line::from(vec![dim(format!("  {k}: ")), text(v)]);
    out.push(fact(
        "protocol",
        format!(
            "A2A {} · JSON-RPC at {}",
            card.interface.version.as_str(),
            sanitize_line(&card.interface.url)
        ),
    ));
    let streaming = if card.streaming { "yes" } else { "no (polls)" };
    out.push(fact("streaming", streaming.into()));
    out.push(Line::default());
    out.push(Line::styled(
        format!("Skills ({})", card.skills.len()),
        style(theme, Role::Title),
    ));
    if card.skills.is_empty() {
        out.push(Line::from(dim("  none listed".into())));
    }
    for skill in &card.skills {
        let name = if skill.name.is_empty() {
            &skill.id
        } else {
            &skill.name
        };
        let mut spans = vec![text(format!("  {}", sanitize_line(name)))];
        if !skill.tags.is_empty() {
            let tags: Vec<String> = skill.tags.iter().map(|t| sanitize_line(t)).collect();
            spans.push(dim(format!("  [{}]", tags.join(", "))));
        }
        out.push(Line::from(spans));
        out.extend(wrapped(&skill.description, 4, Role::Dim));
    }
    out
}
