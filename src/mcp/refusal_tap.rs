//! A Streamable HTTP client in front of the real one that sees every `tools/list`
//! answer before rmcp's transport worker does: rmcp drops tools with invalid
//! `x-mcp-header` annotations there (see `param_headers`), and this records which and
//! why, so the catalog can show them as refused instead of losing them silently.
//! Each event's raw data also goes to [`TaskSupport`] (2025-11-25 task facts rmcp
//! drops). Everything else passes through unchanged, limits included (the inner client
//! enforces them). With a [`WirePeer`] it also feeds the wire capture: each POSTed
//! message with its headers, each answer with its status.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage, ServerResult};
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::param_headers::Refusals;
use super::task_support::TaskSupport;
use super::wire_tap::WirePeer;

#[derive(Clone)]
pub struct RefusalTap<C> {
    inner: C,
    refusals: Refusals,
    tasks: TaskSupport,
    wire: Option<WirePeer>,
}

impl<C> RefusalTap<C> {
    pub fn new(inner: C, refusals: Refusals, tasks: TaskSupport, wire: Option<WirePeer>) -> Self {
        Self {
            inner,
            refusals,
            tasks,
            wire,
        }
    }

    fn posting(
        &self,
        message: &ClientJsonRpcMessage,
        session_id: Option<&Arc<str>>,
        auth_header: Option<&String>,
        custom_headers: &Headers,
    ) {
        if let Some(wire) = &self.wire {
            let session = session_id.map(AsRef::as_ref);
            wire.posted(
                message,
                session,
                auth_header.map(String::as_str),
                custom_headers,
            );
        }
    }

    /// A POST HTTP refused: its status in the capture (the error's text may hold a
    /// URL, so only a fixed description goes with it).
    fn failed<E: std::error::Error + Send + Sync + 'static>(&self, error: &StreamableHttpError<E>) {
        let Some(wire) = &self.wire else {
            return;
        };
        let (status, what) = match error {
            StreamableHttpError::AuthRequired(_) => (401, "authorization required"),
            StreamableHttpError::InsufficientScope(_) => (403, "insufficient scope"),
            StreamableHttpError::SessionExpired => (404, "session expired"),
            StreamableHttpError::HttpStatus(e) => (e.status, "refused"),
            _ => return,
        };
        wire.refused(status, what);
    }

    fn seen(&self, response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
        match response {
            StreamableHttpPostResponse::Json(message, session) => {
                if let Some(wire) = &self.wire {
                    wire.answered(&message, session.as_deref());
                }
                if let ServerJsonRpcMessage::Response(r) = &message
                    && let ServerResult::ListToolsResult(list) = &r.result
                    && let Ok(wire) = serde_json::to_value(list)
                {
                    self.refusals.record(&serde_json::json!({"result": wire}));
                }
                StreamableHttpPostResponse::Json(message, session)
            }
            StreamableHttpPostResponse::Sse(stream, session) => {
                StreamableHttpPostResponse::Sse(self.tap(stream), session)
            }
            other => other,
        }
    }

    fn tap(&self, stream: BoxedSseResponse) -> BoxedSseResponse {
        let refusals = self.refusals.clone();
        let tasks = self.tasks.clone();
        let wire = self.wire.clone();
        stream
            .inspect(move |event| {
                if let Ok(event) = event
                    && let Some(data) = event.data.as_deref()
                {
                    refusals.record_text(data);
                    tasks.inspect(data.as_bytes());
                    if let Some(wire) = &wire
                        && !data.trim().is_empty()
                    {
                        wire.streamed(data);
                    }
                }
            })
            .boxed()
    }
}

/// The shapes of `StreamableHttpClient`'s methods, for the clients that wrap or
/// choose one (`http_client.rs`).
pub(super) type Headers = HashMap<HeaderName, HeaderValue>;
pub(super) type Posted<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;
pub(super) type Streamed<E> = Result<BoxedSseResponse, StreamableHttpError<E>>;

impl<C> StreamableHttpClient for RefusalTap<C>
where
    C: StreamableHttpClient + Send + Sync,
{
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Posted<C::Error> {
        self.posting(
            &message,
            session_id.as_ref(),
            auth_header.as_ref(),
            &custom_headers,
        );
        let response = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await
            .inspect_err(|e| self.failed(e))?;
        Ok(self.seen(response))
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Posted<C::Error> {
        self.posting(
            &message,
            session_id.as_ref(),
            auth_header.as_ref(),
            &custom_headers,
        );
        let response = self
            .inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
            .inspect_err(|e| self.failed(e))?;
        Ok(self.seen(response))
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Posted<C::Error> {
        self.posting(
            &message,
            session_id.as_ref(),
            auth_header.as_ref(),
            &custom_headers,
        );
        let response = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await
            .inspect_err(|e| self.failed(e))?;
        Ok(self.seen(response))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), StreamableHttpError<C::Error>> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Streamed<C::Error> {
        let stream = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await?;
        Ok(self.tap(stream))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Streamed<C::Error> {
        let stream = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await?;
        Ok(self.tap(stream))
    }
}
