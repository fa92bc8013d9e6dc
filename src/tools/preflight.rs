//! Telling, before a call goes to the gate, whether it is a read the gate will let
//! through without asking anyone: what a caller needs to know to overlap calls
//! (`agent::tool_round` runs such calls of one model response together). The call
//! itself still passes [`Registry::invoke`], which decides again.

use serde_json::{Map, Value};

use super::context::ToolContext;
use super::registry::Registry;
use crate::hooks::HookEvent;
use crate::policy::{ToolEffect, Verdict};

impl Registry {
    /// `true` when `name` with `args` in `ctx` is a read that would run without a
    /// question: its effect is `Read`, the rules, grants and mode allow it (no ask
    /// rule, no `always_ask`), no `pre_tool_use` or `post_tool_use` hook is configured
    /// for it (a hook may turn it into a question), and no budget counts it (which
    /// of two calls spends the last one must not depend on timing). No mode asks for
    /// a read, rules never change at run time and grants only add, so the answer
    /// stays true while the call waits; anything else answers `false`.
    pub fn runs_unasked(&self, name: &str, args: &Map<String, Value>, ctx: &ToolContext) -> bool {
        let Some(lease) = self.lease(name) else {
            return false;
        };
        let spec = lease.spec();
        let effect = self
            .policy
            .effect_override(name)
            .unwrap_or_else(|| spec.effect_for(args));
        if effect != ToolEffect::Read || ctx.remote.is_some() || self.budget.limits(name) {
            return false;
        }
        if self.hooks.count(HookEvent::PreToolUse, Some(name)) > 0
            || self.hooks.count(HookEvent::PostToolUse, Some(name)) > 0
        {
            return false;
        }
        let mut facts = spec.facts(args, effect);
        name.clone_into(&mut facts.tool);
        self.policy
            .decide_in(&facts, &self.grants, self.mode())
            .verdict
            == Verdict::Allow
    }
}
