//! A fake OAuth-protected MCP server on 127.0.0.1 (wiremock): the MCP endpoint at
//! `/mcp` (JSON responses; bearer tokens checked), protected resource metadata,
//! authorization server metadata, registration, an `/authorize` that redirects at
//! once with a code, and a token endpoint for codes and refresh tokens.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// What the fake has seen and how it behaves.
#[derive(Debug, Default)]
pub struct FakeState {
    /// Access tokens it issued (all stay valid).
    pub issued: Vec<String>,
    pub refreshes: u32,
    pub authorizations: u32,
    /// Scopes asked for at `/authorize`, in order.
    pub requested_scopes: Vec<String>,
    /// Lifetime of issued access tokens.
    pub expires_in: u64,
    /// `tools/call` answers 403 `insufficient_scope` unless the token has this scope.
    pub call_needs_scope: Option<String>,
    /// Scopes of each issued token.
    pub scopes_of: Vec<(String, String)>,
}

pub struct Fake {
    pub server: MockServer,
    pub state: Arc<Mutex<FakeState>>,
}

impl Fake {
    pub async fn start(expires_in: u64) -> Self {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(FakeState {
            expires_in,
            ..FakeState::default()
        }));
        let base = server.uri();
        let json_ok = |body: Value| ResponseTemplate::new(200).set_body_json(body);
        Mock::given(method("GET"))
            .and(path("/.well-known/oauth-protected-resource/mcp"))
            .respond_with(json_ok(json!({
                "resource": format!("{base}/mcp"),
                "authorization_servers": [base],
                "scopes_supported": ["tools"],
            })))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/.well-known/oauth-authorization-server"))
            .respond_with(json_ok(json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
                "scopes_supported": ["tools", "admin", "offline_access"],
                "authorization_response_iss_parameter_supported": true,
            })))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/register"))
            .respond_with(json_ok(json!({
                "client_id": "client-1",
                "redirect_uris": ["http://127.0.0.1/callback"],
            })))
            .mount(&server)
            .await;
        let s = Arc::clone(&state);
        Mock::given(method("GET"))
            .and(path("/authorize"))
            .respond_with(Authorize(s, base.clone()))
            .mount(&server)
            .await;
        let s = Arc::clone(&state);
        Mock::given(method("POST"))
            .and(path("/token"))
            .respond_with(Token(s))
            .mount(&server)
            .await;
        let s = Arc::clone(&state);
        Mock::given(method("POST"))
            .and(path("/mcp"))
            .respond_with(Mcp(s, base.clone()))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/mcp"))
            .respond_with(ResponseTemplate::new(405))
            .mount(&server)
            .await;
        Self { server, state }
    }

    pub fn url(&self) -> String {
        format!("{}/mcp", self.server.uri())
    }

    pub fn state(&self) -> std::sync::MutexGuard<'_, FakeState> {
        self.state.lock().unwrap()
    }
}

fn query(request: &Request, key: &str) -> Option<String> {
    request
        .url
        .query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

struct Authorize(Arc<Mutex<FakeState>>, String);

impl Respond for Authorize {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut state = self.0.lock().unwrap();
        state.authorizations += 1;
        let scope = query(request, "scope").unwrap_or_default();
        state.requested_scopes.push(scope.clone());
        let ok = query(request, "code_challenge_method").as_deref() == Some("S256")
            && query(request, "resource").is_some();
        let redirect = query(request, "redirect_uri").unwrap_or_default();
        let state_param = query(request, "state").unwrap_or_default();
        let mut location = reqwest::Url::parse(&redirect).unwrap();
        location
            .query_pairs_mut()
            .append_pair(if ok { "code" } else { "error" }, &format!("code:{scope}"))
            .append_pair("state", &state_param)
            .append_pair("iss", &self.1);
        ResponseTemplate::new(302).insert_header("location", location.as_str())
    }
}

struct Token(Arc<Mutex<FakeState>>);

impl Respond for Token {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body = String::from_utf8_lossy(&request.body).into_owned();
        let form: Vec<(String, String)> = reqwest::Url::parse(&format!("http://x/?{body}"))
            .unwrap()
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let get = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let mut state = self.0.lock().unwrap();
        let scope = match get("grant_type").as_deref() {
            Some("authorization_code") => {
                let code = get("code").unwrap_or_default();
                if get("code_verifier").is_none() || !code.starts_with("code:") {
                    return ResponseTemplate::new(400)
                        .set_body_json(json!({"error": "invalid_grant"}));
                }
                code.trim_start_matches("code:").to_owned()
            }
            Some("refresh_token") => {
                state.refreshes += 1;
                let refresh = get("refresh_token").unwrap_or_default();
                refresh.trim_start_matches("refresh:").to_owned()
            }
            _ => {
                return ResponseTemplate::new(400)
                    .set_body_json(json!({"error": "unsupported_grant_type"}));
            }
        };
        // The scope `never` is never granted.
        let scope = scope
            .split(' ')
            .filter(|s| *s != "never")
            .collect::<Vec<_>>()
            .join(" ");
        let token = format!("access-token-{}-secret", state.issued.len() + 1);
        state.issued.push(token.clone());
        state.scopes_of.push((token.clone(), scope.clone()));
        ResponseTemplate::new(200).set_body_json(json!({
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": state.expires_in,
            "refresh_token": format!("refresh:{scope}"),
            "scope": scope,
        }))
    }
}

struct Mcp(Arc<Mutex<FakeState>>, String);

impl Respond for Mcp {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let state = self.0.lock().unwrap();
        let challenge = format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"tools\"",
            self.1
        );
        let token = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_owned);
        let Some(token) = token.filter(|t| state.issued.contains(t)) else {
            return ResponseTemplate::new(401)
                .insert_header("www-authenticate", challenge.as_str())
                .set_body_json(json!({"error": "invalid_token"}));
        };
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let id = body.get("id").cloned();
        let method = body.get("method").and_then(Value::as_str).unwrap_or("");
        let Some(id) = id else {
            return ResponseTemplate::new(202);
        };
        let result = match method {
            "initialize" => json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake-oauth", "version": "1.0.0"},
            }),
            "tools/list" => json!({"tools": [
                {"name": "echo", "inputSchema": {"type": "object"},
                 "annotations": {"readOnlyHint": true}}
            ]}),
            "tools/call" => {
                if let Some(needed) = &state.call_needs_scope {
                    let has = state
                        .scopes_of
                        .iter()
                        .any(|(t, s)| *t == token && s.split(' ').any(|x| x == needed));
                    if !has {
                        let header = format!(
                            "Bearer error=\"insufficient_scope\", scope=\"{needed}\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
                            self.1
                        );
                        return ResponseTemplate::new(403)
                            .insert_header("www-authenticate", header.as_str())
                            .set_body_json(json!({"error": "insufficient_scope"}));
                    }
                }
                json!({"content": [{"type": "text", "text": "echoed"}]})
            }
            _ => json!({}),
        };
        ResponseTemplate::new(200)
            .insert_header("content-type", "application/json")
            .set_body_json(json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }
}

/// A `$BROWSER` script: GET the authorization URL without following the redirect,
/// then GET the loopback callback it names (as a browser would).
pub fn browser_script(dir: &std::path::Path) -> String {
    write_script(
        dir,
        "browser.sh",
        "loc=$(curl -s -o /dev/null -w '%{redirect_url}' \"$1\")\ncurl -s \"$loc\" >/dev/null\n",
    )
}

/// An executable `#!/bin/sh` script `name` in `dir` with `body`; its path.
pub fn write_script(dir: &std::path::Path, name: &str, body: &str) -> String {
    let script = dir.join(name);
    std::fs::write(&script, format!("#!/bin/sh\n{body}")).unwrap();
    let mut perms = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).unwrap();
    script.display().to_string()
}
