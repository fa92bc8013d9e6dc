//! `serve --http ADDR`: rmcp's Streamable HTTP service on `/mcp`, both protocol
//! generations (2025-11-25 sessions answered as SSE, 2026-07-28 requests answered
//! statelessly, as JSON unless notifications come first), behind two checks:
//!
//! - DNS rebinding: rmcp refuses a `Host` not on the list (loopback names, the bind
//!   address, `[serve] allowed_hosts`) and a browser `Origin` not on the list
//!   (loopback origins, `[serve] allowed_origins`) with 403.
//! - Bearer tokens (RFC 6750, `identity.rs`): `[serve] token_env` lets a request in;
//!   a `[serve.clients.NAME] token_env` token lets it in as NAME (its mode and
//!   budget). A token is required for every request when `[serve] token_env` is set
//!   or the bind is not on loopback, and such a bind refuses to start with no token
//!   configured. Missing or wrong: 401 with `WWW-Authenticate: Bearer`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::http_cancel::{self, Body};
use super::identity::{Admission, Proven, Tokens};
use super::sessions::Sessions;
use super::{Gateway, GatewayHandler};

/// Why the HTTP gateway cannot start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("{0:?} is not an address to listen on (e.g. 127.0.0.1:7331, [::1]:0)")]
    BadAddress(String),
    #[error(
        "{addr} is not a loopback address: set [serve] token_env (or a [serve.clients.NAME] token_env) to a variable holding the bearer token clients must send"
    )]
    NeedsToken { addr: SocketAddr },
    #[error("[serve] token_env names {0}, which is not set (or empty)")]
    TokenUnset(String),
    #[error("[serve.clients.{client}] token_env names {var}, which is not set (or empty)")]
    ClientTokenUnset { client: String, var: String },
    #[error("{0} and {1} hold the same token: each client needs its own")]
    SharedToken(String, String),
    #[error("cannot listen on {addr}: {error}")]
    Bind {
        addr: SocketAddr,
        error: std::io::Error,
    },
}

/// A bound HTTP gateway, not yet serving.
pub struct HttpServer {
    listener: TcpListener,
    url: String,
    app: App,
}

#[derive(Clone)]
struct App {
    mcp: StreamableHttpService<GatewayHandler, Sessions>,
    tokens: Arc<Tokens>,
    max_bytes: usize,
    wire: Option<Arc<super::wire_tap::HttpWire>>,
}

impl HttpServer {
    /// Binds `addr`; the tokens come from the variables `[serve] token_env` and
    /// `[serve.clients.NAME] token_env` name.
    pub async fn bind(gateway: &Arc<Gateway>, addr: &str) -> Result<Self, HttpError> {
        let addr: SocketAddr = addr
            .parse()
            .map_err(|_| HttpError::BadAddress(addr.to_owned()))?;
        let tokens = Tokens::from_env(gateway.config(), addr)?;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|error| HttpError::Bind { addr, error })?;
        let local = listener
            .local_addr()
            .map_err(|error| HttpError::Bind { addr, error })?;
        let url = format!("http://{local}/mcp");
        let factory = Arc::clone(gateway);
        let mcp = StreamableHttpService::new(
            move || Ok(factory.handler("http")),
            Arc::new(Sessions::default()),
            config(gateway, local),
        );
        Ok(Self {
            listener,
            url,
            app: App {
                mcp,
                tokens: Arc::new(tokens),
                max_bytes: gateway.config().max_message_bytes,
                wire: gateway.wire.clone().map(super::wire_tap::HttpWire::new),
            },
        })
    }

    /// `http://HOST:PORT/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves until `stop` is cancelled.
    pub async fn serve(self, stop: CancellationToken) {
        loop {
            let accepted = tokio::select! {
                () = stop.cancelled() => return,
                accepted = self.listener.accept() => accepted,
            };
            let Ok((stream, _)) = accepted else {
                continue;
            };
            let app = self.app.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let app = app.clone();
                    async move { Ok::<_, Infallible>(app.route(req).await) }
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
}

/// rmcp's settings: hosts and origins allowed, the message cap, JSON answers for
/// requests without a session.
fn config(gateway: &Gateway, local: SocketAddr) -> StreamableHttpServerConfig {
    let serve = gateway.config();
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
        .iter()
        .map(|h| (*h).to_owned())
        .collect();
    if !local.ip().is_unspecified() {
        hosts.push(local.ip().to_string());
    }
    hosts.extend(serve.allowed_hosts.iter().cloned());
    let mut origins: Vec<String> = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .iter()
        .map(|o| (*o).to_owned())
        .collect();
    origins.extend(serve.allowed_origins.iter().cloned());
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(serve.max_message_bytes)
        .with_json_response(true)
}

impl App {
    async fn route(&self, req: Request<Incoming>) -> Response<Body> {
        if req.uri().path() != "/mcp" {
            return plain(StatusCode::NOT_FOUND, "not found: the MCP endpoint is /mcp");
        }
        let (mut parts, body) = req.into_parts();
        match self.tokens.admit(&parts.headers) {
            Admission::Proven(name) => {
                parts.extensions.insert(Proven(name));
            }
            Admission::Anonymous => {}
            Admission::Refused => {
                let mut response = plain(StatusCode::UNAUTHORIZED, "a bearer token is required");
                response.headers_mut().insert(
                    hyper::header::WWW_AUTHENTICATE,
                    hyper::header::HeaderValue::from_static("Bearer"),
                );
                return response;
            }
        }
        // Buffered (within the cap) to see which session request this is.
        let bytes = match http_body_util::Limited::new(body, self.max_bytes)
            .collect()
            .await
        {
            Ok(collected) => collected.to_bytes(),
            Err(_) => return too_large(self.max_bytes),
        };
        let watched = http_cancel::watched(&parts.headers, &bytes);
        let exchange = (self.wire.as_ref()).map(|wire| wire.request(&parts.headers, &bytes));
        let ends_session = parts.method == hyper::Method::DELETE;
        let mut response = self
            .call_mcp(Request::from_parts(parts, Full::new(bytes)))
            .await;
        if ends_session && response.status() == StatusCode::ACCEPTED {
            // rmcp answers a session's DELETE with 202, which clients read as a
            // failure (the python SDK logs "Session termination failed: 202"): the
            // session is gone, so 204.
            response = plain(StatusCode::NO_CONTENT, "");
        }
        let response = match exchange {
            Some(exchange) => exchange.response(response),
            None => response,
        };
        match watched {
            Some(watched) => {
                let mcp = self.mcp.clone();
                http_cancel::guard(response, move || {
                    let mut mcp = mcp;
                    let request = http_cancel::cancel_request(&watched);
                    tokio::spawn(async move {
                        let _ = tower_service::Service::call(&mut mcp, request).await;
                    });
                })
            }
            None => response,
        }
    }

    async fn call_mcp(&self, req: Request<Full<Bytes>>) -> Response<Body> {
        let mut mcp = self.mcp.clone();
        match tower_service::Service::call(&mut mcp, req).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}

/// 413 with the JSON-RPC error an oversized line gets on stdio; the id is unknown,
/// so `null`, as JSON-RPC 2.0 asks (rmcp would leave it out).
fn too_large(max: usize) -> Response<Body> {
    let message = ServerJsonRpcMessage::error(super::oversized(max), None);
    let mut wire = serde_json::to_value(&message).unwrap_or_default();
    if let Some(object) = wire.as_object_mut() {
        object.insert("id".to_owned(), serde_json::Value::Null);
    }
    let body = serde_json::to_vec(&wire).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}
