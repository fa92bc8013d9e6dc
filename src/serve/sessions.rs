//! rmcp's in-memory session manager for `serve --http`, handing out each session's
//! transport as a [`DynTransport`]: rmcp runs its server loop over the session
//! manager's transport type, and with `serve --stdio` on the same erased type the
//! loop (and the `initialize` handshake) is compiled into the binary once, not twice.

use futures::Stream;
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

use crate::mcp::DynTransport;

/// [`LocalSessionManager`], everything passed through but the transport's type.
#[derive(Default)]
pub struct Sessions(LocalSessionManager);

type Outcome<T> = Result<T, LocalSessionManagerError>;

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = DynTransport<RoleServer>;

    async fn create_session(&self) -> Outcome<(SessionId, Self::Transport)> {
        let (id, transport) = self.0.create_session().await?;
        Ok((id, DynTransport::new(transport)))
    }

    fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Outcome<ServerJsonRpcMessage>> + Send {
        self.0.initialize_session(id, message)
    }

    fn has_session(&self, id: &SessionId) -> impl Future<Output = Outcome<bool>> + Send {
        self.0.has_session(id)
    }

    fn close_session(&self, id: &SessionId) -> impl Future<Output = Outcome<()>> + Send {
        self.0.close_session(id)
    }

    fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Outcome<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static>> + Send
    {
        self.0.create_stream(id, message)
    }

    fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Outcome<()>> + Send {
        self.0.accept_message(id, message)
    }

    fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Outcome<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static>> + Send
    {
        self.0.create_standalone_stream(id)
    }

    fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> impl Future<Output = Outcome<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static>> + Send
    {
        self.0.resume(id, last_event_id)
    }

    async fn restore_session(&self, id: SessionId) -> Outcome<RestoreOutcome<Self::Transport>> {
        Ok(match self.0.restore_session(id).await? {
            RestoreOutcome::Restored(transport) => {
                RestoreOutcome::Restored(DynTransport::new(transport))
            }
            RestoreOutcome::AlreadyPresent => RestoreOutcome::AlreadyPresent,
            _ => RestoreOutcome::NotSupported,
        })
    }

    fn event_store(&self) -> Option<std::sync::Arc<dyn EventStore>> {
        self.0.event_store()
    }
}
