//! Session grants: "approve for this session" remembered until the program exits.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock};

use super::decision::CallFacts;
use super::decision::SubjectStyle;
use super::effect::ToolEffect;
use super::rule::SubjectPattern;

/// Identifies a grant for revocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GrantId(pub u64);

impl fmt::Display for GrantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What a grant admits: calls to `tool` with `effect`, and a matching subject if set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantScope {
    pub tool: String,
    pub effect: ToolEffect,
    pub subject: Option<SubjectPattern>,
}

impl GrantScope {
    /// What "approve for this session" remembers for a call: the tool and effect, and
    /// for command-line tools also the exact command (a command line is the whole risk).
    pub fn offered_for(call: &CallFacts) -> Self {
        let subject = match (call.subject_style, call.subject.as_deref()) {
            (SubjectStyle::Text, Some(line)) => SubjectPattern::exact(line).ok(),
            _ => None,
        };
        Self {
            tool: call.tool.clone(),
            effect: call.effect,
            subject,
        }
    }

    /// Calls to the same tool with the same effect and exactly this subject (what an
    /// "always" rule written for this call admits).
    pub fn exact_for(call: &CallFacts) -> Self {
        Self {
            tool: call.tool.clone(),
            effect: call.effect,
            subject: call
                .subject
                .as_deref()
                .and_then(|s| SubjectPattern::exact(s).ok()),
        }
    }

    pub fn matches(&self, call: &CallFacts) -> bool {
        self.tool == call.tool
            && self.effect == call.effect
            && self
                .subject
                .as_ref()
                .is_none_or(|p| p.matches(call.subject.as_deref(), call.subject_style))
    }
}

impl fmt::Display for GrantScope {
    /// `fs write calls`, `shell compute calls matching git status`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} calls", self.tool, self.effect)?;
        if let Some(p) = &self.subject {
            write!(f, " matching {}", p.as_str())?;
        }
        Ok(())
    }
}

/// A remembered grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionGrant {
    pub id: GrantId,
    pub scope: GrantScope,
}

/// The grants of this session; shared, interior-mutable.
#[derive(Debug, Default)]
pub struct SessionGrants {
    next: AtomicU64,
    grants: RwLock<Vec<SessionGrant>>,
}

impl SessionGrants {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&self, scope: GrantScope) -> GrantId {
        let id = GrantId(self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let mut grants = self.grants.write().unwrap_or_else(PoisonError::into_inner);
        grants.push(SessionGrant { id, scope });
        id
    }

    pub fn list(&self) -> Vec<SessionGrant> {
        self.grants
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Removes a grant; false when there was none with this id.
    pub fn revoke(&self, id: GrantId) -> bool {
        let mut grants = self.grants.write().unwrap_or_else(PoisonError::into_inner);
        let before = grants.len();
        grants.retain(|g| g.id != id);
        grants.len() != before
    }

    /// The first grant admitting this call.
    pub fn find(&self, call: &CallFacts) -> Option<SessionGrant> {
        self.grants
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|g| g.scope.matches(call))
            .cloned()
    }
}
