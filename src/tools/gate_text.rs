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
    let (text, from_tool) = match outcome {
        CallOutcome::Ran(result) => (result.text_content(), true),
        other => (other.clone().into_result().text_content(), false),
    };
    let line = text.lines().next().unwrap_or("");
    // A tool's text is cut to a line's worth; the gate's own refusals are whole (they
    // name the rule to add, which a cut would lose).
    match line.char_indices().nth(MAX) {
        Some((cut, _)) if from_tool => format!("{}…", &line[..cut]),
        _ => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Ruling;
    use crate::policy::DecidedBy;

    #[test]
    fn a_refusal_is_summed_up_whole_a_tool_text_cut() {
        let rule = format!("allow = [\"{}__write_thing(write:*)\"]", "a".repeat(120));
        let message =
            format!("Denied: needs approval; to allow without asking add {rule} under [policy].");
        let denied = CallOutcome::Denied {
            ruling: Ruling::new(DecidedBy::Headless, "headless"),
            message: message.clone(),
        };
        assert_eq!(summary_of(&denied), message);
        let long = CallOutcome::Ran(crate::tools::ToolResult::text("x".repeat(400)));
        assert_eq!(summary_of(&long).chars().count(), 161);
    }
}
