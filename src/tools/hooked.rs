//! The gate's hooks (`[[hooks.*]]`): `pre_tool_use` may tighten the rules' decision,
//! `permission_request` may answer instead of the person, `post_tool_use` may add a
//! note for the model. A hook's allow never lifts a deny rule or a read-only scope:
//! those refuse before any hook runs. Every hook run is kept for the audit line.

use serde_json::{Map, Value};

use super::invoke::{Call, Gate};
use super::registry::Registry;
use super::result::{ContentBlock, ToolResult};
use crate::gate::Ruling;
use crate::hooks::{HookDecision, HookEvent, HookInput, HookVerdict};
use crate::policy::{DecidedBy, Decision, DecisionReason, Verdict};

impl Registry {
    /// A copy of the arguments for `post_tool_use` hooks, when any will run (the
    /// arguments move into the tool).
    pub(super) fn hook_args(&self, call: &Call<'_>, args: &Map<String, Value>) -> Option<Value> {
        (self
            .hooks
            .count(HookEvent::PostToolUse, Some(&call.facts.tool))
            > 0)
        .then(|| Value::Object(args.clone()))
    }

    async fn run_hooks(
        &self,
        event: HookEvent,
        call: &Call<'_>,
        args: Value,
        decision: Verdict,
        result: Option<&ToolResult>,
    ) -> Option<HookVerdict> {
        let tool = call.facts.tool.as_str();
        if self.hooks.count(event, Some(tool)) == 0 {
            return None;
        }
        let effect = call.facts.effect.as_str();
        let mut input = HookInput::new(event, call.ctx.run_id.clone(), self.hooks.cwd()).tool_call(
            tool,
            args,
            effect,
            &decision.to_string(),
        );
        if let Some(result) = result {
            input.result = Some(result.text_content());
            input.is_error = Some(result.is_error);
        }
        let verdict = self.hooks.run(&input).await;
        for warning in &verdict.warnings {
            tracing::warn!("{warning}");
        }
        if let Ok(mut kept) = call.hooks.lock() {
            kept.extend(
                verdict
                    .records
                    .iter()
                    .filter_map(|r| serde_json::to_value(r).ok()),
            );
        }
        Some(verdict)
    }

    /// `pre_tool_use`: a deny refuses the call; an ask turns an allow into a question.
    pub(super) async fn pre_tool_hooks(
        &self,
        call: &Call<'_>,
        args: &Map<String, Value>,
        decision: &mut Decision,
    ) -> Option<Gate> {
        let args = Value::Object(args.clone());
        let verdict = self
            .run_hooks(HookEvent::PreToolUse, call, args, decision.verdict, None)
            .await?;
        let (command, reason) = deciding_hook(&verdict);
        match verdict.tighten(decision.verdict) {
            Verdict::Deny => Some(refusal(&command, &reason)),
            Verdict::Ask if decision.verdict == Verdict::Allow => {
                *decision = Decision {
                    verdict: Verdict::Ask,
                    reason: DecisionReason::Hook { command, reason },
                };
                None
            }
            _ => None,
        }
    }

    /// `permission_request`, before asking: a hook's allow or deny answers for the
    /// person (only its deny, for an `always_ask` call).
    pub(super) async fn permission_hooks(
        &self,
        call: &Call<'_>,
        args: &Map<String, Value>,
        decision: &Decision,
    ) -> Option<Gate> {
        let args = Value::Object(args.clone());
        let verdict = self
            .run_hooks(
                HookEvent::PermissionRequest,
                call,
                args,
                decision.verdict,
                None,
            )
            .await?;
        let (command, reason) = deciding_hook(&verdict);
        // `always_ask` wants the person: a hook's allow does not answer for them.
        let always_ask = matches!(decision.reason, DecisionReason::AlwaysAsk { .. });
        match verdict.decision? {
            HookDecision::Allow if always_ask => None,
            HookDecision::Allow => Some(Gate::Run(Ruling::new(
                DecidedBy::Hook,
                format!("`{command}`"),
            ))),
            HookDecision::Deny => Some(refusal(&command, &reason)),
            HookDecision::Ask => None,
        }
    }

    /// Runs the tool, then its `post_tool_use` hooks: their context, or their
    /// objection, is appended to the result the model reads.
    pub(super) async fn after_call(
        &self,
        call: &Call<'_>,
        args: Option<&Value>,
        run: impl Future<Output = ToolResult>,
    ) -> ToolResult {
        let mut result = run.await;
        let Some(args) = args else {
            return result;
        };
        let Some(verdict) = self
            .run_hooks(
                HookEvent::PostToolUse,
                call,
                args.clone(),
                Verdict::Allow,
                Some(&result),
            )
            .await
        else {
            return result;
        };
        let mut notes = verdict.context.clone();
        if verdict.is_deny() {
            let (command, reason) = deciding_hook(&verdict);
            notes.push(format!("Hook `{command}` objects to this result: {reason}"));
        }
        if !notes.is_empty() {
            result.content.push(ContentBlock::Text {
                text: format!("[hook] {}", notes.join("\n")),
            });
        }
        result
    }
}

fn refusal(command: &str, reason: &str) -> Gate {
    Gate::Refuse(
        Ruling::new(DecidedBy::Hook, format!("`{command}`")),
        format!("Denied by hook `{command}`: {reason}."),
    )
}

/// The hook whose decision won (the first to give it) and its reason.
fn deciding_hook(verdict: &HookVerdict) -> (String, String) {
    let winner = verdict.decision.map(HookDecision::as_str);
    let command = verdict
        .records
        .iter()
        .find(|r| Some(r.outcome) == winner)
        .map_or_else(|| "?".to_owned(), |r| r.command.clone());
    let reason = verdict
        .reason
        .clone()
        .unwrap_or_else(|| "no reason given".to_owned());
    (command, reason)
}
