//! The HTTP client of a Streamable HTTP connection, built here rather than by rmcp's
//! `from_config` (which panics when a client cannot be built, e.g. with an empty trust
//! store): the same settings — no idle pooling, and only same-origin 307/308
//! redirects, which keep the method and body (RFC 9110 §15.4.8, §15.4.9) and do not
//! replay the session id or headers to another host.

use std::sync::Arc;

use reqwest::redirect::{Attempt, Policy};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::AuthClient;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpResponseLimits,
};

use super::refusal_tap::{self, Headers};

/// rmcp's OAuth manager for the server at `url`. rmcp builds its own reqwest clients
/// for discovery and tokens (they filter the addresses discovered metadata may name),
/// so the process's TLS provider is installed first: a client built without one panics.
pub async fn authorization_manager(
    url: &str,
) -> Result<rmcp::transport::AuthorizationManager, rmcp::transport::AuthError> {
    crate::tls::install_crypto_provider();
    rmcp::transport::AuthorizationManager::new(url).await
}

/// Redirect hops followed at most for one request.
const MAX_REDIRECTS: usize = 10;

/// A client for `StreamableHttpClientTransport::with_client`.
pub fn streamable_http_client() -> Result<reqwest::Client, ClientBuildError> {
    crate::tls::client_builder()
        .pool_max_idle_per_host(0)
        .redirect(Policy::custom(same_origin))
        .build()
        .map_err(|e| ClientBuildError(crate::tls::error_chain(&e)))
}

/// The HTTP client could not be built (the TLS setup, say); holds the error's chain.
#[derive(Debug, thiserror::Error)]
#[error("http client: {0}")]
pub struct ClientBuildError(String);

fn same_origin(attempt: Attempt<'_>) -> reqwest::redirect::Action {
    let keeps_body = matches!(
        attempt.status(),
        reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
    );
    let same_origin = attempt
        .previous()
        .first()
        .is_some_and(|first| first.origin() == attempt.url().origin());
    if !keeps_body || !same_origin {
        attempt.stop()
    } else if attempt.previous().len() > MAX_REDIRECTS {
        attempt.error(format!("exceeded {MAX_REDIRECTS} redirects"))
    } else {
        attempt.follow()
    }
}

/// The HTTP client under a Streamable HTTP connection: plain (a static token, or
/// none) or rmcp's OAuth client. One type, so rmcp's transport worker, generic over
/// its client, is compiled into the binary once rather than once per kind.
#[derive(Clone)]
pub enum Backend {
    Plain(reqwest::Client),
    OAuth(AuthClient<reqwest::Client>),
}

/// The same call on whichever client the backend holds.
macro_rules! either {
    ($backend:expr, |$c:ident| $call:expr) => {
        match $backend {
            Backend::Plain($c) => $call.await,
            Backend::OAuth($c) => $call.await,
        }
    };
}

type Posted = refusal_tap::Posted<reqwest::Error>;
type Streamed = refusal_tap::Streamed<reqwest::Error>;

impl StreamableHttpClient for Backend {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Posted {
        either!(self, |c| c.post_message(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers
        ))
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max: usize,
    ) -> Posted {
        either!(self, |c| c.post_message_with_max_sse_event_size(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            max
        ))
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Posted {
        either!(self, |c| c.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits
        ))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), StreamableHttpError<reqwest::Error>> {
        either!(self, |c| c.delete_session(
            uri,
            session_id,
            auth_header,
            custom_headers
        ))
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Streamed {
        either!(self, |c| c.get_stream(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers
        ))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max: usize,
    ) -> Streamed {
        either!(self, |c| c.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max
        ))
    }
}
