//! Approval modes: what happens to a call no rule or grant speaks about.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::decision::Verdict;
use super::effect::ToolEffect;

/// The `[policy] mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Only Read calls run; everything else is denied.
    ReadOnly,
    /// Read calls run; Compute, Write, Delete and Unknown ask.
    #[default]
    Ask,
    /// Read and Write calls run; Compute, Delete and Unknown ask.
    AutoEdit,
    /// Everything runs unless a rule says otherwise.
    FullAuto,
    /// As read-only at the gate; a session's turns also get a read-only scope and a
    /// system-prompt note asking the model to propose a plan, not act.
    Plan,
}

impl Mode {
    pub const ALL: [Self; 5] = [
        Self::ReadOnly,
        Self::Ask,
        Self::AutoEdit,
        Self::FullAuto,
        Self::Plan,
    ];

    /// What Shift+Tab cycles through, in order (plan is chosen by name).
    pub const CYCLE: [Self; 4] = [Self::ReadOnly, Self::Ask, Self::AutoEdit, Self::FullAuto];

    /// The next mode of [`Mode::CYCLE`], after the last the first; plan (read-only
    /// plus the note) goes on to ask.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Self::ReadOnly | Self::Plan => Self::Ask,
            Self::Ask => Self::AutoEdit,
            Self::AutoEdit => Self::FullAuto,
            Self::FullAuto => Self::ReadOnly,
        }
    }

    /// One line on what the mode lets run, for the notice shown on a switch.
    pub fn describe(self) -> &'static str {
        match self {
            Self::ReadOnly => "only reads run; everything else is denied",
            Self::Ask => "reads run; compute, write, delete and unknown calls ask",
            Self::AutoEdit => "reads and writes run; compute, delete and unknown calls ask",
            Self::FullAuto => {
                "every call runs without asking, unless a rule or always_ask says otherwise"
            }
            Self::Plan => "read-only; the model proposes a plan and does not act",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::Ask => "ask",
            Self::AutoEdit => "auto-edit",
            Self::FullAuto => "full-auto",
            Self::Plan => "plan",
        }
    }

    /// The verdict of this mode for a call with `effect`.
    pub fn verdict(self, effect: ToolEffect) -> Verdict {
        use ToolEffect::{Read, Write};
        match (self, effect) {
            (_, Read) | (Self::AutoEdit, Write) | (Self::FullAuto, _) => Verdict::Allow,
            (Self::ReadOnly | Self::Plan, _) => Verdict::Deny,
            (Self::Ask | Self::AutoEdit, _) => Verdict::Ask,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode {0:?}: expected read-only, ask, auto-edit, full-auto or plan")]
pub struct ParseModeError(pub String);

impl FromStr for Mode {
    type Err = ParseModeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|m| m.as_str() == s.trim())
            .ok_or_else(|| ParseModeError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_table() {
        use ToolEffect::{Compute, Delete, Read, Unknown, Write};
        use Verdict::{Allow, Ask, Deny};
        let table = [
            (Mode::ReadOnly, [Allow, Deny, Deny, Deny, Deny]),
            (Mode::Ask, [Allow, Ask, Ask, Ask, Ask]),
            (Mode::AutoEdit, [Allow, Ask, Allow, Ask, Ask]),
            (Mode::FullAuto, [Allow, Allow, Allow, Allow, Allow]),
            (Mode::Plan, [Allow, Deny, Deny, Deny, Deny]),
        ];
        for (mode, verdicts) in table {
            for (effect, want) in [Read, Compute, Write, Delete, Unknown]
                .into_iter()
                .zip(verdicts)
            {
                assert_eq!(mode.verdict(effect), want, "{mode} {effect}");
            }
        }
    }

    #[test]
    fn parses_kebab_names() {
        assert_eq!("auto-edit".parse::<Mode>(), Ok(Mode::AutoEdit));
        assert_eq!("plan".parse::<Mode>(), Ok(Mode::Plan));
        assert!("yolo".parse::<Mode>().is_err());
    }

    #[test]
    fn shift_tab_cycles_the_four_modes_and_leaves_plan_for_the_next() {
        let mut seen = vec![Mode::ReadOnly];
        for _ in 0..4 {
            seen.push(seen.last().copied().unwrap_or_default().next());
        }
        assert_eq!(
            seen,
            [
                Mode::ReadOnly,
                Mode::Ask,
                Mode::AutoEdit,
                Mode::FullAuto,
                Mode::ReadOnly
            ]
        );
        assert_eq!(Mode::Plan.next(), Mode::Ask);
    }
}
