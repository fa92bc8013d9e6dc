//! What the gate says when it refuses without asking anyone: a spent budget, a call
//! a non-interactive run cannot ask about; and the one-line summary of an outcome.

use super::context::ToolContext;
use super::invoke::{Call, CallOutcome, Gate};
use crate::gate::Ruling;
use crate::policy::{DecidedBy, Decision, DecisionReason, RuleList, suggested_allow_rule};

pub(super) fn budget_ruling(ctx: &ToolContext) -> Ruling {
    match ctx.client_name() {
        Some(client) => Ruling::new(
            DecidedBy::Budget,
            format!("[serve.clients.{client}] max_calls or [policy] max_calls"),
        ),
        None => Ruling::new(DecidedBy::Budget, "[policy] max_calls"),
    }
}

/// A non-interactive run cannot ask: refuse, naming what would allow the call.
pub(super) fn headless_refusal(call: &Call<'_>, decision: &Decision) -> Gate {
    let ruling = Ruling::new(DecidedBy::Headless, decision.reason.to_string());
    let hint = match &decision.reason {
        DecisionReason::Rule {
            list: RuleList::Ask,
            text,
            ..
        } => format!(
            "the rule ask = {text:?} under [policy] makes it ask; remove it to run such calls"
        ),
        DecisionReason::AlwaysAsk { pattern } => format!(
            "[policy] always_ask = {pattern:?} makes it ask in every mode; such calls need \
             a person"
        ),
        _ => format!(
            "to allow without asking add allow = [{:?}] under [policy]",
            suggested_allow_rule(&call.facts)
        ),
    };
    let message =
        format!("Denied: needs approval ({decision}) but this run is non-interactive; {hint}.");
    Gate::Refuse(ruling, message)
}

pub(super) fn summary_of(outcome: &CallOutcome) -> String {
    const MAX: usize = 160;
    let text = match outcome {
        CallOutcome::Ran(result) => result.text_content(),
        other => other.clone().into_result().text_content(),
    };
    let line = text.lines().next().unwrap_or("");
    match line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}
