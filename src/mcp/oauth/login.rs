//! One OAuth 2.1 authorization-code login, driven by rmcp's `AuthorizationManager`
//! and `AuthorizationSession`: discovery (RFC 9728 protected resource metadata, RFC
//! 8414 / OpenID metadata, the 2025-03-26 fallbacks), client identity (pre-registered,
//! Client ID Metadata Document, Dynamic Client Registration), PKCE S256, `state`,
//! `resource` (RFC 8707), the `iss` check (RFC 9207) and the token exchange are rmcp's.
//!
//! What this adds, because rmcp leaves it to the application: the loopback listener
//! and the browser, the paste fallback, reading a client secret from the
//! environment, choosing `token_endpoint_auth` from the config (rmcp only infers it
//! from the metadata), refusing discovered metadata that does not advertise S256
//! (rmcp tolerates a missing list; the MCP authorization spec says to refuse), and
//! errors that name what failed.

use std::time::Duration;

use rmcp::transport::auth::{AuthorizationMetadataSource, AuthorizationSession};
use rmcp::transport::{AuthError, AuthorizationManager, AuthorizationRequest};

use super::discovery_report;
use super::listener::RedirectListener;
use super::status::{LoginSummary, summary_of};
use super::store::FileCredentialStore;
use crate::config::OAuthClientSettings;
use crate::mcp::error::untrusted;

/// How long a login waits for the browser (or a paste).
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

/// The name switchboard registers under (Dynamic Client Registration).
pub const CLIENT_NAME: &str = "switchboard";

/// A login failure, worded `oauth: …`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("oauth: {0}")]
pub struct OAuthError(pub String);

/// What to log in to.
#[derive(Debug, Clone, Default)]
pub struct LoginTarget {
    /// The `[servers.NAME]` key.
    pub server: String,
    /// The server's URL (the protected resource).
    pub url: String,
    pub settings: OAuthClientSettings,
    /// The `WWW-Authenticate` value that asked for the login, if any.
    pub challenge: Option<String>,
    /// Scopes to ask for (a step-up's union); empty: the selection rules decide.
    pub scopes: Vec<String>,
}

/// Where the person sees the authorization page and may paste the result.
#[async_trait::async_trait]
pub trait LoginPrompt: Send + Sync + std::fmt::Debug {
    /// Shows `url` (opens a browser, prints it, draws it); `port` is the loopback
    /// listener's. Returns what the person pasted (the redirect URL or the bare
    /// code), or `None` when there is no way to paste: then only the listener counts.
    async fn present(&self, server: &str, url: &str, port: u16) -> Option<String>;
}

/// Runs the whole login and stores the tokens; returns what was granted.
pub async fn login(
    target: &LoginTarget,
    prompt: &dyn LoginPrompt,
) -> Result<LoginSummary, OAuthError> {
    let listener = RedirectListener::bind()
        .await
        .map_err(|e| OAuthError(format!("cannot listen on 127.0.0.1: {e}")))?;
    let redirect = listener.redirect_uri();
    let store = FileCredentialStore::for_server(&target.url);
    let (manager, discovered) = resolved_manager(target, store.clone()).await?;
    let request = authorization_request(target, &redirect)?;
    let session = match AuthorizationSession::new(manager, request).await {
        Ok(session) => session,
        Err((_, AuthError::RegistrationFailed(failure))) if !discovered => {
            return Err(undiscovered(&target.url, &failure).await);
        }
        Err((_, e)) => return Err(describe(&e)),
    };
    let auth_url = session.get_authorization_url().to_owned();
    tracing::info!(
        server = target.server,
        port = listener.port(),
        "oauth: waiting for the browser"
    );
    let callback = tokio::time::timeout(LOGIN_TIMEOUT, async {
        let from_browser = listener.next_callback();
        tokio::pin!(from_browser);
        tokio::select! {
            got = &mut from_browser => got,
            pasted = prompt.present(&target.server, &auth_url, listener.port()) => match pasted {
                Some(text) => Ok(callback_from_paste(&text, &redirect, &auth_url)),
                None => from_browser.await,
            },
        }
    })
    .await
    .map_err(|_| {
        OAuthError(format!(
            "no authorization response within {} s",
            LOGIN_TIMEOUT.as_secs()
        ))
    })?
    .map_err(|e| OAuthError(format!("the loopback listener failed: {e}")))?;
    refused_by_server(&callback)?;
    session
        .handle_callback_url(&callback)
        .await
        .map_err(|e| describe(&e))?;
    let stored = store
        .read()
        .map_err(|e| OAuthError(e.to_string()))?
        .ok_or_else(|| OAuthError("the tokens were not stored".into()))?;
    Ok(summary_of(&stored))
}

/// A manager with metadata resolved (from the challenge when there is one) and the
/// file store set; the token endpoint auth method follows the config.
pub async fn prepared_manager(
    target: &LoginTarget,
    store: FileCredentialStore,
) -> Result<AuthorizationManager, OAuthError> {
    resolved_manager(target, store).await.map(|(m, _)| m)
}

/// A registration that failed at the 2025-03-26 default endpoint, after discovery
/// found no metadata: the error names each metadata URL and what it answered.
async fn undiscovered(url: &str, failure: &str) -> OAuthError {
    let Ok(resource) = reqwest::Url::parse(url) else {
        return OAuthError(format!(
            "client registration failed: {}",
            untrusted(failure, 300)
        ));
    };
    let answers = discovery_report::probe(&discovery_report::metadata_urls(&resource)).await;
    OAuthError(discovery_report::sentence(
        &answers,
        &discovery_report::default_registration(&resource),
        failure,
    ))
}

/// [`prepared_manager`], and whether metadata was discovered (not the 2025-03-26
/// default endpoints).
async fn resolved_manager(
    target: &LoginTarget,
    store: FileCredentialStore,
) -> Result<(AuthorizationManager, bool), OAuthError> {
    let mut manager = crate::mcp::http_client::authorization_manager(target.url.as_str())
        .await
        .map_err(|e| describe(&e))?;
    manager.set_credential_store(store);
    let resolution = manager
        .resolve_metadata_from_challenge(target.challenge.as_deref())
        .await
        .map_err(|e| describe(&e))?;
    let mut metadata = resolution.metadata;
    let discovered = resolution.source != AuthorizationMetadataSource::LegacyEndpointFallback;
    if discovered && metadata.code_challenge_methods_supported.is_none() {
        return Err(OAuthError(format!(
            "the authorization server {} does not advertise PKCE (code_challenge_methods_supported); refusing to log in",
            untrusted(
                metadata
                    .issuer
                    .as_deref()
                    .unwrap_or(&metadata.authorization_endpoint),
                200
            )
        )));
    }
    if let Some(method) = target.settings.token_endpoint_auth {
        // rmcp picks client_secret_post only when the metadata lists it without
        // client_secret_basic; narrowing the list makes the configured method win.
        metadata.additional_fields.insert(
            "token_endpoint_auth_methods_supported".into(),
            serde_json::json!([method.as_str()]),
        );
    }
    manager.set_metadata(metadata);
    Ok((manager, discovered))
}

/// Client identity and scopes, in the order the MCP authorization spec gives.
fn authorization_request(
    target: &LoginTarget,
    redirect: &str,
) -> Result<AuthorizationRequest, OAuthError> {
    let settings = &target.settings;
    let mut request = AuthorizationRequest::new(redirect)
        .with_client_name(CLIENT_NAME)
        .with_application_type("native");
    if let Some(client_id) = &settings.client_id {
        request = request.with_preregistered_client(client_id);
        if let Some(secret) = client_secret(settings)? {
            request = request.with_client_secret(secret);
        }
    } else if let Some(cimd) = &settings.client_metadata_url {
        request = request.with_client_metadata_url(cimd);
    }
    let scopes = if target.scopes.is_empty() {
        settings.scopes.clone().unwrap_or_default()
    } else {
        target.scopes.clone()
    };
    Ok(if scopes.is_empty() {
        request.with_initial_scope_selection()
    } else {
        request.with_scopes(scopes)
    })
}

/// The pre-registered client's secret, read from `client_secret_env` (none when the
/// method is `none`).
pub fn client_secret(settings: &OAuthClientSettings) -> Result<Option<String>, OAuthError> {
    use crate::config::TokenEndpointAuth;
    let Some(var) = &settings.client_secret_env else {
        return Ok(None);
    };
    if settings.token_endpoint_auth == Some(TokenEndpointAuth::None) {
        return Ok(None);
    }
    std::env::var(var).map(Some).map_err(|_| {
        OAuthError(format!(
            "the environment variable {var} (client_secret_env) is not set"
        ))
    })
}

/// The callback URL for what was pasted: a redirect URL as is, a bare code with the
/// `state` of the authorization URL.
pub fn callback_from_paste(pasted: &str, redirect: &str, auth_url: &str) -> String {
    let pasted = pasted.trim();
    if pasted.contains("code=") || pasted.contains("error=") {
        if let Some(query) = pasted.split_once('?').map(|(_, q)| q) {
            return format!("{redirect}?{query}");
        }
        return format!("{redirect}?{pasted}");
    }
    let state = reqwest::Url::parse(auth_url)
        .ok()
        .and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        })
        .unwrap_or_default();
    match reqwest::Url::parse(redirect) {
        Ok(mut url) => {
            url.query_pairs_mut()
                .append_pair("code", pasted)
                .append_pair("state", &state);
            url.to_string()
        }
        Err(_) => format!("{redirect}?code={pasted}&state={state}"),
    }
}

/// An `error=` redirect (RFC 6749 §4.1.2.1) as a message.
fn refused_by_server(callback: &str) -> Result<(), OAuthError> {
    let Ok(url) = reqwest::Url::parse(callback) else {
        return Err(OAuthError("the redirect URL is not a URL".into()));
    };
    let get = |key: &str| {
        url.query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| untrusted(&v, 200))
    };
    match (get("error"), get("error_description")) {
        (Some(error), Some(text)) => Err(OAuthError(format!(
            "the authorization server refused: {error} ({text})"
        ))),
        (Some(error), None) => Err(OAuthError(format!(
            "the authorization server refused: {error}"
        ))),
        _ => Ok(()),
    }
}

/// rmcp's errors, worded to say what failed and where.
pub fn describe(error: &AuthError) -> OAuthError {
    let text = |s: &str| untrusted(s, 300);
    OAuthError(match error {
        AuthError::DiscoveryRequestFailed { url, source } => format!(
            "no authorization server metadata at {} ({})",
            text(url.as_str()),
            text(&source.to_string())
        ),
        AuthError::TokenExchangeFailed(e) => {
            format!("token endpoint refused the code: {}", text(e))
        }
        AuthError::TokenRefreshRejected(e) | AuthError::TokenRefreshFailed(e) => {
            format!("token refresh failed: {}", text(e))
        }
        AuthError::RegistrationFailed(e) => format!("client registration failed: {}", text(e)),
        AuthError::PkceUnsupported => {
            "the authorization server does not support PKCE S256; refusing to log in".into()
        }
        AuthError::AuthorizationServerMismatch {
            expected_issuer,
            received_issuer,
        } => format!(
            "issuer mismatch: expected {}, got {} (RFC 8414 §3.3, RFC 9207)",
            text(expected_issuer),
            text(received_issuer)
        ),
        AuthError::AuthorizationServerMissingIssuer { expected_issuer } => format!(
            "the authorization response has no iss, which {} requires (RFC 9207)",
            text(expected_issuer)
        ),
        other => text(&other.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TokenEndpointAuth;

    #[test]
    fn a_pasted_code_gets_the_state_of_the_authorization_url() {
        let redirect = "http://127.0.0.1:5555/callback";
        let auth = "https://as.example/authorize?client_id=c&state=s%20t&x=1";
        let url = callback_from_paste("  abc123\n", redirect, auth);
        assert_eq!(url, "http://127.0.0.1:5555/callback?code=abc123&state=s+t");
        let pasted = "http://localhost:1/callback?code=zz&state=q&iss=https%3A%2F%2Fas";
        assert_eq!(
            callback_from_paste(pasted, redirect, auth),
            "http://127.0.0.1:5555/callback?code=zz&state=q&iss=https%3A%2F%2Fas"
        );
    }

    #[test]
    fn an_error_redirect_is_a_refusal() {
        let e = refused_by_server("http://127.0.0.1:1/callback?error=access_denied&state=s")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "oauth: the authorization server refused: access_denied"
        );
        assert!(refused_by_server("http://127.0.0.1:1/callback?code=c&state=s").is_ok());
    }

    #[test]
    fn identity_order_is_preregistered_then_cimd_then_dcr() {
        let mut target = LoginTarget {
            url: "https://mcp.example/mcp".into(),
            settings: OAuthClientSettings {
                client_id: Some("pre".into()),
                client_metadata_url: Some("https://me.example/client.json".into()),
                ..OAuthClientSettings::default()
            },
            ..LoginTarget::default()
        };
        let r = authorization_request(&target, "http://127.0.0.1:1/callback").unwrap();
        assert_eq!(r.client_id.as_deref(), Some("pre"));
        assert_eq!(r.client_metadata_url, None);
        assert!(r.use_initial_scopes && r.scopes.is_empty());
        target.settings.client_id = None;
        let r = authorization_request(&target, "http://127.0.0.1:1/callback").unwrap();
        assert_eq!(r.client_id, None);
        assert_eq!(
            r.client_metadata_url.as_deref(),
            Some("https://me.example/client.json")
        );
        target.settings.client_metadata_url = None;
        target.scopes = vec!["a".into(), "b".into()];
        let r = authorization_request(&target, "http://127.0.0.1:1/callback").unwrap();
        assert_eq!((r.client_id, r.client_metadata_url), (None, None));
        assert_eq!(r.application_type.as_deref(), Some("native"));
        assert_eq!(r.scopes, ["a", "b"]);
        assert!(!r.use_initial_scopes);
    }

    #[test]
    fn a_missing_secret_variable_is_named() {
        let settings = OAuthClientSettings {
            client_id: Some("c".into()),
            client_secret_env: Some("SWITCHBOARD_TEST_NO_SUCH_SECRET_VAR".into()),
            ..OAuthClientSettings::default()
        };
        let e = client_secret(&settings).unwrap_err();
        assert_eq!(
            e.to_string(),
            "oauth: the environment variable SWITCHBOARD_TEST_NO_SUCH_SECRET_VAR (client_secret_env) is not set"
        );
        let none = OAuthClientSettings {
            token_endpoint_auth: Some(TokenEndpointAuth::None),
            ..settings
        };
        assert_eq!(client_secret(&none).unwrap(), None);
    }
}
