//! A turn's cancellation signal: set once, awaited by the turn's model stream, step
//! pauses and tool calls (the gate sees it as `ToolContext::cancel`).

use tokio_util::sync::CancellationToken;

/// Cloneable; every clone sees the same signal.
#[derive(Debug, Clone, Default)]
pub struct Cancel(CancellationToken);

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.cancel();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Resolves once `cancel` has been called.
    pub async fn cancelled(&self) {
        self.0.cancelled().await;
    }

    /// The token tool calls of this turn carry.
    pub fn token(&self) -> CancellationToken {
        self.0.clone()
    }
}
