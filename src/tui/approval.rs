//! The approval queue: requests waiting for the person, and the keys that answer them.

pub use super::state::{ApprovalStage, PendingApproval};
use crate::gate::{ApprovalDecision, ApprovalRequest};
use crate::keymap::{Action, Key, KeyCode};
use crate::tools::ToolEffect;

use super::msg::{Cmd, GateCmd, Handled, SessionCmd};
use super::state::State;

/// A request arrived: queue it (the pane takes the keys while anything waits).
pub fn push(state: &mut State, request: ApprovalRequest) {
    if state.approvals.iter().all(|p| p.request.id != request.id) {
        state.approvals.push_back(PendingApproval::new(request));
    }
}

/// A request was resolved elsewhere (cancelled turn, another front end).
pub fn remove(state: &mut State, id: crate::gate::ApprovalId) {
    state.approvals.retain(|p| p.request.id != id);
}

fn answer(state: &mut State, decision: ApprovalDecision) -> Vec<Cmd> {
    if decision == ApprovalDecision::Abort {
        return abort_all(state);
    }
    let Some(front) = state.approvals.pop_front() else {
        return Vec::new();
    };
    vec![
        GateCmd::Decide {
            id: front.request.id,
            decision,
        }
        .into(),
    ]
}

/// Abort: every waiting call aborts (each card says so when the gate reports it), and
/// the turn, if one runs, is interrupted.
fn abort_all(state: &mut State) -> Vec<Cmd> {
    let mut cmds: Vec<Cmd> = state
        .approvals
        .drain(..)
        .map(|p| {
            GateCmd::Decide {
                id: p.request.id,
                decision: ApprovalDecision::Abort,
            }
            .into()
        })
        .collect();
    if let Some(run_id) = state.turn.run.clone() {
        state.turn.step_pause = None;
        cmds.push(SessionCmd::Op(crate::agent::Op::Interrupt { run_id }).into());
    }
    cmds
}

/// Keys at the approval pane: answer the front request, or type a denial's reason.
pub fn key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    let double_delete = state.confirm_delete_double;
    let Some(front) = state.approvals.front_mut() else {
        return Handled::nothing();
    };
    // Typing a reason: keys are text, not commands.
    if let ApprovalStage::Reason(text) = &mut front.stage {
        match key.code {
            KeyCode::Enter => {
                let reason = text.trim().to_string();
                let reason = (!reason.is_empty()).then_some(reason);
                return answer(state, ApprovalDecision::Deny { reason }).into();
            }
            KeyCode::Esc => front.stage = ApprovalStage::Choose,
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) if !key.mods.ctrl && !key.mods.alt => text.push(c),
            _ if action == Some(Action::Interrupt) => {
                return Handled::Unhandled(Action::Interrupt);
            }
            _ => {}
        }
        return Handled::nothing();
    }
    let stage = front.stage.clone();
    let cmds = match (stage, action) {
        (ApprovalStage::ConfirmDelete, Some(Action::ApproveOnce)) => {
            answer(state, ApprovalDecision::Once)
        }
        (ApprovalStage::ConfirmAlways, Some(Action::ApproveAlways)) => {
            answer(state, ApprovalDecision::Always)
        }
        (ApprovalStage::ConfirmDelete | ApprovalStage::ConfirmAlways, Some(Action::AbortTurn))
        | (_, None) => {
            // Backing out of a confirmation (Esc, or any unbound key).
            front.stage = ApprovalStage::Choose;
            Vec::new()
        }
        (_, Some(Action::ApproveOnce)) => {
            if double_delete && front.request.effect == ToolEffect::Delete {
                front.stage = ApprovalStage::ConfirmDelete;
                Vec::new()
            } else {
                answer(state, ApprovalDecision::Once)
            }
        }
        (_, Some(Action::ApproveSession)) => answer(state, ApprovalDecision::Session),
        (_, Some(Action::ApproveAlways)) => {
            front.stage = ApprovalStage::ConfirmAlways;
            Vec::new()
        }
        (_, Some(Action::Deny)) => answer(state, ApprovalDecision::Deny { reason: None }),
        (_, Some(Action::DenyWithReason)) => {
            front.stage = ApprovalStage::Reason(String::new());
            Vec::new()
        }
        (_, Some(Action::AbortTurn)) => answer(state, ApprovalDecision::Abort),
        (_, Some(Action::Up)) => {
            front.scroll = front.scroll.saturating_sub(1);
            Vec::new()
        }
        (_, Some(Action::Down)) => {
            front.scroll = front.scroll.saturating_add(1);
            Vec::new()
        }
        (_, Some(Action::PageUp)) => {
            front.scroll = front.scroll.saturating_sub(10);
            Vec::new()
        }
        (_, Some(Action::PageDown)) => {
            front.scroll = front.scroll.saturating_add(10);
            Vec::new()
        }
        (_, Some(other)) => {
            // A confirmation is cancelled by anything else.
            front.stage = ApprovalStage::Choose;
            return Handled::Unhandled(other);
        }
    };
    cmds.into()
}
