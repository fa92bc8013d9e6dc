//! Serving the test server over Streamable HTTP (`/mcp`, rmcp's tower service) and
//! legacy HTTP+SSE (`GET /sse` → `endpoint` event, `POST /message?sessionId=…`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use crate::handler::TestServer;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    Streamable,
    LegacySse,
}

type Body = BoxBody<Bytes, Infallible>;
type Sessions = Arc<Mutex<HashMap<String, mpsc::Sender<ClientJsonRpcMessage>>>>;

#[derive(Clone)]
struct App {
    streamable: StreamableHttpService<TestServer, LocalSessionManager>,
    server: TestServer,
    sessions: Sessions,
    next: Arc<AtomicU64>,
}

pub async fn serve(server: TestServer, flavour: Flavour) -> Result<(), String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let path = match flavour {
        Flavour::Streamable => "mcp",
        Flavour::LegacySse => "sse",
    };
    crate::announce(&format!("http://127.0.0.1:{port}/{path}"));
    let factory = server.clone();
    let app = App {
        streamable: StreamableHttpService::new(
            move || Ok(factory.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        ),
        server,
        sessions: Sessions::default(),
        next: Arc::new(AtomicU64::new(0)),
    };
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let app = app.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let app = app.clone();
                async move { Ok::<_, Infallible>(app.route(req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}

impl App {
    async fn route(&self, req: Request<Incoming>) -> Response<Body> {
        let path = req.uri().path().to_owned();
        match (req.method().as_str(), path.as_str()) {
            (_, "/mcp") => {
                let mut service = self.streamable.clone();
                match tower_service::Service::call(&mut service, req).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                }
            }
            ("GET", "/sse") => self.open_sse(),
            ("POST", "/message") => self.post_message(req).await,
            _ => plain(StatusCode::NOT_FOUND, "not found"),
        }
    }

    /// A legacy SSE session: the endpoint event, then one `message` event per message.
    fn open_sse(&self) -> Response<Body> {
        let id = format!("s{}", self.next.fetch_add(1, Ordering::SeqCst));
        let (to_server, from_client) = mpsc::channel::<ClientJsonRpcMessage>(64);
        let (to_client, from_server) = mpsc::channel::<ServerJsonRpcMessage>(64);
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.insert(id.clone(), to_server);
        }
        let server = self.server.clone();
        tokio::spawn(async move {
            if let Ok(running) = server.serve((to_client, from_client)).await {
                let _ = running.waiting().await;
            }
        });
        let endpoint = format!("event: endpoint\ndata: /message?sessionId={id}\n\n");
        let first = futures::stream::once(async move { endpoint });
        let rest = from_server.map(|message| {
            let json = serde_json::to_string(&message).unwrap_or_default();
            format!("event: message\ndata: {json}\n\n")
        });
        let frames = first
            .chain(rest)
            .map(|text| Ok::<_, Infallible>(Frame::data(Bytes::from(text))));
        let mut response = Response::new(BodyExt::boxed(StreamBody::new(frames)));
        response.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/event-stream"),
        );
        response
    }

    async fn post_message(&self, req: Request<Incoming>) -> Response<Body> {
        let id = req
            .uri()
            .query()
            .and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("sessionId=")))
            .unwrap_or_default()
            .to_owned();
        let sender = self.sessions.lock().ok().and_then(|s| s.get(&id).cloned());
        let Some(mut sender) = sender else {
            return plain(StatusCode::NOT_FOUND, "no such session");
        };
        let Ok(body) = req.into_body().collect().await else {
            return plain(StatusCode::BAD_REQUEST, "unreadable body");
        };
        let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(&body.to_bytes()) else {
            return plain(StatusCode::BAD_REQUEST, "not JSON-RPC");
        };
        if sender.send(message).await.is_err() {
            return plain(StatusCode::GONE, "session closed");
        }
        plain(StatusCode::ACCEPTED, "accepted")
    }
}
