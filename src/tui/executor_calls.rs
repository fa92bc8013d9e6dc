//! The executor's calls on the person's behalf: `/call` (and forms) through the
//! gate, and the coordinator. `/agents a,b --mode M TASK` runs the agents in the
//! background as one call the person made: its card is a request card; each step's
//! `agent__NAME` call (id `CALL/run/step-N`) and the agents' own calls nest under it,
//! approvals go to the pane, and Esc on the card cancels the run.

use std::sync::Arc;
use std::time::Instant;

use crate::agent::AgentEvent;
use crate::agent::sink::SinkObserver;
use crate::agents::{Plan, coordinate, outcomes_text};
use crate::gate::{CallEnd, CallId};
use crate::policy::Origin;
use crate::tools::ToolContext;

use serde_json::Value;

use super::executor::{Executor, close};
use super::msg::Msg;
use super::state::LastContents;

impl Executor {
    /// A call on the person's behalf: recorded as requested, then through the gate
    /// (whose events go to the same recorder), then its whole result.
    pub(super) fn call_tool(
        &self,
        call_id: CallId,
        tool: String,
        args: serde_json::Map<String, Value>,
    ) {
        let run_id = call_id.0.clone();
        self.recorder.emit(AgentEvent::ToolCallRequested {
            run_id: run_id.clone(),
            call_id: call_id.clone(),
            tool: tool.clone(),
            args: Value::Object(args.clone()),
            origin: Origin::Manual,
        });
        let token = self.open(&call_id);
        let ctx = ToolContext::new(run_id.clone(), Origin::Manual)
            .with_call_id(call_id.clone())
            .with_cancel(token)
            .with_observer(Arc::new(SinkObserver(self.recorder.clone())));
        let registry = Arc::clone(&self.registry);
        let (inbox, recorder, open) = (
            self.inbox.clone(),
            self.recorder.clone(),
            Arc::clone(&self.open_calls),
        );
        tokio::spawn(async move {
            let outcome = registry.invoke(&tool, args, &ctx).await;
            let end = outcome.end();
            let result = outcome.into_result();
            let text = super::result_view::describe_result(&result);
            // `/save` keeps what the tool returned, even what was too large to show.
            let _ = inbox.send(Msg::Contents(Box::new(LastContents {
                source: tool.clone(),
                blocks: result.oversized.unwrap_or(result.content),
            })));
            close(&open, &call_id);
            recorder.emit(AgentEvent::ToolResult {
                run_id,
                call_id,
                tool,
                is_error: result.is_error,
                content: text,
                truncated: false,
                outcome: Some(end),
            });
        });
    }

    pub(super) fn run_agents(&self, call_id: CallId, plan: Plan, task: String) {
        let run_id = call_id.0.clone();
        self.recorder.emit(AgentEvent::RequestStarted {
            run_id: run_id.clone(),
            call_id: call_id.clone(),
            label: format!(
                "run agents {} · {}",
                plan.agents.join(", "),
                plan.mode.as_str()
            ),
        });
        let token = self.open(&call_id);
        // Steps are `CALL/run/step-N`: nested under this card as calls of "run".
        let base = ToolContext::new(run_id.clone(), Origin::Manual)
            .with_call_id(CallId(format!("{}/run", call_id.0)))
            .with_cancel(token)
            .with_observer(Arc::new(SinkObserver(self.recorder.clone())));
        let registry = Arc::clone(&self.registry);
        let (recorder, open) = (self.recorder.clone(), Arc::clone(&self.open_calls));
        tokio::spawn(async move {
            let started = Instant::now();
            let outcomes = coordinate(&registry, &plan, &task, &base, &|_| {}).await;
            close(&open, &call_id);
            let failed = outcomes.iter().any(|o| o.error.is_some());
            recorder.emit(AgentEvent::RequestFinished {
                run_id,
                call_id,
                outcome: if failed { CallEnd::Error } else { CallEnd::Ok },
                text: outcomes_text(&outcomes),
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            });
        });
    }
}
