//! The local host an app opens in: two HTTP listeners on `127.0.0.1`, port 0.
//!
//! - The host page, `http://127.0.0.1:H/s/TOKEN/`: the frame around the app, and
//!   the relay of its messages to switchboard (`rpc`, `resource`, `outcome`).
//!   `TOKEN` is 32 random bytes; without it every path is 404.
//! - The sandbox proxy, `http://127.0.0.1:S/p/FRAME`: another origin (another
//!   port), as the MCP Apps spec requires of web hosts, served with the app's
//!   Content-Security-Policy header and embeddable only by the host page.
//!
//! The relay takes a message only from the host page's own origin (`Origin`
//! header) and only for the right `Host`, so neither another site nor the app
//! itself (which runs on the sandbox origin) can post to it directly.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::bridge;
use super::session::AppSession;

const HOST_PAGE: &str = include_str!("host.html");
const SANDBOX_PAGE: &str = include_str!("sandbox.html");

/// The largest message an app may post.
const MAX_MESSAGE: usize = 4 * 1024 * 1024;

/// How long one `outcome` request waits before the page asks again.
const OUTCOME_WAIT: Duration = Duration::from_secs(20);

/// A running host for one app; dropping it stops it.
pub struct AppHost {
    url: String,
    stop: CancellationToken,
    session: Arc<AppSession>,
}

impl AppHost {
    /// Starts both listeners for `session`.
    pub async fn start(session: Arc<AppSession>) -> std::io::Result<Self> {
        let host = TcpListener::bind(("127.0.0.1", 0)).await?;
        let sandbox = TcpListener::bind(("127.0.0.1", 0)).await?;
        let host_origin = format!("http://127.0.0.1:{}", host.local_addr()?.port());
        let sandbox_origin = format!("http://127.0.0.1:{}", sandbox.local_addr()?.port());
        let token = random_hex(32)?;
        let frame = random_hex(16)?;
        let url = format!("{host_origin}/s/{token}/");
        let site = Arc::new(Site {
            csp: super::csp::policy(session.resource.csp.as_ref(), &host_origin),
            session: Arc::clone(&session),
            token,
            frame,
            host_origin,
            sandbox_origin,
        });
        let stop = CancellationToken::new();
        tokio::spawn(accept(host, Arc::clone(&site), Side::Host, stop.clone()));
        tokio::spawn(accept(sandbox, site, Side::Sandbox, stop.clone()));
        Ok(Self { url, stop, session })
    }

    /// The host page's address (it carries the token: whoever has it can use the app).
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn session(&self) -> &Arc<AppSession> {
        &self.session
    }
}

impl Drop for AppHost {
    fn drop(&mut self) {
        self.stop.cancel();
        self.session.close();
    }
}

/// `n` random bytes from the operating system, as hex.
fn random_hex(n: usize) -> std::io::Result<String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes
        .iter()
        .fold(String::with_capacity(2 * n), |mut hex, b| {
            use std::fmt::Write as _;
            let _ = write!(hex, "{b:02x}");
            hex
        }))
}

#[derive(Clone, Copy)]
enum Side {
    Host,
    Sandbox,
}

/// What both listeners serve.
struct Site {
    session: Arc<AppSession>,
    token: String,
    frame: String,
    host_origin: String,
    sandbox_origin: String,
    csp: String,
}

type Body = Full<Bytes>;

async fn accept(listener: TcpListener, site: Arc<Site>, side: Side, stop: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            continue;
        };
        let site = Arc::clone(&site);
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let site = Arc::clone(&site);
                async move {
                    Ok::<_, Infallible>(match side {
                        Side::Host => site.host(req).await,
                        Side::Sandbox => site.sandbox(&req),
                    })
                }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                () = stop.cancelled() => {}
                _ = connection => {}
            }
        });
    }
}

impl Site {
    async fn host(&self, req: Request<Incoming>) -> Response<Body> {
        if !host_is(&req, &self.host_origin) {
            return status(StatusCode::MISDIRECTED_REQUEST);
        }
        let Some(rest) = req
            .uri()
            .path()
            .strip_prefix("/s/")
            .and_then(|p| p.split_once('/'))
            .filter(|(token, _)| same(token, &self.token))
            .map(|(_, rest)| rest.to_owned())
        else {
            return status(StatusCode::NOT_FOUND);
        };
        match (req.method(), rest.as_str()) {
            (&Method::GET, "") => self.host_page(),
            (&Method::GET, "resource") => self.resource(),
            (&Method::GET, "outcome") => self.outcome().await,
            (&Method::POST, "rpc") => self.rpc(req).await,
            _ => status(StatusCode::NOT_FOUND),
        }
    }

    fn host_page(&self) -> Response<Body> {
        let session = &self.session;
        let title = format!("{} · {}", session.server, session.tool.display_title());
        let page = HOST_PAGE
            .replace("{{TITLE}}", &crate::sanitize::escape_markup(&title))
            .replace(
                "{{SANDBOX_URL}}",
                &format!("{}/p/{}", self.sandbox_origin, self.frame),
            );
        let csp = format!(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             connect-src 'self'; frame-src {}; base-uri 'none'; form-action 'none'; \
             frame-ancestors 'none'",
            self.sandbox_origin
        );
        let mut response = html(page, &csp);
        // The page's address carries the token: it is never sent to another origin
        // as a referrer (the sandbox proxy's included). Same-origin requests keep it,
        // and with it a real `Origin` header on the relay's POSTs.
        response.headers_mut().insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        );
        response
    }

    /// The app's HTML for the sandbox proxy, with the frame attributes it asked for.
    fn resource(&self) -> Response<Body> {
        let resource = &self.session.resource;
        json_response(&json!({
            "html": resource.html,
            "sandbox": "allow-scripts allow-same-origin allow-forms",
            "allow": allow_attribute(resource.permissions.as_ref()),
        }))
    }

    async fn outcome(&self) -> Response<Body> {
        match self.session.outcome(OUTCOME_WAIT).await {
            Some(notification) => {
                self.session
                    .capture(crate::mcp::wire::Direction::Sent, &notification);
                json_response(&json!({"deliver": [notification]}))
            }
            None => status(StatusCode::NO_CONTENT),
        }
    }

    async fn rpc(&self, req: Request<Incoming>) -> Response<Body> {
        if !from_host_page(&req, &self.host_origin) {
            return status(StatusCode::FORBIDDEN);
        }
        let Ok(body) = Limited::new(req.into_body(), MAX_MESSAGE).collect().await else {
            return status(StatusCode::PAYLOAD_TOO_LARGE);
        };
        let Ok(message) = serde_json::from_slice::<Value>(&body.to_bytes()) else {
            return status(StatusCode::BAD_REQUEST);
        };
        let reply = bridge::handle(&self.session, message).await;
        json_response(&json!({
            "reply": reply.reply,
            "deliver": reply.deliver,
            "poll": reply.poll,
        }))
    }

    fn sandbox(&self, req: &Request<Incoming>) -> Response<Body> {
        if !host_is(req, &self.sandbox_origin) {
            return status(StatusCode::MISDIRECTED_REQUEST);
        }
        let path = req.uri().path();
        let frame = path.strip_prefix("/p/").unwrap_or("");
        if req.method() != Method::GET || !same(frame, &self.frame) {
            return status(StatusCode::NOT_FOUND);
        }
        html(
            SANDBOX_PAGE.replace("{{HOST_ORIGIN}}", &self.host_origin),
            &self.csp,
        )
    }
}

/// A relay POST comes from the host page itself: a JSON body (another origin could
/// send one only after a CORS preflight, which is never answered), and either an
/// `Origin` of the host page or, where the browser sends none for a same-origin
/// request, `Sec-Fetch-Site: same-origin`.
fn from_host_page(req: &Request<Incoming>, host_origin: &str) -> bool {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    let json = header("content-type").is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|e| e.trim() == "application/json")
    });
    let same_origin = match header("origin") {
        Some(origin) => origin == host_origin,
        None => header("sec-fetch-site") == Some("same-origin"),
    };
    json && same_origin
}

/// The request was addressed to `origin`'s host and port (no DNS rebinding).
fn host_is(req: &Request<Incoming>, origin: &str) -> bool {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok());
    host.is_some_and(|h| origin.strip_prefix("http://") == Some(h))
}

/// Compares a secret without stopping at the first difference.
fn same(given: &str, secret: &str) -> bool {
    given.len() == secret.len()
        && given
            .bytes()
            .zip(secret.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// The iframe `allow` attribute for what the resource asked (`_meta.ui.permissions`).
fn allow_attribute(permissions: Option<&Value>) -> String {
    let asked = |key: &str| {
        permissions
            .and_then(|p| p.get(key))
            .is_some_and(|v| v.is_object() || v == &Value::Bool(true))
    };
    [
        ("camera", "camera"),
        ("microphone", "microphone"),
        ("geolocation", "geolocation"),
        ("clipboardWrite", "clipboard-write"),
    ]
    .iter()
    .filter(|(key, _)| asked(key))
    .map(|(_, feature)| *feature)
    .collect::<Vec<_>>()
    .join("; ")
}

fn status(code: StatusCode) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}

fn with_headers(mut response: Response<Body>, content_type: &'static str) -> Response<Body> {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

fn html(page: String, csp: &str) -> Response<Body> {
    let mut response = with_headers(
        Response::new(Full::new(Bytes::from(page))),
        "text/html; charset=utf-8",
    );
    if let Ok(value) = HeaderValue::from_str(csp) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, value);
    }
    response
}

fn json_response(value: &Value) -> Response<Body> {
    let body = serde_json::to_vec(value).unwrap_or_default();
    with_headers(
        Response::new(Full::new(Bytes::from(body))),
        "application/json",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abd", "abc"));
        assert!(!same("ab", "abc"));
        assert!(!same("", "abc"));
    }

    #[test]
    fn only_asked_permissions_are_allowed() {
        assert_eq!(allow_attribute(None), "");
        let asked = json!({"camera": {}, "geolocation": {}, "microphone": false});
        assert_eq!(allow_attribute(Some(&asked)), "camera; geolocation");
    }

    #[test]
    fn titles_cannot_break_out_of_the_page() {
        assert_eq!(
            crate::sanitize::escape_markup("<script>\"x'&\u{1b}"),
            "&lt;script&gt;&quot;x&#39;&amp;\u{fffd}"
        );
    }

    #[test]
    fn tokens_are_random_hex() {
        let a = random_hex(32).unwrap();
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, random_hex(32).unwrap());
    }
}
