//! The cards of remote (`kind = "a2a"`) agents, for the catalog's Agents tab. They
//! are read in the background once the TUI starts ([`start`] returns
//! `ServerCmd::ReadAgentCards`; the executor answers with one `Msg::AgentCard` per agent),
//! so a slow or absent agent never holds up the first frame; until then the entry
//! says it is reading, and a card that could not be read says why.

pub use super::state::RemoteCard;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::msg::{Cmd, Msg, ServerCmd};
use super::state::State;
use crate::a2a::AgentCard;
use crate::config::{AgentDef, AgentKind, Config};

/// How long a card may take before its agent shows it as unreadable.
pub const CARD_TIMEOUT: Duration = Duration::from_secs(10);

/// Marks every `a2a` agent's entry as reading its card; the command that reads them
/// (`None` when no remote agent is configured).
pub fn start(state: &mut State, config: &Config) -> Option<Cmd> {
    let agents: Vec<(String, AgentDef)> = (config.agents.iter())
        .filter(|(_, def)| def.kind == AgentKind::A2a)
        .map(|(name, def)| (AgentDef::tool_name(name), def.clone()))
        .collect();
    if agents.is_empty() {
        return None;
    }
    for (tool, _) in &agents {
        state
            .catalog
            .items
            .cards
            .insert(tool.clone(), RemoteCard::Reading);
    }
    Some(
        ServerCmd::ReadAgentCards {
            agents,
            timeout: CARD_TIMEOUT,
        }
        .into(),
    )
}

/// A card was read (or not) for the agent tool `tool`.
pub fn arrived(state: &mut State, tool: String, card: Result<Box<AgentCard>, String>) {
    let card = match card {
        Ok(card) => RemoteCard::Read(card),
        Err(why) => RemoteCard::Unreadable(why),
    };
    state.catalog.items.cards.insert(tool, card);
}

/// Reads each agent's card on its own task; each answer goes to `inbox`.
pub(super) fn spawn_reads(
    inbox: &UnboundedSender<Msg>,
    agents: Vec<(String, AgentDef)>,
    timeout: Duration,
) {
    for (tool, def) in agents {
        let inbox = inbox.clone();
        tokio::spawn(async move {
            let card = crate::agents::read_card(&def, timeout)
                .await
                .map(Box::new)
                .map_err(|e| e.to_string());
            let _ = inbox.send(Msg::AgentCard { tool, card });
        });
    }
}

/// The card in a few words for the entry's row (not yet sanitised), and whether it
/// is a problem: `Echo agent · 2 skills`, `reading card…`, `card unreadable`.
pub fn summary(card: &RemoteCard) -> (String, bool) {
    match card {
        RemoteCard::Reading => ("reading card…".into(), false),
        RemoteCard::Read(card) => {
            let skills = super::words::count(card.skills.len(), "skill", "skills");
            let name = if card.name.is_empty() {
                "unnamed agent"
            } else {
                &card.name
            };
            (format!("{name} · {skills}"), false)
        }
        RemoteCard::Unreadable(_) => ("card unreadable".into(), true),
    }
}
