//! The executor's session side: ops to the agent session, `/model`'s switch to
//! another provider or model, and the saved sessions (the resume picker, resuming).

use crate::agent::AgentEvent;

use super::super::msg::{Msg, SessionCmd};
use super::Executor;

impl Executor {
    pub(super) fn execute_session(&mut self, cmd: SessionCmd) -> Option<Msg> {
        match cmd {
            SessionCmd::Op(op) => self.send_op(op),
            SessionCmd::SwitchProvider { provider, model } => self.switch_provider(provider, model),
            SessionCmd::OpenSessions => {
                super::super::sessions::open(&mut self.state);
                Some(self.list_sessions())
            }
            SessionCmd::ListSessions => Some(self.list_sessions()),
            SessionCmd::Resume(id) => Some(self.resume(&id)),
        }
    }

    fn send_op(&self, op: crate::agent::Op) -> Option<Msg> {
        let sent = self
            .session_ops
            .as_ref()
            .is_some_and(|ops| ops.send(op).is_ok());
        (!sent).then(|| Msg::Failed("the agent session has stopped; restart switchboard".into()))
    }

    fn switch_provider(&mut self, provider: Option<String>, model: Option<String>) -> Option<Msg> {
        let recipe = self.recipe.as_ref()?;
        let choice = crate::llm::ProviderChoice {
            name: provider,
            model,
        };
        let started = recipe.start(
            &choice,
            self.state.status.step_mode,
            self.state.session_id.as_deref(),
        );
        Some(match started {
            Ok((handle, _)) => {
                self.session_ops = Some(handle.ops.clone());
                self.recorder = handle.recorder.clone();
                self.new_session = Some(handle);
                Msg::Agent(Box::new(AgentEvent::Notice {
                    run_id: None,
                    message: "Switched; the conversation continues with the new model.".into(),
                }))
            }
            Err(e) => Msg::Failed(e.to_string()),
        })
    }

    fn list_sessions(&self) -> Msg {
        let rows = self.recipe.as_ref().map_or_else(Vec::new, |recipe| {
            let store = crate::agent::SessionStore::from_dirs(&recipe.dirs);
            store
                .list_in(&recipe.dirs.cwd)
                .unwrap_or_default()
                .into_iter()
                .map(|s| super::super::sessions::SessionRow {
                    id: s.id,
                    time: s.modified.map(crate::policy::rfc3339).unwrap_or_default(),
                    turns: s.turns,
                    title: s.title.unwrap_or_default(),
                })
                .collect()
        });
        Msg::SessionList(rows)
    }

    /// Starts the saved session `id` (same provider and model) in place of this one.
    fn resume(&mut self, id: &str) -> Msg {
        let Some(recipe) = &self.recipe else {
            return Msg::Failed("no session can be resumed here".into());
        };
        let choice = crate::llm::ProviderChoice {
            name: Some(self.state.status.provider.clone())
                .filter(|p| p != super::super::state::NO_PROVIDER),
            model: Some(self.state.status.model.clone()).filter(|m| !m.is_empty()),
        };
        match recipe.start(&choice, self.state.status.step_mode, Some(id)) {
            Ok((handle, Some(loaded))) => {
                self.session_ops = Some(handle.ops.clone());
                self.recorder = handle.recorder.clone();
                self.new_session = Some(handle);
                Msg::Resumed(Box::new(loaded))
            }
            Ok((_, None)) => Msg::Failed(format!("session {id} was not found")),
            Err(e) => Msg::Failed(e.to_string()),
        }
    }
}
