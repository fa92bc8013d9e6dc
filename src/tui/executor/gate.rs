//! The executor's side of the tool gate's own state: the permission mode, the
//! answers to approvals (through the `ApprovalBroker`) and the session grants.

use super::super::msg::{GateCmd, Msg};
use super::super::state::GrantView;
use super::Executor;

impl Executor {
    pub(super) fn execute_gate(&mut self, cmd: GateCmd) -> Option<Msg> {
        match cmd {
            GateCmd::SetMode(mode) => {
                self.registry.set_mode(mode);
                None
            }
            GateCmd::Decide { id, decision } => {
                if !self.registry.broker().decide(id, decision) {
                    tracing::warn!("approval {id} was no longer pending");
                }
                None
            }
            GateCmd::RevokeGrant(id) => {
                self.registry.grants().revoke(id);
                Some(self.grants())
            }
            GateCmd::RefreshGrants => Some(self.grants()),
        }
    }

    pub fn grants(&self) -> Msg {
        Msg::Grants(
            self.registry
                .grants()
                .list()
                .into_iter()
                .map(|g| GrantView {
                    id: g.id,
                    text: g.scope.to_string(),
                })
                .collect(),
        )
    }
}
