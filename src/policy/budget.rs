//! Per-tool call budgets for one session (`[policy] max_calls`).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// The `[policy] max_calls` entry that limits a server's sampling requests per
/// session; every sampling request is counted once, when it arrives.
pub const SAMPLING_BUDGET: &str = "sampling";

/// The budget of a tool is spent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{tool} has used its budget of {limit} call{s} for this session ([policy] max_calls)",
    s = if *limit == 1 { "" } else { "s" }
)]
pub struct BudgetSpent {
    pub tool: String,
    pub limit: u32,
}

/// Counts calls per qualified tool name against their limits.
#[derive(Debug, Default)]
pub struct CallBudget {
    limits: HashMap<String, u32>,
    used: Mutex<HashMap<String, u32>>,
}

impl CallBudget {
    pub fn new(limits: impl IntoIterator<Item = (String, u32)>) -> Self {
        Self {
            limits: limits.into_iter().collect(),
            used: Mutex::default(),
        }
    }

    /// Whether `tool` may still be called (does not count the call).
    pub fn check(&self, tool: &str) -> Result<(), BudgetSpent> {
        self.take(tool, false)
    }

    /// Counts one call of `tool`, or fails when its budget is spent.
    pub fn consume(&self, tool: &str) -> Result<(), BudgetSpent> {
        self.take(tool, true)
    }

    /// Whether `tool` has a budget at all (calls of it are counted).
    pub fn limits(&self, tool: &str) -> bool {
        self.limits.contains_key(tool)
    }

    /// Calls of `tool` counted so far.
    pub fn used(&self, tool: &str) -> u32 {
        let used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        used.get(tool).copied().unwrap_or(0)
    }

    fn take(&self, tool: &str, count: bool) -> Result<(), BudgetSpent> {
        let Some(&limit) = self.limits.get(tool) else {
            return Ok(());
        };
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        let n = used.entry(tool.to_owned()).or_insert(0);
        if *n >= limit {
            return Err(BudgetSpent {
                tool: tool.to_owned(),
                limit,
            });
        }
        if count {
            *n += 1;
        }
        Ok(())
    }
}
