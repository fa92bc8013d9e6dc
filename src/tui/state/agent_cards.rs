//! What an agent card read returned.

use crate::a2a::AgentCard;

/// What is known of a remote agent's card.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteCard {
    Reading,
    /// The card as the agent serves it (its text is untrusted: sanitised when drawn).
    Read(Box<AgentCard>),
    /// Why it could not be read.
    Unreadable(String),
}
