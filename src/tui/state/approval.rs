//! The approval queue's data: the requests waiting for the person.

use crate::gate::ApprovalRequest;

/// Where the person is in answering the front request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalStage {
    Choose,
    /// `confirm_delete = "double"`: the first `y` on a Delete arms this.
    ConfirmDelete,
    /// `a` shows the rule that would be written; `a` again writes it.
    ConfirmAlways,
    /// `N`: typing the reason the model will read.
    Reason(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct PendingApproval {
    pub request: ApprovalRequest,
    /// Lines scrolled in the preview and arguments.
    pub scroll: u16,
    pub stage: ApprovalStage,
}

impl PendingApproval {
    pub fn new(request: ApprovalRequest) -> Self {
        Self {
            request,
            scroll: 0,
            stage: ApprovalStage::Choose,
        }
    }
}
