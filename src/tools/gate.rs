//! `Registry::invoke`: the one gate every tool call passes.
//!
//! lease → effect → scope → budget → policy → (ask the user) → run → audit + events.

use std::sync::atomic::Ordering;
use std::time::{Instant, SystemTime};

use serde_json::{Map, Value, json};

use super::context::{Scope, ToolContext};
use super::effect::ToolEffect;
use super::lease::Lease;
use super::registry::{InvokeError, Registry};
use super::result::ToolResult;
use crate::agent::{AgentEvent, ApprovalDecision, ApprovalRequest, CallId, CallOutcome};
use crate::policy::{
    AuditRecord, CallFacts, DecidedBy, Decision, DecisionReason, GrantScope, RuleList, Verdict,
    always_rule_for, append_allow_rule, args_sha256, rfc3339, suggested_allow_rule,
};

/// Who decided and on what grounds.
struct Ruling {
    /// The rule, grant or mode (as a phrase).
    rule: String,
    decided_by: DecidedBy,
    /// The user's answer, when asked.
    answer: Option<&'static str>,
}

enum Gate {
    Run(Ruling),
    Refuse(Ruling, String),
    Abort(Ruling),
}

/// Everything about one call the gate's steps share.
struct Call<'a> {
    id: CallId,
    ctx: &'a ToolContext,
    /// Tool name (the registry key), effect, selector and subject.
    facts: CallFacts,
    started: Instant,
}

/// What the audit log keeps of the arguments, taken before they move into the tool.
struct AuditedArgs {
    sha256: String,
    args: Option<Value>,
}

impl Registry {
    /// Authorises and runs one tool call. The only way any tool runs.
    ///
    /// Refusals (scope, budget, policy, the user, a non-interactive run) are
    /// `Ok(ToolResult { is_error: true })` whose text names the rule or mode.
    /// `Err` means the tool does not exist or the turn was cancelled while asking.
    pub async fn invoke(
        &self,
        name: &str,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolResult, InvokeError> {
        let started = Instant::now();
        let lease = self.lease(name).ok_or_else(|| InvokeError::NotFound {
            name: name.to_owned(),
        })?;
        let call = self.classify(name, &lease, &args, ctx, started);
        let gate = match self.authorise(&call, &lease, &args).await {
            Gate::Run(ruling) => match self.budget.consume(name) {
                Ok(()) => Gate::Run(ruling),
                Err(spent) => Gate::Refuse(budget_ruling(), format!("Denied: {spent}.")),
            },
            other => other,
        };
        let audited = self.audit.is_enabled().then(|| AuditedArgs {
            sha256: args_sha256(&args),
            args: self
                .audit
                .records_arguments()
                .then(|| Value::Object(args.clone())),
        });
        let (result, ruling, outcome) = match gate {
            Gate::Run(ruling) => (Ok(lease.invoke(args, ctx).await), ruling, CallOutcome::Ran),
            Gate::Refuse(ruling, message) => {
                let meta = json!({
                    "decision": "deny",
                    "decided_by": ruling.decided_by,
                    "rule": ruling.rule,
                });
                let refusal = ToolResult::error(message).with_metadata(meta);
                (Ok(refusal), ruling, CallOutcome::Denied)
            }
            Gate::Abort(ruling) => {
                let aborted = InvokeError::Aborted {
                    tool: name.to_owned(),
                };
                (Err(aborted), ruling, CallOutcome::Aborted)
            }
        };
        drop(lease);
        self.report(&call, ruling, outcome, &result, audited);
        result
    }

    /// Effect (a `[policy] effects` override wins over the spec) and the facts rules see;
    /// announces the call.
    fn classify<'a>(
        &self,
        name: &str,
        lease: &Lease,
        args: &Map<String, Value>,
        ctx: &'a ToolContext,
        started: Instant,
    ) -> Call<'a> {
        let spec = lease.spec();
        let effect = self
            .policy
            .effect_override(name)
            .unwrap_or_else(|| spec.effect_for(args));
        let mut facts = CallFacts::from_spec(spec, args, effect);
        name.clone_into(&mut facts.tool);
        let call = Call {
            id: CallId(self.next_call.fetch_add(1, Ordering::Relaxed) + 1),
            ctx,
            facts,
            started,
        };
        self.emit(AgentEvent::ToolCallStarted {
            call_id: call.id,
            run_id: ctx.run_id.clone(),
            tool: name.to_owned(),
            effect,
            origin: ctx.origin,
        });
        call
    }

    /// Audit line and `ToolCallFinished`.
    fn report(
        &self,
        call: &Call<'_>,
        ruling: Ruling,
        outcome: CallOutcome,
        result: &Result<ToolResult, InvokeError>,
        audited: Option<AuditedArgs>,
    ) {
        let is_error = result.as_ref().map_or(true, |r| r.is_error);
        if let Some(audited) = audited {
            let decision = match outcome {
                CallOutcome::Ran => Verdict::Allow,
                CallOutcome::Denied | CallOutcome::Aborted => Verdict::Deny,
            };
            self.audit.append(&AuditRecord {
                time: rfc3339(SystemTime::now()),
                run_id: call.ctx.run_id.clone(),
                step_id: call.ctx.step_id.clone(),
                origin: call.ctx.origin,
                tool: call.facts.tool.clone(),
                effect: call.facts.effect,
                decision,
                rule: ruling.rule.clone(),
                decided_by: ruling.decided_by,
                answer: ruling.answer.map(str::to_owned),
                duration_ms: u64::try_from(call.started.elapsed().as_millis()).unwrap_or(u64::MAX),
                is_error,
                args_sha256: audited.sha256,
                args: audited.args,
            });
        }
        self.emit(AgentEvent::ToolCallFinished {
            call_id: call.id,
            run_id: call.ctx.run_id.clone(),
            tool: call.facts.tool.clone(),
            is_error,
            summary: summary_of(result),
            outcome,
            decided_by: ruling.rule,
            duration_ms: u64::try_from(call.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
    }

    async fn authorise(&self, call: &Call<'_>, lease: &Lease, args: &Map<String, Value>) -> Gate {
        if call.ctx.scope == Scope::ReadOnly && call.facts.effect != ToolEffect::Read {
            let ruling = Ruling {
                rule: "read-only scope".into(),
                decided_by: DecidedBy::Scope,
                answer: None,
            };
            let message = format!(
                "Denied: this context is read-only and this {} call is a {} call, not a read.",
                call.facts.tool, call.facts.effect
            );
            return Gate::Refuse(ruling, message);
        }
        if let Err(spent) = self.budget.check(&call.facts.tool) {
            return Gate::Refuse(budget_ruling(), format!("Denied: {spent}."));
        }
        let decision = self.policy.decide_with(&call.facts, &self.grants);
        let ruling = Ruling {
            rule: decision.reason.to_string(),
            decided_by: DecidedBy::Policy,
            answer: None,
        };
        match decision.verdict {
            Verdict::Allow => Gate::Run(ruling),
            Verdict::Deny => Gate::Refuse(ruling, format!("Denied: {decision}.")),
            Verdict::Ask if !self.broker.is_interactive() => headless_refusal(call, &decision),
            Verdict::Ask => self.ask(call, lease, args, &decision).await,
        }
    }

    async fn ask(
        &self,
        call: &Call<'_>,
        lease: &Lease,
        args: &Map<String, Value>,
        decision: &Decision,
    ) -> Gate {
        let offered = GrantScope::offered_for(&call.facts);
        let always_rule = always_rule_for(&call.facts);
        let request = ApprovalRequest {
            id: self.broker.next_id(),
            run_id: call.ctx.run_id.clone(),
            origin: call.ctx.origin,
            server: Some(
                call.facts
                    .tool
                    .split_once("__")
                    .map_or("builtin", |(server, _)| server)
                    .to_owned(),
            ),
            tool: call.facts.tool.clone(),
            effect: call.facts.effect,
            args: Value::Object(args.clone()),
            reason: decision.to_string(),
            preview: lease.preview(args),
            always_rule: always_rule.clone(),
            session_grant: format!("{offered} until switchboard exits"),
        };
        let id = request.id;
        self.emit(AgentEvent::ApprovalRequested(request.clone()));
        let answer = self.broker.request(request).await;
        self.emit(AgentEvent::ApprovalResolved {
            id,
            decision: answer.clone(),
        });
        let ruling = |answer| Ruling {
            rule: decision.reason.to_string(),
            decided_by: DecidedBy::User,
            answer: Some(answer),
        };
        match answer {
            ApprovalDecision::Once => Gate::Run(ruling("once")),
            ApprovalDecision::Session => {
                self.grants.add(offered);
                Gate::Run(ruling("session"))
            }
            ApprovalDecision::Always => {
                self.remember_always(&call.facts, &always_rule);
                Gate::Run(ruling("always"))
            }
            ApprovalDecision::Deny { reason } => {
                let message = match reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
                    Some(r) => format!(
                        "Denied by the user (asked because {decision}). The user's reason: {r}"
                    ),
                    None => format!("Denied by the user (asked because {decision})."),
                };
                Gate::Refuse(ruling("deny"), message)
            }
            ApprovalDecision::Abort => Gate::Abort(ruling("abort")),
        }
    }

    /// "Always": append the rule to the config file and admit such calls from now on.
    fn remember_always(&self, facts: &CallFacts, rule: &str) {
        if let Some(path) = &self.always_file
            && let Err(e) = append_allow_rule(path, rule)
        {
            tracing::warn!("could not save rule {rule:?}: {e}");
        }
        self.grants.add(GrantScope::exact_for(facts));
    }

    fn emit(&self, event: AgentEvent) {
        if self.events.receiver_count() > 0 {
            let _ = self.events.send(event);
        }
    }
}

fn budget_ruling() -> Ruling {
    Ruling {
        rule: "[policy] max_calls".into(),
        decided_by: DecidedBy::Budget,
        answer: None,
    }
}

/// A non-interactive run cannot ask: refuse, naming what would allow the call.
fn headless_refusal(call: &Call<'_>, decision: &Decision) -> Gate {
    let ruling = Ruling {
        rule: decision.reason.to_string(),
        decided_by: DecidedBy::Headless,
        answer: None,
    };
    let hint = match &decision.reason {
        DecisionReason::Rule {
            list: RuleList::Ask,
            text,
            ..
        } => format!(
            "the rule ask = {text:?} under [policy] makes it ask; remove it to run such calls"
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

fn summary_of(result: &Result<ToolResult, InvokeError>) -> String {
    const MAX: usize = 160;
    let text = match result {
        Ok(r) => r.text_content(),
        Err(e) => e.to_string(),
    };
    let line = text.lines().next().unwrap_or("");
    match line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}
