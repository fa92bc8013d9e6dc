//! One inbox: every background source of the TUI feeds one unbounded channel of
//! `Msg`, which the event loop reads beside the terminal and the timer.
//!
//! Sources that speak `Msg` (the executor's background work) hold a sender; the
//! others get a forwarding task each: the session's events, log lines, the hub's
//! snapshots and notifications with the registry's tool names, servers' questions,
//! the serve gateway's gate events and clients, and the wire capture. A forwarder
//! keeps its source's order; it ends when its source ends, when the inbox is gone,
//! or when the `Inbox` is dropped (its tasks are aborted then), so none outlives the
//! TUI.
//!
//! The channel is unbounded: the executor sends into it from inside the loop (answers
//! of work it starts), where a bounded `send` could wait for the loop itself, and a
//! forwarder never stops reading its source (the hub's broadcast would lag and drop
//! notifications). What is queued is what the loop has not taken yet; every source
//! is paced by something outside (a person, a server, a model).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::{broadcast, watch};
use tokio::task::{AbortHandle, JoinSet};

use crate::gate::CallId;
use crate::logging::LogRecord;
use crate::mcp::wire::WireLog;
use crate::mcp::{HubSnapshot, McpEvent};
use crate::tools::Registry;

use super::msg::Msg;
use super::state::{LogLevel, LogLine};

/// How often the hub's forwarder compares the registry's tool names (the registry
/// follows the hub a moment after its snapshot changes).
const CATALOG_TICK: Duration = Duration::from_millis(500);

/// The inbox's sending side and its forwarding tasks.
pub struct Inbox {
    tx: UnboundedSender<Msg>,
    tasks: JoinSet<()>,
}

impl Inbox {
    /// An empty inbox and the end the event loop reads.
    pub fn new() -> (Self, UnboundedReceiver<Msg>) {
        let (tx, rx) = unbounded_channel();
        let tasks = JoinSet::new();
        (Self { tx, tasks }, rx)
    }

    /// A sender for what speaks `Msg` already (the executor's background work).
    pub fn sender(&self) -> UnboundedSender<Msg> {
        self.tx.clone()
    }

    fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = ()> + Send + 'static,
    {
        // Forget forwarders that ended (a replaced session's).
        while self.tasks.try_join_next().is_some() {}
        let tx = self.tx.clone();
        self.tasks.spawn(async move {
            tokio::select! {
                () = task => {}
                () = tx.closed() => {}
            }
        })
    }

    /// Forwards each item of `rx`, in order, as the message `to_msg` makes of it
    /// (none: dropped).
    pub fn forward<T, F>(&mut self, mut rx: UnboundedReceiver<T>, mut to_msg: F) -> AbortHandle
    where
        T: Send + 'static,
        F: FnMut(T) -> Option<Msg> + Send + 'static,
    {
        let tx = self.tx.clone();
        self.spawn(async move {
            while let Some(item) = rx.recv().await {
                if let Some(msg) = to_msg(item)
                    && tx.send(msg).is_err()
                {
                    return;
                }
            }
        })
    }

    /// Log lines for the Logs pane.
    pub fn forward_logs(&mut self, rx: UnboundedReceiver<LogRecord>) -> AbortHandle {
        self.forward(rx, |record| Some(Msg::Log(log_line(record))))
    }

    /// A session's events (the gate's included), one route: `Msg::Agent`.
    pub fn forward_session(
        &mut self,
        rx: UnboundedReceiver<crate::agent::AgentEvent>,
    ) -> AbortHandle {
        self.forward(rx, |event| Some(Msg::Agent(Box::new(event))))
    }

    /// The hub's notifications (`mcp_msg`); a receiver that lagged goes on with what
    /// is still there.
    pub fn forward_mcp(&mut self, mut rx: broadcast::Receiver<McpEvent>) -> AbortHandle {
        let tx = self.tx.clone();
        self.spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(event) => {
                        if let Some(msg) = mcp_msg(event)
                            && tx.send(msg).is_err()
                        {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        })
    }

    /// `Msg::HubChanged` when the hub's snapshot changes, and when the registry's
    /// tool names change (checked every `CATALOG_TICK`, first at once).
    pub fn forward_hub(
        &mut self,
        mut snapshots: watch::Receiver<Arc<HubSnapshot>>,
        registry: Arc<Registry>,
    ) -> AbortHandle {
        let tx = self.tx.clone();
        self.spawn(async move {
            let mut tick = tokio::time::interval(CATALOG_TICK);
            let mut known: Vec<String> = Vec::new();
            loop {
                tokio::select! {
                    changed = snapshots.changed() => {
                        if changed.is_err() {
                            return;
                        }
                    }
                    _ = tick.tick() => {
                        let names = registry.names();
                        if names == known {
                            continue;
                        }
                        known = names;
                    }
                }
                if tx.send(Msg::HubChanged).is_err() {
                    return;
                }
            }
        })
    }

    /// The message `to_msg` makes of each new value of `rx` (not of the first).
    pub fn forward_watch<T, F>(&mut self, mut rx: watch::Receiver<T>, to_msg: F) -> AbortHandle
    where
        T: Send + Sync + 'static,
        F: Fn(&T) -> Msg + Send + 'static,
    {
        let tx = self.tx.clone();
        self.spawn(async move {
            while rx.changed().await.is_ok() {
                let msg = to_msg(&rx.borrow_and_update());
                if tx.send(msg).is_err() {
                    return;
                }
            }
        })
    }

    /// What the wire capture records, as `Msg::Wire` with only what is new: what is
    /// there now, then after each change what came since the last message.
    pub fn forward_wire(&mut self, log: Arc<WireLog>) -> AbortHandle {
        let tx = self.tx.clone();
        self.spawn(async move {
            let mut changes = log.subscribe();
            let mut last_seq = 0;
            loop {
                let entries = log.entries_after(last_seq);
                if let Some(last) = entries.last() {
                    last_seq = last.seq;
                    if tx.send(Msg::Wire(entries)).is_err() {
                        return;
                    }
                }
                if changes.changed().await.is_err() {
                    return;
                }
            }
        })
    }
}

/// A log record as a Logs pane line.
pub fn log_line(record: LogRecord) -> LogLine {
    let level = match record.level {
        tracing::Level::ERROR => LogLevel::Error,
        tracing::Level::WARN => LogLevel::Warn,
        tracing::Level::INFO => LogLevel::Info,
        tracing::Level::DEBUG => LogLevel::Debug,
        tracing::Level::TRACE => LogLevel::Trace,
    };
    LogLine {
        level,
        target: record.target,
        message: record.message,
    }
}

/// MCP notifications as UI messages: server logs and stderr into the Logs pane,
/// progress into the status bar, tasks and subscriptions to their views.
pub fn mcp_msg(event: McpEvent) -> Option<Msg> {
    match event {
        McpEvent::Log {
            server,
            level,
            message,
            ..
        } => Some(Msg::Log(LogLine {
            level: match level.as_str() {
                "emergency" | "alert" | "critical" | "error" => LogLevel::Error,
                "warning" => LogLevel::Warn,
                "debug" => LogLevel::Debug,
                _ => LogLevel::Info,
            },
            target: format!("mcp:{server}"),
            message,
        })),
        McpEvent::Stderr { server, line } => Some(Msg::Log(LogLine {
            level: LogLevel::Debug,
            target: format!("stderr:{server}"),
            message: line,
        })),
        McpEvent::Progress {
            server,
            step_id,
            progress,
            total,
            message,
            ..
        } => Some(Msg::Progress {
            server,
            call_id: step_id.map(CallId),
            progress,
            total,
            message,
        }),
        McpEvent::Task { tool, view } => Some(Msg::TaskSeen { tool, view }),
        McpEvent::ResourceUpdated { server, uri } => Some(Msg::ResourceUpdated { server, uri }),
        McpEvent::SubscriptionLost {
            server,
            uri,
            reason,
        } => Some(Msg::SubscriptionLost {
            server,
            uri,
            reason,
        }),
        McpEvent::PagesRequired {
            server,
            request,
            pages,
        } => Some(Msg::PagesRequired {
            server,
            request,
            pages,
        }),
        McpEvent::CatalogChanged { .. } | McpEvent::Asked { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const WAIT: Duration = Duration::from_secs(10);

    #[tokio::test]
    async fn a_forwarder_keeps_its_sources_order() {
        let (mut inbox, mut rx) = Inbox::new();
        let (tx, source) = unbounded_channel();
        inbox.forward(source, |n| (n % 2 == 0).then_some(Msg::Tick(n)));
        for n in 0..100 {
            tx.send(n).unwrap();
        }
        for n in (0..100).step_by(2) {
            let msg = tokio::time::timeout(WAIT, rx.recv()).await.unwrap();
            assert_eq!(msg, Some(Msg::Tick(n)));
        }
    }

    #[tokio::test]
    async fn forwarders_stop_with_the_inbox() {
        let (mut inbox, _rx) = Inbox::new();
        let (tx, source) = unbounded_channel::<u64>();
        inbox.forward(source, |n| Some(Msg::Tick(n)));
        drop(inbox);
        // The forwarder was aborted: its source's receiver is gone.
        tokio::time::timeout(WAIT, tx.closed()).await.unwrap();
    }

    #[tokio::test]
    async fn forwarders_stop_when_nobody_reads_the_inbox() {
        let (mut inbox, rx) = Inbox::new();
        let (tx, source) = unbounded_channel::<u64>();
        inbox.forward(source, |n| Some(Msg::Tick(n)));
        let (_snapshots_tx, snapshots) = watch::channel(Arc::new(HubSnapshot::default()));
        let registry = Arc::new(Registry::new(
            crate::policy::Policy::new(crate::policy::Mode::Ask),
            Arc::new(crate::gate::ApprovalBroker::new(false)),
        ));
        inbox.forward_hub(snapshots, registry);
        drop(rx);
        tokio::time::timeout(WAIT, tx.closed()).await.unwrap();
        let ended = tokio::time::timeout(WAIT, async {
            while inbox.tasks.join_next().await.is_some() {}
        });
        ended.await.unwrap();
    }
}
