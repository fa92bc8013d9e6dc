//! `Registry::invoke`: the one gate every tool call passes.
//!
//! lease → effect → the tool's own limits → scope → budget → policy → (ask the person)
//! → run → audit + events.
//! Each step's event goes to the caller's observer (`ToolContext::observer`), once.

use std::sync::atomic::Ordering;
use std::time::Instant;

use serde_json::{Map, Value};

use super::allowlist::ALLOWLIST;
use super::context::ToolContext;
use super::gate_text::{budget_ruling, headless_refusal, summary_of};
use super::lease::Lease;
use super::registry::{InvokeError, Registry};
use super::result::ToolResult;
use crate::gate::{Answer, ApprovalDecision, ApprovalRequest, CallEnd, CallId, GateEvent, Ruling};
use crate::policy::{
    BudgetSpent, CallFacts, CallHead, ClientBudgetSpent, DecidedBy, Decision, GrantScope,
    LineDraft, Origin, Scope, ToolEffect, Verdict, always_rule_for, append_allow_rule,
};

/// How long a cancelled tool may take to stop before the gate stops waiting.
const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// A budget the call would overrun: the session's `[policy] max_calls` or the serve
/// client's.
#[derive(Debug, thiserror::Error)]
enum Spent {
    #[error(transparent)]
    Session(#[from] BudgetSpent),
    #[error(transparent)]
    Client(#[from] ClientBudgetSpent),
}

/// How one call through the gate ended.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The tool ran; its result may still report an error.
    Ran(ToolResult),
    /// Refused before running (scope, budget, policy, the person, a non-interactive
    /// run); `message` is what the model reads.
    Denied { ruling: Ruling, message: String },
    /// Cancelled while it waited for approval (the person aborted, the turn ended).
    Aborted,
    /// Cancelled while it ran.
    Cancelled,
    /// It could not be made.
    Failed(InvokeError),
}

impl CallOutcome {
    pub fn end(&self) -> CallEnd {
        match self {
            Self::Ran(r) if r.is_error => CallEnd::Error,
            Self::Ran(_) => CallEnd::Ok,
            Self::Denied { .. } => CallEnd::Denied,
            Self::Aborted => CallEnd::Aborted,
            Self::Cancelled => CallEnd::Cancelled,
            Self::Failed(_) => CallEnd::Failed,
        }
    }

    /// What a reader (the model, a CLI user) is told: the result, or why there is none.
    pub fn into_result(self) -> ToolResult {
        match self {
            Self::Ran(result) => result,
            Self::Denied { message, .. } => ToolResult::error(message),
            Self::Aborted => {
                ToolResult::error("Not run: the call was aborted while it waited for approval.")
            }
            Self::Cancelled => ToolResult::error("Cancelled while it ran."),
            Self::Failed(e) => ToolResult::error(e.to_string()),
        }
    }
}

/// MCP Apps (https://github.com/modelcontextprotocol/ext-apps,
/// `specification/2026-01-26/apps.mdx`): a tool whose `_meta.ui.visibility` lacks
/// `"model"` is hidden from the model, so a model's (or sub-agent's) call to it is
/// refused. The person's own calls (`/call`, `switchboard call`) and serve clients
/// are not models and are let through.
fn app_only_refusal(call: &Call<'_>, lease: &Lease) -> Option<Gate> {
    if !lease.spec().app_only || !matches!(call.ctx.origin, Origin::Model | Origin::Agent) {
        return None;
    }
    Some(Gate::Refuse(
        Ruling::new(DecidedBy::Tool, "MCP Apps visibility"),
        format!(
            "Denied: {} is an app-only tool (MCP Apps visibility [\"app\"]); only its \
             server's UI may call it, not a model.",
            call.facts.tool
        ),
    ))
}

/// MCP Apps: an app may call only tools of the server it came from, and only those
/// whose `_meta.ui.visibility` includes `"app"` (the spec's MUSTs for hosts).
fn app_refusal(call: &Call<'_>, lease: &Lease) -> Option<Gate> {
    if call.ctx.origin != Origin::App {
        return None;
    }
    let server = super::server_of(&call.facts.tool);
    let why = if call.ctx.app_server.as_deref() != Some(server) {
        format!(
            "an MCP App may call only the tools of its own server ({}), and {} is not one",
            call.ctx.app_server.as_deref().unwrap_or("none"),
            call.facts.tool
        )
    } else if lease.spec().hidden_from_apps {
        format!(
            "{} is not visible to apps (its MCP Apps visibility lacks \"app\")",
            call.facts.tool
        )
    } else {
        return None;
    };
    Some(Gate::Refuse(
        Ruling::new(DecidedBy::Tool, "MCP Apps visibility"),
        format!("Denied: {why}."),
    ))
}

/// What the gate decided before running.
pub(super) enum Gate {
    Run(Ruling),
    Refuse(Ruling, String),
    Abort(Ruling),
}

/// Everything about one call the gate's steps share.
pub(super) struct Call<'a> {
    pub(super) id: CallId,
    pub(super) ctx: &'a ToolContext,
    /// Tool name (the registry key), effect, selector and subject.
    pub(super) facts: CallFacts,
    started: Instant,
    /// What the hooks that ran for this call decided, for the audit line.
    pub(super) hooks: std::sync::Mutex<Vec<Value>>,
}

impl Call<'_> {
    /// Builds the event only when someone listens (a headless call has no observer).
    fn emit(&self, event: impl FnOnce() -> GateEvent) {
        if let Some(observer) = &self.ctx.observer {
            observer.event(event());
        }
    }

    fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The audit line's fields known once the gate has decided (`decision`: the
    /// tool runs or not).
    fn head<'b>(&'b self, ruling: &'b Ruling, decision: Verdict) -> CallHead<'b> {
        CallHead {
            run_id: &self.ctx.run_id,
            call_id: &self.id.0,
            origin: self.ctx.origin,
            client: self.ctx.client_name(),
            agent: self.ctx.agent.as_deref(),
            app: self.ctx.app.as_deref(),
            tool: &self.facts.tool,
            effect: self.facts.effect,
            decision,
            rule: &ruling.rule,
            decided_by: ruling.by,
            answer: ruling.answer.map(Answer::as_str),
        }
    }
}

/// Runs `run` and, once it waits (its request is out), `side` beside it: work the
/// caller would otherwise do before or after the call is done while the tool's server
/// works. The yield first lets a task `run` woke on this thread (an rmcp connection's
/// loop, which writes the request) go before `side`.
async fn beside<T>(
    run: impl Future<Output = CallOutcome>,
    side: impl FnOnce() -> T,
) -> (CallOutcome, T) {
    let mut run = std::pin::pin!(run);
    if let std::task::Poll::Ready(outcome) = futures::poll!(run.as_mut()) {
        return (outcome, side());
    }
    tokio::task::yield_now().await;
    let done = side();
    (run.await, done)
}

impl Registry {
    /// Authorises and runs one tool call. The only way any tool runs.
    pub async fn invoke(
        &self,
        name: &str,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> CallOutcome {
        let started = Instant::now();
        let Some(lease) = self.lease(name) else {
            return self.not_found(name, ctx);
        };
        let call = self.classify(name, &lease, &args, ctx, started);
        let gate = match self.authorise(&call, &lease, &args).await {
            Gate::Run(ruling) => match self.consume_budgets(name, ctx) {
                Ok(()) => Gate::Run(ruling),
                Err(spent) => Gate::Refuse(budget_ruling(ctx), format!("Denied: {spent}.")),
            },
            other => other,
        };
        let args_for_hooks = self.hook_args(&call, &args);
        let (outcome, ruling, line) = match gate {
            Gate::Run(ruling) => {
                // The audit line's arguments: cloned before they move into the tool,
                // hashed while it runs.
                let audited = self.audit.is_enabled().then(|| args.clone());
                let run = self.after_call(&call, args_for_hooks.as_ref(), lease.invoke(args, ctx));
                tokio::pin!(run);
                let ran = async {
                    tokio::select! {
                        biased;
                        () = ctx.cancel.cancelled() => {
                            // The tool saw the same token: a moment to stop cleanly (an
                            // MCP tool tells its server the call is cancelled).
                            let _ = tokio::time::timeout(CANCEL_GRACE, &mut run).await;
                            CallOutcome::Cancelled
                        }
                        result = &mut run => CallOutcome::Ran(for_whom(result, ctx.origin)),
                    }
                };
                let (outcome, line) = beside(ran, || {
                    let head = call.head(&ruling, Verdict::Allow);
                    audited.and_then(|args| self.audit.draft(&head, &args))
                })
                .await;
                (outcome, ruling, line)
            }
            Gate::Refuse(ruling, message) => {
                let line = self.audit.draft(&call.head(&ruling, Verdict::Deny), &args);
                let outcome = CallOutcome::Denied {
                    ruling: ruling.clone(),
                    message,
                };
                (outcome, ruling, line)
            }
            Gate::Abort(ruling) => {
                let line = self.audit.draft(&call.head(&ruling, Verdict::Deny), &args);
                (CallOutcome::Aborted, ruling, line)
            }
        };
        drop(lease);
        self.report(&call, ruling, &outcome, line.as_ref());
        outcome
    }

    fn not_found(&self, name: &str, ctx: &ToolContext) -> CallOutcome {
        let call_id = self.call_id(ctx);
        let error = InvokeError::NotFound {
            name: name.to_owned(),
        };
        if let Some(observer) = &ctx.observer {
            observer.event(GateEvent::ToolCallFinished {
                call_id,
                run_id: ctx.run_id.clone(),
                tool: name.to_owned(),
                outcome: CallEnd::Failed,
                ruling: None,
                summary: error.to_string(),
                duration_ms: 0,
            });
        }
        CallOutcome::Failed(error)
    }

    fn call_id(&self, ctx: &ToolContext) -> CallId {
        ctx.call_id.clone().unwrap_or_else(|| {
            let n = self.next_call.fetch_add(1, Ordering::Relaxed) + 1;
            CallId(format!("call-{n}"))
        })
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
        let mut facts = spec.facts(args, effect);
        name.clone_into(&mut facts.tool);
        let call = Call {
            id: self.call_id(ctx),
            ctx,
            facts,
            started,
            hooks: std::sync::Mutex::default(),
        };
        call.emit(|| GateEvent::ToolCallStarted {
            call_id: call.id.clone(),
            run_id: ctx.run_id.clone(),
            tool: name.to_owned(),
            effect,
            origin: ctx.origin,
        });
        call
    }

    /// Audit line (its draft ended: a denial's is written before its result returns,
    /// as every line is) and `ToolCallFinished`.
    fn report(
        &self,
        call: &Call<'_>,
        ruling: Ruling,
        outcome: &CallOutcome,
        line: Option<&LineDraft>,
    ) {
        let end = outcome.end();
        if let Some(line) = line {
            let hooks = call.hooks.lock().map(|h| h.clone()).unwrap_or_default();
            self.audit
                .finish(line, call.elapsed_ms(), end != CallEnd::Ok, &hooks);
        }
        call.emit(|| GateEvent::ToolCallFinished {
            call_id: call.id.clone(),
            run_id: call.ctx.run_id.clone(),
            tool: call.facts.tool.clone(),
            outcome: end,
            ruling: Some(ruling),
            summary: summary_of(outcome),
            duration_ms: call.elapsed_ms(),
        });
    }

    async fn authorise(&self, call: &Call<'_>, lease: &Lease, args: &Map<String, Value>) -> Gate {
        if let Err(reason) = lease.precheck(args) {
            return Gate::Refuse(
                Ruling::new(DecidedBy::Tool, "the tool's own limits"),
                reason.to_string(),
            );
        }
        if let Some(message) = call.ctx.outside_allowlist(&call.facts.tool) {
            return Gate::Refuse(Ruling::new(DecidedBy::Scope, ALLOWLIST), message);
        }
        if let Some(refusal) = app_only_refusal(call, lease).or_else(|| app_refusal(call, lease)) {
            return refusal;
        }
        if call.ctx.scope == Scope::ReadOnly && call.facts.effect != ToolEffect::Read {
            let message = format!(
                "Denied: this context is read-only and this {} call is a {} call, not a read.",
                call.facts.tool, call.facts.effect
            );
            return Gate::Refuse(Ruling::new(DecidedBy::Scope, "read-only scope"), message);
        }
        if let Err(spent) = self.budget.check(&call.facts.tool) {
            return Gate::Refuse(budget_ruling(call.ctx), format!("Denied: {spent}."));
        }
        if let Some(Err(spent)) = call.ctx.remote.as_ref().map(|r| r.check()) {
            return Gate::Refuse(budget_ruling(call.ctx), format!("Denied: {spent}."));
        }
        let mode = call.ctx.remote.as_ref().and_then(|r| r.mode);
        let mode = mode.unwrap_or_else(|| self.mode());
        let mut decision = self.policy.decide_in(&call.facts, &self.grants, mode);
        // Hooks run only for calls the rules let through: they can tighten, never lift.
        if decision.verdict != Verdict::Deny
            && let Some(refusal) = self.pre_tool_hooks(call, args, &mut decision).await
        {
            return refusal;
        }
        let ruling = Ruling::new(DecidedBy::Policy, decision.reason.to_string());
        match decision.verdict {
            Verdict::Allow => Gate::Run(ruling),
            Verdict::Deny => Gate::Refuse(ruling, format!("Denied: {decision}.")),
            Verdict::Ask => {
                if let Some(answer) = self.permission_hooks(call, args, &decision).await {
                    return answer;
                }
                if self.broker.is_interactive() {
                    self.ask(call, lease, args, &decision).await
                } else {
                    headless_refusal(call, &decision)
                }
            }
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
            call_id: call.id.clone(),
            run_id: call.ctx.run_id.clone(),
            origin: call.ctx.origin,
            client: call.ctx.asker().map(str::to_owned),
            server: Some(super::server_of(&call.facts.tool).to_owned()),
            tool: call.facts.tool.clone(),
            effect: call.facts.effect,
            args: Value::Object(args.clone()),
            reason: decision.to_string(),
            preview: lease.preview(args),
            always_rule: always_rule.clone(),
            session_grant: format!("{offered} until switchboard exits"),
        };
        let id = request.id;
        let shown = request.clone();
        // Filed before anyone hears of it: an answer that comes back at once (a
        // person quick on `y`, a test, another front end) finds it waiting.
        let reply = self.broker.request(request);
        call.emit(move || GateEvent::ApprovalRequested(shown));
        let answer = tokio::select! {
            biased;
            () = call.ctx.cancel.cancelled() => ApprovalDecision::Abort,
            answer = reply => answer,
        };
        call.emit(|| GateEvent::ApprovalResolved {
            call_id: call.id.clone(),
            run_id: call.ctx.run_id.clone(),
            id,
            decision: answer.clone(),
        });
        let ruling = Ruling {
            by: DecidedBy::User,
            rule: decision.reason.to_string(),
            answer: Some(Answer::of(&answer)),
        };
        match answer {
            ApprovalDecision::Once => Gate::Run(ruling),
            ApprovalDecision::Session => {
                self.grants.add(offered);
                Gate::Run(ruling)
            }
            ApprovalDecision::Always => {
                self.remember_always(&call.facts, &always_rule);
                Gate::Run(ruling)
            }
            ApprovalDecision::Deny { reason } => {
                let message = match reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
                    Some(r) => format!(
                        "Denied by the user (asked because {decision}). The user's reason: {r}"
                    ),
                    None => format!("Denied by the user (asked because {decision})."),
                };
                Gate::Refuse(ruling, message)
            }
            ApprovalDecision::Abort => Gate::Abort(ruling),
        }
    }

    /// Counts the call against `[policy] max_calls` and the serve client's budget.
    fn consume_budgets(&self, name: &str, ctx: &ToolContext) -> Result<(), Spent> {
        self.budget.consume(name)?;
        match &ctx.remote {
            Some(client) => Ok(client.consume()?),
            None => Ok(()),
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
}

/// A result too large for a model is refused to the model, but a call the person made
/// themselves (the TUI's, `switchboard call`, `switchboard test`) gets it whole and ok:
/// the gate, the audit line, the card and the exit status all say so.
fn for_whom(result: ToolResult, origin: crate::policy::Origin) -> ToolResult {
    if matches!(
        origin,
        crate::policy::Origin::Manual | crate::policy::Origin::Cli
    ) {
        result.for_the_person()
    } else {
        result
    }
}
