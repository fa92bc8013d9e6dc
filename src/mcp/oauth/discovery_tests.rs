//! Discovery order, fallbacks, PKCE refusal and scope selection of
//! [`super::login::prepared_manager`] against metadata served on 127.0.0.1.

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::login::{LoginTarget, prepared_manager};
use super::store::FileCredentialStore;

async fn serve(server: &MockServer, at: &str, body: Value) {
    Mock::given(method("GET"))
        .and(path(at))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(server)
        .await;
}

fn as_metadata(base: &str, pkce: bool) -> Value {
    let mut m = json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "scopes_supported": ["read", "offline_access"],
    });
    if pkce {
        m["code_challenge_methods_supported"] = json!(["S256"]);
    }
    m
}

fn target(base: &str, challenge: Option<&str>) -> LoginTarget {
    LoginTarget {
        server: "s".into(),
        url: format!("{base}/mcp"),
        challenge: challenge.map(str::to_owned),
        ..LoginTarget::default()
    }
}

/// The GET paths the server saw, in order.
async fn gets(server: &MockServer) -> Vec<String> {
    let requests = server.received_requests().await.unwrap_or_default();
    requests
        .iter()
        .filter(|r| r.method == wiremock::http::Method::GET)
        .map(|r| r.url.path().to_owned())
        .collect()
}

fn store() -> (tempfile::TempDir, FileCredentialStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = FileCredentialStore::new(dir.path(), "x");
    (dir, store)
}

#[tokio::test]
async fn without_a_challenge_the_path_aware_prm_comes_first_then_the_root() {
    let server = MockServer::start().await;
    let base = server.uri();
    serve(
        &server,
        "/.well-known/oauth-protected-resource",
        json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}),
    )
    .await;
    serve(
        &server,
        "/.well-known/oauth-authorization-server",
        as_metadata(&base, true),
    )
    .await;
    let (_dir, store) = store();
    let manager = prepared_manager(&target(&base, None), store).await.unwrap();
    let seen = gets(&server).await;
    let path_aware = seen
        .iter()
        .position(|p| p == "/.well-known/oauth-protected-resource/mcp");
    let root = seen
        .iter()
        .position(|p| p == "/.well-known/oauth-protected-resource");
    assert!(path_aware.is_some() && path_aware < root, "{seen:?}");
    assert!(
        seen.last()
            .is_some_and(|p| p.starts_with("/.well-known/oauth-authorization-server"))
    );
    // No scopes from the challenge or the PRM: the parameter is omitted.
    assert!(manager.select_initial_scopes(&[]).await.is_empty());
}

#[tokio::test]
async fn the_challenge_names_the_prm_and_its_scope_wins() {
    let server = MockServer::start().await;
    let base = server.uri();
    serve(
        &server,
        "/custom/prm",
        json!({"resource": format!("{base}/mcp"), "authorization_servers": [base],
               "scopes_supported": ["from-prm"]}),
    )
    .await;
    serve(
        &server,
        "/.well-known/oauth-authorization-server",
        as_metadata(&base, true),
    )
    .await;
    let challenge = format!("Bearer resource_metadata=\"{base}/custom/prm\", scope=\"a b\"");
    let (_dir, store) = store();
    let manager = prepared_manager(&target(&base, Some(&challenge)), store)
        .await
        .unwrap();
    assert_eq!(
        gets(&server).await.first().map(String::as_str),
        Some("/custom/prm")
    );
    // Challenge scope first; offline_access because the AS lists it.
    assert_eq!(
        manager.select_initial_scopes(&[]).await,
        ["a", "b", "offline_access"]
    );

    // Without a scope in the challenge, the PRM's scopes_supported.
    let challenge = format!("Bearer resource_metadata=\"{base}/custom/prm\"");
    let (_dir, store) = self::store();
    let manager = prepared_manager(&target(&base, Some(&challenge)), store)
        .await
        .unwrap();
    assert_eq!(
        manager.select_initial_scopes(&[]).await,
        ["from-prm", "offline_access"]
    );
}

#[tokio::test]
async fn discovered_metadata_without_s256_is_refused() {
    let server = MockServer::start().await;
    let base = server.uri();
    serve(
        &server,
        "/.well-known/oauth-protected-resource/mcp",
        json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}),
    )
    .await;
    serve(
        &server,
        "/.well-known/oauth-authorization-server",
        as_metadata(&base, false),
    )
    .await;
    let (_dir, store) = store();
    let error = prepared_manager(&target(&base, None), store)
        .await
        .err()
        .unwrap();
    assert!(
        error
            .to_string()
            .starts_with("oauth: the authorization server http://127.0.0.1:")
            && error.to_string().contains("does not advertise PKCE"),
        "{error}"
    );
}

#[tokio::test]
async fn no_metadata_at_all_falls_back_to_the_default_endpoints() {
    let server = MockServer::start().await;
    let base = server.uri();
    let (_dir, store) = store();
    // 2025-03-26 back-compat: /authorize, /token, /register at the root; no PKCE list
    // to check, so it is allowed.
    assert!(prepared_manager(&target(&base, None), store).await.is_ok());
    // The probes, in order: a GET for a challenge, protected resource metadata
    // (path-aware, path-appended, root), then authorization server and OpenID
    // metadata (path-aware variants, then the root).
    let seen = gets(&server).await;
    // The failure report asks the same metadata URLs as rmcp, in the same order.
    let resource = reqwest::Url::parse(&format!("{base}/mcp")).unwrap();
    let reported: Vec<String> = super::discovery_report::metadata_urls(&resource)
        .iter()
        .map(|u| u.path().to_owned())
        .collect();
    assert_eq!(reported, seen[1..]);
    assert_eq!(
        seen,
        [
            "/mcp",
            "/.well-known/oauth-protected-resource/mcp",
            "/mcp/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-authorization-server/mcp",
            "/.well-known/openid-configuration/mcp",
            "/mcp/.well-known/openid-configuration",
            "/.well-known/oauth-authorization-server",
        ]
    );
}

#[tokio::test]
async fn metadata_whose_issuer_does_not_match_its_url_is_refused() {
    let server = MockServer::start().await;
    let base = server.uri();
    serve(
        &server,
        "/.well-known/oauth-protected-resource/mcp",
        json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}),
    )
    .await;
    let mut metadata = as_metadata(&base, true);
    metadata["issuer"] = json!("https://elsewhere.example");
    serve(&server, "/.well-known/oauth-authorization-server", metadata).await;
    let (_dir, store) = store();
    let error = prepared_manager(&target(&base, None), store)
        .await
        .err()
        .unwrap();
    assert!(error.to_string().starts_with("oauth: "), "{error}");
}

#[derive(Debug)]
struct NoPrompt;

#[async_trait::async_trait]
impl super::LoginPrompt for NoPrompt {
    async fn present(&self, _: &str, url: &str, _: u16) -> Option<String> {
        panic!("no authorization page was expected, got {url}");
    }
}

#[tokio::test]
async fn a_login_with_no_metadata_and_no_register_endpoint_names_each_url_it_asked() {
    let server = MockServer::start().await;
    let base = server.uri();
    let error = super::login(&target(&base, None), &NoPrompt)
        .await
        .err()
        .unwrap()
        .to_string();
    // Every URL discovery asks (pinned to rmcp's order above), with its answer.
    let resource = reqwest::Url::parse(&format!("{base}/mcp")).unwrap();
    let urls = super::discovery_report::metadata_urls(&resource);
    assert_eq!(urls.len(), 7);
    for url in urls {
        assert!(error.contains(&format!("{url} → 404")), "{url}: {error}");
    }
    assert!(
        error.starts_with("oauth: the server publishes no OAuth metadata ("),
        "{error}"
    );
    assert!(
        error.contains(&format!("client registration at {base}/register failed: ")),
        "{error}"
    );
}
