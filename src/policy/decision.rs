//! What the policy says about one call, and why.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::effect::ToolEffect;
use super::mode::Mode;

/// The facts about a call that rules and modes look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallFacts {
    /// Qualified tool name.
    pub tool: String,
    pub effect: ToolEffect,
    /// The effect selector's value (`write`, `GET`, `delete`), when the tool has one.
    pub selector: Option<String>,
    /// The main argument (path, URL, command line), when the tool declares one.
    pub subject: Option<String>,
    pub subject_style: SubjectStyle,
}

impl CallFacts {
    /// Facts with no selector and no subject.
    pub fn new(tool: impl Into<String>, effect: ToolEffect) -> Self {
        Self {
            tool: tool.into(),
            effect,
            selector: None,
            subject: None,
            subject_style: SubjectStyle::Path,
        }
    }

    #[must_use]
    pub fn with_selector(mut self, selector: impl Into<String>) -> Self {
        self.selector = Some(selector.into());
        self
    }

    #[must_use]
    pub fn with_subject(mut self, subject: impl Into<String>, style: SubjectStyle) -> Self {
        self.subject = Some(subject.into());
        self.subject_style = style;
        self
    }
}

/// How a subject pattern treats `/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubjectStyle {
    /// `*` does not cross `/`; `**` does.
    Path,
    /// `*` matches anything.
    Text,
}

/// Allow, ask or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        })
    }
}

/// Which `[policy]` list a rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleList {
    Allow,
    Ask,
    Deny,
}

impl RuleList {
    /// The verdict a matching rule of this list gives.
    pub fn verdict(self) -> Verdict {
        match self {
            Self::Allow => Verdict::Allow,
            Self::Ask => Verdict::Ask,
            Self::Deny => Verdict::Deny,
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

impl fmt::Display for RuleList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a verdict was reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecisionReason {
    /// A rule matched: `list[index] = text`.
    Rule {
        list: RuleList,
        index: usize,
        text: String,
    },
    /// A session grant matched; `grant` describes it.
    Grant { grant: String },
    /// No rule or grant spoke; the mode decided for this effect.
    Mode { mode: Mode, effect: ToolEffect },
    /// A hook tightened the decision (`[[hooks.pre_tool_use]]`).
    Hook { command: String, reason: String },
    /// `[policy] always_ask` matched a call that would have run.
    AlwaysAsk { pattern: String },
}

impl fmt::Display for DecisionReason {
    /// `rule deny = "fs(delete:*)"`, `session grant (fs write calls)`,
    /// `mode ask: write calls need approval`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rule { list, text, .. } => write!(f, "rule {list} = {text:?}"),
            Self::Grant { grant } => write!(f, "session grant ({grant})"),
            Self::Hook { command, reason } => write!(f, "hook `{command}`: {reason}"),
            Self::AlwaysAsk { pattern } => write!(f, "[policy] always_ask = {pattern:?}"),
            Self::Mode { mode, effect } => {
                let what = match mode.verdict(*effect) {
                    Verdict::Allow => "run",
                    Verdict::Ask => "need approval",
                    Verdict::Deny => "are denied",
                };
                write!(f, "mode {mode}: {effect} calls {what}")
            }
        }
    }
}

/// The policy's answer for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    pub reason: DecisionReason,
}

impl fmt::Display for Decision {
    /// A sentence fit for the model: `denied by rule deny = "fs(delete:*)"`,
    /// `mode ask: write calls need approval`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = match self.verdict {
            Verdict::Allow => "allowed",
            Verdict::Ask => "asked",
            Verdict::Deny => "denied",
        };
        match &self.reason {
            DecisionReason::Mode { .. } => write!(f, "{}", self.reason),
            other => write!(f, "{verb} by {other}"),
        }
    }
}
