//! The HTTP client of a Streamable HTTP connection, built here rather than by rmcp's
//! `from_config` (which panics when a client cannot be built, e.g. with an empty trust
//! store): the same settings — no idle pooling, and only same-origin 307/308
//! redirects, which keep the method and body (RFC 9110 §15.4.8, §15.4.9) and do not
//! replay the session id or headers to another host.

use reqwest::redirect::{Attempt, Policy};

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
