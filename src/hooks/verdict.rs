//! What hooks decided, and how that tightens the gate's verdict.

use std::fmt;

use serde::Serialize;

use crate::policy::Verdict;

/// A hook's answer about the action at hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HookDecision {
    /// Go ahead (never overrides a deny rule, a read-only scope or another hook).
    Allow,
    /// Ask the user.
    Ask,
    /// Refuse.
    Deny,
}

impl HookDecision {
    /// Reads `allow`/`approve`, `ask`, `deny`/`block`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "allow" | "approve" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "deny" | "block" => Some(Self::Deny),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

impl fmt::Display for HookDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one hook run came to, for the audit log. Holds no stdin and no stdout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookRecord {
    /// `pre_tool_use`, …
    pub event: &'static str,
    /// The program (argv\[0\]) as configured.
    pub command: String,
    /// `allow`, `ask`, `deny`, `none` (no opinion) or `error` (failed open).
    pub outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub duration_ms: u64,
}

/// The combined answer of an event's hooks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookVerdict {
    /// The strictest decision any hook gave (`None`: no hook had an opinion).
    pub decision: Option<HookDecision>,
    /// The reason given with that decision.
    pub reason: Option<String>,
    /// Text the hooks asked to add for the model, in hook order.
    pub context: Vec<String>,
    /// Hooks that failed and were ignored (fail open), as messages for the user.
    pub warnings: Vec<String>,
    /// One record per hook that ran, in order.
    pub records: Vec<HookRecord>,
}

impl HookVerdict {
    /// Whether the hooks refuse the action.
    pub fn is_deny(&self) -> bool {
        self.decision == Some(HookDecision::Deny)
    }

    /// Merges one hook's decision: the stricter one (deny > ask > allow) wins; the
    /// first hook to give the winning decision gives the reason.
    pub fn merge(&mut self, decision: Option<HookDecision>, reason: Option<String>) {
        let Some(decision) = decision else { return };
        if self.decision.is_none_or(|d| decision > d) {
            self.decision = Some(decision);
            self.reason = reason;
        }
    }

    /// The gate's verdict after the hooks: a hook can only tighten it. `Allow` from a
    /// hook leaves `Ask` and `Deny` as they are; `Ask` turns `Allow` into `Ask`;
    /// `Deny` denies. (Deny rules and read-only scopes are decided before hooks run,
    /// so no hook can lift them.)
    pub fn tighten(&self, verdict: Verdict) -> Verdict {
        match (self.decision, verdict) {
            (Some(HookDecision::Deny), _) | (_, Verdict::Deny) => Verdict::Deny,
            (Some(HookDecision::Ask), _) | (_, Verdict::Ask) => Verdict::Ask,
            _ => Verdict::Allow,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strictest_decision_wins_and_keeps_its_reason() {
        let mut v = HookVerdict::default();
        v.merge(Some(HookDecision::Allow), Some("fine".into()));
        v.merge(None, None);
        v.merge(Some(HookDecision::Deny), Some("no".into()));
        v.merge(Some(HookDecision::Ask), Some("hmm".into()));
        assert_eq!(
            (v.decision, v.reason.as_deref()),
            (Some(HookDecision::Deny), Some("no"))
        );
    }

    #[test]
    fn hooks_only_tighten() {
        let with = |d| HookVerdict {
            decision: d,
            ..HookVerdict::default()
        };
        let allow = with(Some(HookDecision::Allow));
        assert_eq!(allow.tighten(Verdict::Deny), Verdict::Deny);
        assert_eq!(allow.tighten(Verdict::Ask), Verdict::Ask);
        assert_eq!(
            with(Some(HookDecision::Ask)).tighten(Verdict::Allow),
            Verdict::Ask
        );
        assert_eq!(
            with(Some(HookDecision::Deny)).tighten(Verdict::Allow),
            Verdict::Deny
        );
        assert_eq!(with(None).tighten(Verdict::Ask), Verdict::Ask);
    }
}
