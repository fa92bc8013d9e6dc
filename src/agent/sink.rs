//! Where a session's events go: the UI's channel and the session file. The gate's
//! events about the session's calls (and the TUI's manual calls) come in through
//! [`SinkObserver`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::event::AgentEvent;
use super::store::SessionWriter;

/// Sends events to the listener and appends them to the session file.
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: mpsc::UnboundedSender<AgentEvent>,
    writer: Option<Arc<Mutex<SessionWriter>>>,
    write_failed: Arc<AtomicBool>,
}

impl EventSink {
    pub fn new(tx: mpsc::UnboundedSender<AgentEvent>, writer: Option<SessionWriter>) -> Self {
        Self {
            tx,
            writer: writer.map(|w| Arc::new(Mutex::new(w))),
            write_failed: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Records and sends one event. A failing session file is reported once, as a
    /// `Notice`, and the session goes on.
    pub fn emit(&self, event: AgentEvent) {
        if let Some(writer) = &self.writer {
            let result = writer
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .append(&event);
            if let Err(e) = result
                && !self.write_failed.swap(true, Ordering::SeqCst)
            {
                tracing::warn!("session file: {e}");
                let _ = self.tx.send(AgentEvent::Notice {
                    run_id: None,
                    message: format!("the session is no longer saved: {e}"),
                });
            }
        }
        let _ = self.tx.send(event);
    }
}

/// Hands the gate's events about a caller's calls to a sink, wrapped as
/// `AgentEvent::Gate`: the one route they take to the UI and the session file.
#[derive(Debug, Clone)]
pub struct SinkObserver(pub EventSink);

/// Hands each gate event to a first observer (if any), then to a second.
pub struct Tee(
    pub Option<Arc<dyn crate::gate::GateObserver>>,
    pub Arc<dyn crate::gate::GateObserver>,
);

impl crate::gate::GateObserver for Tee {
    fn event(&self, event: crate::gate::GateEvent) {
        if let Some(first) = &self.0 {
            first.event(event.clone());
        }
        self.1.event(event);
    }
}

impl crate::gate::GateObserver for SinkObserver {
    fn event(&self, event: crate::gate::GateEvent) {
        self.0.emit(AgentEvent::Gate(event));
    }
}
