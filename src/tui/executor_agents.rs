//! The executor's coordinator: `/agents a,b --mode M TASK` runs the agents in the
//! background as one call the person made. Its card is a request card; each step's
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

use super::executor::{Executor, close};

impl Executor {
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
