//! One transport type per role. rmcp's service loop is generic over its transport, so
//! each transport type compiles a whole copy of the loop (and of the handshake) into
//! the binary. [`DynTransport`] puts any transport behind one object-safe trait: the
//! loop is compiled once per role and handler, at the price of one boxed future per
//! message sent or read. Clients use it through [`Erased`] (stdio, legacy SSE,
//! Streamable HTTP with a static token or OAuth, and `mcp login`'s probe); the gateway
//! uses it for `serve --stdio` and for each Streamable HTTP session.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, ServiceRole, TxJsonRpcMessage};
use rmcp::transport::{DynamicTransportError, Transport};

use super::client::ProgressRoutes;

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`Transport`] with boxed futures, so it can be a trait object.
trait ObjectTransport<R: ServiceRole>: Send {
    fn send(
        &mut self,
        item: TxJsonRpcMessage<R>,
    ) -> Boxed<'static, Result<(), DynamicTransportError>>;
    fn receive(&mut self) -> Boxed<'_, Option<RxJsonRpcMessage<R>>>;
    fn close(&mut self) -> Boxed<'_, Result<(), DynamicTransportError>>;
}

impl<R: ServiceRole, T: Transport<R> + 'static> ObjectTransport<R> for T {
    fn send(
        &mut self,
        item: TxJsonRpcMessage<R>,
    ) -> Boxed<'static, Result<(), DynamicTransportError>> {
        let sent = Transport::send(self, item);
        Box::pin(async move { sent.await.map_err(DynamicTransportError::new::<T, R>) })
    }

    fn receive(&mut self) -> Boxed<'_, Option<RxJsonRpcMessage<R>>> {
        Box::pin(Transport::receive(self))
    }

    fn close(&mut self) -> Boxed<'_, Result<(), DynamicTransportError>> {
        Box::pin(async move {
            Transport::close(self)
                .await
                .map_err(DynamicTransportError::new::<T, R>)
        })
    }
}

/// Any transport of role `R`, as one type.
pub struct DynTransport<R: ServiceRole> {
    inner: Box<dyn ObjectTransport<R>>,
}

impl<R: ServiceRole> DynTransport<R> {
    pub fn new<T: Transport<R> + 'static>(transport: T) -> Self {
        Self {
            inner: Box::new(transport),
        }
    }
}

impl<R: ServiceRole> Transport<R> for DynTransport<R> {
    type Error = DynamicTransportError;

    fn name() -> Cow<'static, str> {
        "erased".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<R>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<R>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Any client transport, as one type. It counts the progress notifications it
/// receives on their tokens ([`ProgressRoutes::received`]), before rmcp hands each to
/// a task of its own, so that a request's answer can wait for the progress sent
/// ahead of it to be out ([`ProgressRoutes::settled`]).
pub struct Erased {
    inner: DynTransport<RoleClient>,
    routes: Arc<ProgressRoutes>,
}

impl Erased {
    pub fn new<T: Transport<RoleClient> + 'static>(
        transport: T,
        routes: Arc<ProgressRoutes>,
    ) -> Self {
        Self {
            inner: DynTransport::new(transport),
            routes,
        }
    }
}

impl Transport<RoleClient> for Erased {
    type Error = DynamicTransportError;

    fn name() -> Cow<'static, str> {
        "erased".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let Self { inner, routes } = self;
        let received = inner.inner.receive();
        async move {
            let message = received.await;
            if let Some(JsonRpcMessage::Notification(notification)) = &message
                && let ServerNotification::ProgressNotification(progress) =
                    &notification.notification
            {
                routes.received(&progress.params.progress_token);
            }
            message
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.inner.close()
    }
}
