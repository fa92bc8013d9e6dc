//! OAuth 2.1 for remote MCP servers (the MCP authorization spec,
//! <https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization>).
//!
//! Every Streamable HTTP server without a static token is reached through rmcp's
//! `AuthClient`: requests carry the stored access token when there is one, rmcp
//! refreshes it before expiry and once on a 401, and a 401/403 challenge that a
//! refresh cannot answer surfaces as [`crate::mcp::McpError::NeedsLogin`]. A login
//! ([`login`]) runs the authorization-code flow with a loopback redirect and stores
//! the tokens ([`store`]); the next connection picks them up.

pub mod browser;
mod discovery_report;
pub mod listener;
pub mod login;
pub mod status;
pub mod store;

#[cfg(test)]
mod discovery_tests;

use rmcp::transport::AuthClient;
use rmcp::transport::auth::OAuthClientConfig;

pub use login::{LoginPrompt, LoginTarget, OAuthError, login};
pub use status::{LoginSummary, stored_login};
pub use store::{FileCredentialStore, StoreError};

use crate::config::OAuthClientSettings;

/// The HTTP client of a server that may ask for OAuth: the stored tokens, if any,
/// ready to be sent and refreshed. A store that cannot be used (metadata gone, a
/// new authorization server) leaves the client without tokens, so the server's
/// 401 leads to a new login; the reason is logged. `http` carries the requests
/// (built by [`crate::mcp::http_client`]).
pub async fn authorized_client(
    server: &str,
    url: &str,
    settings: &OAuthClientSettings,
    http: reqwest::Client,
) -> Result<AuthClient<reqwest::Client>, OAuthError> {
    let store = FileCredentialStore::for_server(url);
    let has_tokens = matches!(store.read(), Ok(Some(ref s)) if s.token_response.is_some());
    let target = LoginTarget {
        server: server.to_owned(),
        url: url.to_owned(),
        settings: settings.clone(),
        ..LoginTarget::default()
    };
    let mut manager = if has_tokens {
        match login::prepared_manager(&target, store.clone()).await {
            Ok(manager) => manager,
            Err(e) => {
                tracing::warn!(server, "{e}; connecting without the stored tokens");
                bare_manager(url, store).await?
            }
        }
    } else {
        bare_manager(url, store).await?
    };
    if has_tokens {
        match manager.initialize_from_store().await {
            Ok(true) => configure_secret(&mut manager, url, settings)?,
            // rmcp dropped tokens minted by another authorization server.
            Ok(false) => tracing::warn!(
                server,
                "oauth: the server names a new authorization server; the old tokens were dropped"
            ),
            Err(e) => tracing::warn!(server, "{}", login::describe(&e)),
        }
    }
    Ok(AuthClient::new(http, manager))
}

async fn bare_manager(
    url: &str,
    store: FileCredentialStore,
) -> Result<rmcp::transport::AuthorizationManager, OAuthError> {
    let mut manager = crate::mcp::http_client::authorization_manager(url)
        .await
        .map_err(|e| login::describe(&e))?;
    manager.set_credential_store(store);
    Ok(manager)
}

/// rmcp restores only the client id from the store; a confidential pre-registered
/// client also needs its secret to refresh.
fn configure_secret(
    manager: &mut rmcp::transport::AuthorizationManager,
    url: &str,
    settings: &OAuthClientSettings,
) -> Result<(), OAuthError> {
    let (Some(client_id), Some(secret)) = (&settings.client_id, login::client_secret(settings)?)
    else {
        return Ok(());
    };
    manager
        .configure_client(OAuthClientConfig::new(client_id, url).with_client_secret(secret))
        .map_err(|e| login::describe(&e))
}

/// The `WWW-Authenticate` challenge the server at `url` answers an unauthenticated
/// `initialize` with, or `None` when it lets the client in (or cannot be reached
/// within 10 s). `mcp login` starts discovery from it, as a real request would.
pub async fn challenge_of(url: &str) -> Option<String> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::{ClientLifecycleMode, ClientServiceExt as _};
    let Ok(http) = crate::mcp::http_client::streamable_http_client() else {
        return None;
    };
    // The handler, client and transport of every connection, so that this probe
    // compiles no copy of rmcp's client loop or transport worker of its own.
    let client = super::client::ClientSide::probe(url);
    let http = super::refusal_tap::RefusalTap::new(
        super::http_client::Backend::Plain(http),
        client.refusals.clone(),
        client.task_support.clone(),
        None,
    );
    let transport = rmcp::transport::StreamableHttpClientTransport::with_client(
        http,
        StreamableHttpClientTransportConfig::with_uri(url),
    );
    let transport = super::erased::Erased::new(transport, std::sync::Arc::clone(&client.routes));
    let attempt = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        client.serve_with_lifecycle(transport, ClientLifecycleMode::Initialize),
    );
    match attempt.await {
        Ok(Ok(service)) => {
            let _ = service.cancel().await;
            None
        }
        Ok(Err(e)) => e.auth_challenge().map(str::to_owned),
        Err(_) => None,
    }
}
