//! Knowing when a stdio server's input is closed.
//!
//! rmcp closes the child's stdin only after its service loop has ended and in-flight
//! answers have drained (up to two seconds after cancelling). Until then the server
//! has not been asked to exit, so it may sit idle waiting for input; judging it idle
//! and sending SIGTERM would cut short a server that flushes its state on end of
//! input. [`InputClosed`] wraps the transport and says when its `close` begins, so
//! the shutdown sequence (MCP spec, basic/lifecycle, "Shutdown") starts its watch
//! from the moment the input really is closed.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::Notify;

/// A transport that signals when it starts closing.
pub struct InputClosed<T> {
    inner: T,
    closing: Arc<Notify>,
}

impl<T> InputClosed<T> {
    /// Wraps `inner`; `closing` is notified once `close` is called.
    pub fn new(inner: T, closing: Arc<Notify>) -> Self {
        Self { inner, closing }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for InputClosed<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        // A stored permit: the watcher may start waiting after this.
        self.closing.notify_one();
        self.inner.close()
    }
}
