//! Policy: modes, rules, session grants, budgets and the audit log.
//!
//! Precedence for a call (after the registry's scope check and budget):
//! deny rule > ask rule > allow rule > session grant > mode; then `always_ask` makes
//! what is not denied a question for the person.
//! A session grant never overrides an explicit `ask` or `deny` rule.

mod always;
mod always_ask;
mod audit;
mod audit_line;
mod budget;
mod decision;
mod effect;
mod grant;
mod load;
mod mode;
mod origin;
mod remote;
mod rule;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub use always::{AlwaysError, always_rule_for, append_allow_rule, suggested_allow_rule};
pub use always_ask::{AlwaysAsk, AlwaysAskError};
pub use audit::{
    AuditLog, AuditOpenError, AuditRecord, DecidedBy, ServerRequestRecord, args_sha256, rfc3339,
};
pub use audit_line::{CallHead, LineDraft};
pub use budget::{BudgetSpent, CallBudget, SAMPLING_BUDGET};
pub use decision::{CallFacts, Decision, DecisionReason, RuleList, SubjectStyle, Verdict};
pub use effect::{ParseEffectError, ToolEffect};
pub use grant::{GrantId, GrantScope, SessionGrant, SessionGrants};
pub use load::PolicyConfigError;
pub use mode::{Mode, ParseModeError};
pub use origin::{Origin, Scope};
pub use remote::{ClientBudgetSpent, RemoteClient};
pub use rule::{Rule, RuleError, SubjectPattern, escape_glob};

/// `[policy] confirm_delete`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConfirmDelete {
    #[default]
    Single,
    /// Delete calls need the approval key twice.
    Double,
}

/// The authorisation policy of a session: immutable once built.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    mode: Mode,
    allow: Vec<Rule>,
    ask: Vec<Rule>,
    deny: Vec<Rule>,
    effects: HashMap<String, ToolEffect>,
    confirm_delete: ConfirmDelete,
    audit_arguments: bool,
    audit_log: Option<PathBuf>,
    max_calls: BTreeMap<String, u32>,
    /// `always_ask`: tool-name globs that ask in every mode.
    always_ask: Vec<AlwaysAsk>,
}

impl Policy {
    /// A policy with no rules.
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            ..Self::default()
        }
    }

    /// The same policy in another mode (`--approve MODE`).
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Adds a rule at the end of a list.
    pub fn with_rule(mut self, list: RuleList, text: &str) -> Result<Self, RuleError> {
        let rule = Rule::parse(text)?;
        self.list_mut(list).push(rule);
        Ok(self)
    }

    /// Overrides the effect of every call to `tool`.
    #[must_use]
    pub fn with_effect(mut self, tool: impl Into<String>, effect: ToolEffect) -> Self {
        self.effects.insert(tool.into(), effect);
        self
    }

    /// Sets a per-session call budget for `tool`.
    #[must_use]
    pub fn with_max_calls(mut self, tool: impl Into<String>, max: u32) -> Self {
        self.max_calls.insert(tool.into(), max);
        self
    }

    /// Adds an `always_ask` pattern.
    pub fn with_always_ask(mut self, pattern: &str) -> Result<Self, AlwaysAskError> {
        self.always_ask.push(AlwaysAsk::parse(pattern)?);
        Ok(self)
    }

    pub fn always_ask(&self) -> &[AlwaysAsk] {
        &self.always_ask
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn rules(&self, list: RuleList) -> &[Rule] {
        match list {
            RuleList::Allow => &self.allow,
            RuleList::Ask => &self.ask,
            RuleList::Deny => &self.deny,
        }
    }

    fn list_mut(&mut self, list: RuleList) -> &mut Vec<Rule> {
        match list {
            RuleList::Allow => &mut self.allow,
            RuleList::Ask => &mut self.ask,
            RuleList::Deny => &mut self.deny,
        }
    }

    /// The `[policy] effects` override for a tool.
    pub fn effect_override(&self, tool: &str) -> Option<ToolEffect> {
        self.effects.get(tool).copied()
    }

    pub fn max_calls(&self) -> &BTreeMap<String, u32> {
        &self.max_calls
    }

    pub fn confirm_delete(&self) -> ConfirmDelete {
        self.confirm_delete
    }

    pub fn audit_arguments(&self) -> bool {
        self.audit_arguments
    }

    /// The configured audit log path; see [`AuditLog::default_path`] otherwise.
    pub fn audit_log(&self) -> Option<&Path> {
        self.audit_log.as_deref()
    }

    /// Rules, then the mode (no session grants).
    pub fn decide(&self, call: &CallFacts) -> Decision {
        self.decide_with(call, &SessionGrants::new())
    }

    /// Deny rule > ask rule > allow rule > session grant > mode.
    pub fn decide_with(&self, call: &CallFacts, grants: &SessionGrants) -> Decision {
        self.decide_in(call, grants, self.mode)
    }

    /// As [`Policy::decide_with`], with `mode` in place of the policy's own (the live
    /// mode, a serve client's `[serve.clients.NAME] mode`). `always_ask` makes a call
    /// that is not denied a question for the person.
    pub fn decide_in(&self, call: &CallFacts, grants: &SessionGrants, mode: Mode) -> Decision {
        let decision = self.rules_grant_mode(call, grants, mode);
        if decision.verdict == Verdict::Deny {
            return decision;
        }
        match self.always_ask.iter().find(|a| a.matches(&call.tool)) {
            Some(pattern) => Decision {
                verdict: Verdict::Ask,
                reason: DecisionReason::AlwaysAsk {
                    pattern: pattern.text().to_owned(),
                },
            },
            None => decision,
        }
    }

    fn rules_grant_mode(&self, call: &CallFacts, grants: &SessionGrants, mode: Mode) -> Decision {
        for list in [RuleList::Deny, RuleList::Ask, RuleList::Allow] {
            if let Some((index, rule)) = self
                .rules(list)
                .iter()
                .enumerate()
                .find(|(_, r)| r.matches(call))
            {
                let reason = DecisionReason::Rule {
                    list,
                    index,
                    text: rule.text().to_owned(),
                };
                return Decision {
                    verdict: list.verdict(),
                    reason,
                };
            }
        }
        // A session grant was given for the way of working it was given in: read-only
        // and plan mode do not run what it allowed.
        let grants_apply = !matches!(mode, Mode::ReadOnly | Mode::Plan);
        if grants_apply && let Some(grant) = grants.find(call) {
            return Decision {
                verdict: Verdict::Allow,
                reason: DecisionReason::Grant {
                    grant: grant.scope.to_string(),
                },
            };
        }
        Decision {
            verdict: mode.verdict(call.effect),
            reason: DecisionReason::Mode {
                mode,
                effect: call.effect,
            },
        }
    }
}
