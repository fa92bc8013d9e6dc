//! The `Provider` trait and the stream it returns.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::event::LlmEvent;
use super::message::ChatRequest;

/// The events of one model request. Dropping it cancels the request.
pub type LlmStream = Pin<Box<dyn Stream<Item = LlmEvent> + Send>>;

/// An LLM provider: one streaming request per call.
pub trait Provider: Send + Sync {
    /// The provider kind (`openai`, `anthropic`, `gemini`, `cohere`, `bedrock`,
    /// `scripted`).
    fn kind(&self) -> &'static str;

    /// The model requests go to (when the request does not name one).
    fn model(&self) -> &str;

    /// Starts the request. Nothing happens until the stream is polled or, for HTTP
    /// providers, until the runtime schedules the request task; dropping the stream
    /// aborts it.
    fn stream(&self, request: ChatRequest) -> LlmStream;
}

/// A stream fed by a task; dropping the stream aborts the task (and the HTTP request
/// the task owns).
pub struct TaskStream {
    events: mpsc::Receiver<LlmEvent>,
    task: JoinHandle<()>,
}

impl TaskStream {
    /// Runs `produce` on the current tokio runtime with a sender for the events.
    pub fn spawn<F, Fut>(produce: F) -> LlmStream
    where
        F: FnOnce(mpsc::Sender<LlmEvent>) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (tx, events) = mpsc::channel(64);
        let task = tokio::spawn(produce(tx));
        Box::pin(Self { events, task })
    }
}

impl Stream for TaskStream {
    type Item = LlmEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<LlmEvent>> {
        self.events.poll_recv(cx)
    }
}

impl Drop for TaskStream {
    fn drop(&mut self) {
        self.task.abort();
    }
}
