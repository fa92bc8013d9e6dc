//! One transport type for every client connection. rmcp's client service is generic
//! over its transport, so each transport (stdio, legacy SSE, Streamable HTTP with a
//! static token, with OAuth) compiled a whole copy of its message loop into the
//! binary. [`Erased`] puts each behind one object-safe trait: the loop is compiled
//! once, for `Erased`, at the price of one boxed future per message sent or read.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::{DynamicTransportError, Transport};

use super::client::ProgressRoutes;

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`Transport`] with boxed futures, so it can be a trait object.
trait ObjectTransport: Send {
    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> Boxed<'static, Result<(), DynamicTransportError>>;
    fn receive(&mut self) -> Boxed<'_, Option<RxJsonRpcMessage<RoleClient>>>;
    fn close(&mut self) -> Boxed<'_, Result<(), DynamicTransportError>>;
}

impl<T: Transport<RoleClient> + 'static> ObjectTransport for T {
    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> Boxed<'static, Result<(), DynamicTransportError>> {
        let sent = Transport::send(self, item);
        Box::pin(async move {
            sent.await
                .map_err(DynamicTransportError::new::<T, RoleClient>)
        })
    }

    fn receive(&mut self) -> Boxed<'_, Option<RxJsonRpcMessage<RoleClient>>> {
        Box::pin(Transport::receive(self))
    }

    fn close(&mut self) -> Boxed<'_, Result<(), DynamicTransportError>> {
        Box::pin(async move {
            Transport::close(self)
                .await
                .map_err(DynamicTransportError::new::<T, RoleClient>)
        })
    }
}

/// Any client transport, as one type. It counts the progress notifications it
/// receives on their tokens ([`ProgressRoutes::received`]), before rmcp hands each to
/// a task of its own, so that a request's answer can wait for the progress sent
/// ahead of it to be out ([`ProgressRoutes::settled`]).
pub struct Erased {
    inner: Box<dyn ObjectTransport>,
    routes: Arc<ProgressRoutes>,
}

impl Erased {
    pub fn new<T: Transport<RoleClient> + 'static>(
        transport: T,
        routes: Arc<ProgressRoutes>,
    ) -> Self {
        Self {
            inner: Box::new(transport),
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
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let Self { inner, routes } = self;
        let received = inner.receive();
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
        self.inner.close()
    }
}
