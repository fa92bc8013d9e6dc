//! Sub-agent calls nested under the card of the `agent__NAME` call that made them.
//! A sub-agent's session names its calls `PARENT/NAME/ID` (its call prefix), and the
//! gate's events about them reach the caller's session, so a call finds its parent
//! card by id, never by guessing. While the agent works its calls show under its card;
//! once it is done they fold to one line until `e` expands cards.

use std::fmt::Write as _;

use super::ChatKind;
use super::transcript::{Tone, TranscriptLine, tone_of};
use crate::gate::CallId;
use crate::sanitize::sanitize_line;
use crate::tui::cards::{CardStatus, ToolCard};
use crate::tui::markdown::MdStyle;

/// Calls shown under a running agent's card (the newest; older ones are counted).
pub const LIVE_CHILDREN: usize = 4;

/// The parent call and the agent's name of a sub-agent's call id.
pub fn parent_of(id: &CallId) -> Option<(CallId, &str)> {
    let mut parts = id.0.rsplitn(3, '/');
    let _own = parts.next()?;
    let agent = parts.next()?;
    let parent = parts.next()?;
    (!agent.is_empty() && !parent.is_empty()).then(|| (CallId(parent.to_owned()), agent))
}

/// The lines of a card's nested calls, one header each (with the first line of the
/// result when cards are expanded), indented by depth.
pub fn child_lines(
    card: &ToolCard,
    depth: usize,
    expanded: bool,
    clock_ms: u64,
    out: &mut Vec<TranscriptLine>,
) {
    if card.children.is_empty() {
        return;
    }
    if !expanded && !card.status.is_open() {
        out.push(TranscriptLine::Nested(
            depth,
            folded_summary(card),
            Tone::Normal,
        ));
        return;
    }
    let skip = if expanded {
        0
    } else {
        card.children.len().saturating_sub(LIVE_CHILDREN)
    };
    if skip > 0 {
        let text = format!(
            "… {} earlier",
            crate::tui::words::count(skip, "call", "calls")
        );
        out.push(TranscriptLine::Nested(depth, text, Tone::Normal));
    }
    for child in &card.children[skip..] {
        out.push(TranscriptLine::Nested(
            depth,
            child_label(child, clock_ms),
            tone_of(child.status),
        ));
        if expanded && let Some(result) = &child.result {
            let first = sanitize_line(result.lines().next().unwrap_or_default());
            out.push(TranscriptLine::Body(
                ChatKind::Tool,
                vec![(MdStyle::Quote, format!("{}  {first}", "  ".repeat(depth)))],
            ));
        }
        child_lines(child, depth + 1, expanded, clock_ms, out);
    }
}

/// `scout: fs_read · read · ok · 12 ms`, `scout: fs_write · denied · by scope read-only`.
fn child_label(card: &ToolCard, clock_ms: u64) -> String {
    let mut label = String::new();
    if card.status.is_open() {
        label.push(crate::tui::cards::spinner(clock_ms));
        label.push(' ');
    }
    if let Some(agent) = &card.agent {
        let _ = write!(label, "{}: ", sanitize_line(agent));
    }
    label.push_str(&sanitize_line(&card.tool));
    if let Some(effect) = card.effect {
        let _ = write!(label, " · {effect}");
    }
    let _ = write!(label, " · {}", card.status.label());
    if let Some(ms) = card.duration_ms {
        let _ = write!(label, " · {}", crate::tui::cards::duration_text(ms));
    }
    if let Some(decided) = &card.decided
        && card.status == CardStatus::Denied
    {
        let _ = write!(label, " · by {}", sanitize_line(decided));
    }
    label
}

/// `scout made 3 calls · 1 denied (e shows them)`; for a coordinator's run
/// `2 agent calls · 1 failed (e shows them)`.
fn folded_summary(card: &ToolCard) -> String {
    let n = card.children.len();
    let mut text = match card.children.first().and_then(|c| c.agent.as_deref()) {
        Some(agent) => format!(
            "{} made {}",
            sanitize_line(agent),
            crate::tui::words::count(n, "call", "calls")
        ),
        None => crate::tui::words::count(n, "agent call", "agent calls"),
    };
    let denied = count(card, CardStatus::Denied);
    if denied > 0 {
        let _ = write!(text, " · {denied} denied");
    }
    let failed = count(card, CardStatus::Error);
    if failed > 0 {
        let _ = write!(text, " · {failed} failed");
    }
    text.push_str(" (e shows them)");
    text
}

fn count(card: &ToolCard, status: CardStatus) -> usize {
    card.children.iter().filter(|c| c.status == status).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Origin;
    use crate::tui::cards::CardKind;

    #[test]
    fn a_nested_id_names_its_parent_and_agent() {
        let id = CallId("call_1/scout/call_2".into());
        assert_eq!(parent_of(&id), Some((CallId("call_1".into()), "scout")));
        let deeper = CallId("call_1/scout/call_2/helper/call_1".into());
        assert_eq!(
            parent_of(&deeper),
            Some((CallId("call_1/scout/call_2".into()), "helper"))
        );
        assert_eq!(parent_of(&CallId("call_1".into())), None);
        assert_eq!(parent_of(&CallId("a/b".into())), None);
    }

    #[test]
    fn a_running_agent_shows_its_newest_calls_and_counts_the_rest() {
        let mut card = ToolCard::new(
            CallId("c".into()),
            "r".into(),
            CardKind::Tool,
            Origin::Model,
        );
        card.status = CardStatus::Running;
        for i in 0..6 {
            let mut child = ToolCard::new(
                CallId(format!("c/scout/{i}")),
                "r".into(),
                CardKind::Tool,
                Origin::Agent,
            );
            child.tool = format!("t{i}");
            child.agent = Some("scout".into());
            child.status = CardStatus::Ok;
            card.children.push(child);
        }
        let mut out = Vec::new();
        child_lines(&card, 0, false, 0, &mut out);
        let labels: Vec<&str> = out
            .iter()
            .map(|l| match l {
                TranscriptLine::Nested(_, label, _) => label.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(
            labels,
            vec![
                "… 2 calls earlier",
                "scout: t2 · ok",
                "scout: t3 · ok",
                "scout: t4 · ok",
                "scout: t5 · ok"
            ]
        );
        assert_eq!(
            card.find_mut(&CallId("c/scout/3".into()))
                .map(|c| c.tool.clone()),
            Some("t3".into())
        );
    }
}
