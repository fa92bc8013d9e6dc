//! Step mode: before each model request and each tool run the turn pauses, describes
//! what comes next, and waits for `Op::StepNext` or `Op::StepContinue`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

use super::cancel::Cancel;

/// What the turn will do when it goes on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "before", rename_all = "snake_case")]
pub enum StepPause {
    /// Before model request number `step`.
    ModelRequest {
        step: u32,
        /// Messages sent, the system prompt included.
        messages: usize,
        /// Names of the tools offered.
        tools: Vec<String>,
        /// The last message, shortened.
        last_message: String,
    },
    /// Before a tool call goes to the gate (reads too).
    ToolCall {
        tool_call_id: String,
        tool: String,
        args: Value,
    },
}

/// A step signal from the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepSignal {
    /// Go on to the next pause.
    Next,
    /// Finish this turn without pausing; step mode stays on for later turns.
    Continue,
}

/// The step switch (shared with the op dispatcher) and the signals the turn waits on.
#[derive(Debug)]
pub struct StepControl {
    on: Arc<AtomicBool>,
    signals: mpsc::UnboundedReceiver<StepSignal>,
    /// `Continue` was signalled during this turn.
    running_free: bool,
}

/// The dispatcher's side of step mode.
#[derive(Debug, Clone)]
pub struct StepSwitch {
    on: Arc<AtomicBool>,
    signals: mpsc::UnboundedSender<StepSignal>,
}

/// A new step control, on or off.
pub fn step_channel(on: bool) -> (StepSwitch, StepControl) {
    let on = Arc::new(AtomicBool::new(on));
    let (tx, rx) = mpsc::unbounded_channel();
    (
        StepSwitch {
            on: Arc::clone(&on),
            signals: tx,
        },
        StepControl {
            on,
            signals: rx,
            running_free: false,
        },
    )
}

impl StepSwitch {
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::SeqCst)
    }

    /// Turns step mode on or off; turning it off releases a waiting pause.
    pub fn set(&self, on: bool) {
        self.on.store(on, Ordering::SeqCst);
        if !on {
            let _ = self.signals.send(StepSignal::Next);
        }
    }

    /// Releases the current pause (ignored when none is waiting).
    pub fn next(&self) {
        let _ = self.signals.send(StepSignal::Next);
    }

    /// Releases the current pause and lets the rest of this turn run unpaused.
    pub fn continue_turn(&self) {
        let _ = self.signals.send(StepSignal::Continue);
    }
}

/// The turn was cancelled while paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PauseCancelled;

impl StepControl {
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::SeqCst)
    }

    /// The next [`StepControl::pause`] would wait (step mode is on and this turn
    /// was not let run free).
    pub fn would_pause(&self) -> bool {
        self.is_on() && !self.running_free
    }

    /// A new turn pauses again (after a `Continue` in the last one).
    pub fn begin_turn(&mut self) {
        self.running_free = false;
    }

    /// When step mode is on: calls `announce`, then waits for a signal (or cancel).
    pub async fn pause(
        &mut self,
        cancel: &Cancel,
        announce: impl FnOnce(),
    ) -> Result<(), PauseCancelled> {
        if !self.would_pause() {
            return Ok(());
        }
        while self.signals.try_recv().is_ok() {} // stale presses do not count
        announce();
        tokio::select! {
            signal = self.signals.recv() => {
                self.running_free = signal == Some(StepSignal::Continue);
                Ok(())
            }
            () = cancel.cancelled() => Err(PauseCancelled),
        }
    }
}
