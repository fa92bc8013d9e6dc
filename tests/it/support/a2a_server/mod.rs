//! A small A2A agent on 127.0.0.1 (port 0) for tests, speaking 1.0 or 0.3 JSON-RPC.
//!
//! What it does with a task depends on its text: `fail…` fails (status message
//! "could not do it"), `slow…` answers WORKING and completes after two `GetTask`s,
//! `hang…` works until cancelled, `input…` asks for input, `reply…` answers with a
//! message instead of a task, anything else completes with the artifact `echo: TEXT`.
//! Every request's method and headers are logged for assertions.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

mod shapes;
pub use shapes::Version;
use shapes::{Shapes, State};

type Body = BoxBody<Bytes, Infallible>;

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub version: Version,
    pub streaming: bool,
    /// Requests without `Authorization: Bearer TOKEN` get HTTP 401.
    pub token: Option<String>,
    /// With a token: the card is served to anyone (and advertises a bearer scheme);
    /// only the JSON-RPC requests need the token.
    pub card_public: bool,
}

/// One request the server saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    pub method: String,
    pub a2a_version: Option<String>,
    pub authorization: Option<String>,
}

#[derive(Debug, Clone)]
struct TaskRecord {
    state: State,
    text: String,
    polls: u32,
}

#[derive(Clone)]
struct App {
    options: Options,
    base: String,
    log: Arc<Mutex<Vec<Logged>>>,
    tasks: Arc<Mutex<HashMap<String, TaskRecord>>>,
}

pub struct Server {
    pub url: String,
    log: Arc<Mutex<Vec<Logged>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    pub async fn start(options: Options) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let log = Arc::new(Mutex::new(Vec::new()));
        let app = App {
            options,
            base: url.clone(),
            log: Arc::clone(&log),
            tasks: Arc::default(),
        };
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
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
        });
        Self { url, log, task }
    }

    /// The JSON-RPC methods called so far, in order.
    pub fn methods(&self) -> Vec<String> {
        self.log().into_iter().map(|l| l.method).collect()
    }

    pub fn log(&self) -> Vec<Logged> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

fn sse_response(events: Vec<Value>, hang: bool) -> Response<Body> {
    let frames = futures::stream::iter(events)
        .map(|e| format!("data: {e}\n\n"))
        .map(|text| Ok::<_, Infallible>(Frame::data(Bytes::from(text))));
    let body = if hang {
        BodyExt::boxed(StreamBody::new(frames.chain(futures::stream::pending())))
    } else {
        BodyExt::boxed(StreamBody::new(frames))
    };
    let mut response = Response::new(body);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/event-stream"),
    );
    response
}

impl App {
    fn shapes(&self) -> Shapes {
        Shapes(self.options.version)
    }

    async fn route(&self, req: Request<Incoming>) -> Response<Body> {
        let header = |n: &str| {
            req.headers()
                .get(n)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let (a2a_version, authorization) = (header("a2a-version"), header("authorization"));
        let open_card = self.options.card_public && req.method() == hyper::Method::GET;
        if let Some(token) = &self.options.token
            && !open_card
            && authorization.as_deref() != Some(&format!("Bearer {token}"))
        {
            return json_response(StatusCode::UNAUTHORIZED, &json!({"error": "unauthorized"}));
        }
        if req.method() == hyper::Method::GET {
            return match req.uri().path() {
                "/.well-known/agent-card.json" => {
                    let mut card = self.shapes().card(&self.base, self.options.streaming);
                    if self.options.card_public {
                        card["securitySchemes"] =
                            json!({"bearer": {"type": "http", "scheme": "bearer"}});
                    }
                    json_response(StatusCode::OK, &card)
                }
                _ => json_response(StatusCode::NOT_FOUND, &json!({})),
            };
        }
        let body = req.into_body().collect().await.unwrap().to_bytes();
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let method = request["method"].as_str().unwrap_or("").to_owned();
        self.log.lock().unwrap().push(Logged {
            method: method.clone(),
            a2a_version: a2a_version.clone(),
            authorization,
        });
        let id = request["id"].clone();
        let rpc = |result: Result<Value, (i64, &str)>| match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        };
        if self.options.version == Version::V1 && a2a_version.as_deref() != Some("1.0") {
            let error = rpc(Err((-32009, "VersionNotSupported: 0.3")));
            return json_response(StatusCode::OK, &error);
        }
        let params = &request["params"];
        match self.shapes().operation(&method) {
            Some("send") => json_response(StatusCode::OK, &rpc(Ok(self.send(params)))),
            Some("stream") => {
                let (events, hang) = self.stream(params);
                sse_response(events.into_iter().map(|e| rpc(Ok(e))).collect(), hang)
            }
            Some("get") => json_response(StatusCode::OK, &rpc(self.get(params, false))),
            Some("cancel") => json_response(StatusCode::OK, &rpc(self.get(params, true))),
            _ => json_response(StatusCode::OK, &rpc(Err((-32601, "Method not found")))),
        }
    }

    fn text_of(params: &Value) -> String {
        params["message"]["parts"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    fn new_task(&self, text: &str, state: State) -> String {
        let mut tasks = self.tasks.lock().unwrap();
        let id = format!("task-{}", tasks.len() + 1);
        let record = TaskRecord {
            state,
            text: text.to_owned(),
            polls: 0,
        };
        tasks.insert(id.clone(), record);
        id
    }

    fn task_json(&self, id: &str) -> Value {
        let record = self.tasks.lock().unwrap()[id].clone();
        self.shapes().task(id, record.state, &record.text)
    }

    /// The state a task of `text` ends in, and whether it gets there right away.
    fn plan(text: &str) -> (State, bool) {
        match text {
            t if t.starts_with("fail") => (State::Failed, true),
            t if t.starts_with("slow") => (State::Completed, false),
            t if t.starts_with("hang") => (State::Working, false),
            t if t.starts_with("input") => (State::InputRequired, true),
            _ => (State::Completed, true),
        }
    }

    fn send(&self, params: &Value) -> Value {
        let text = Self::text_of(params);
        if text.starts_with("reply") {
            return self.shapes().reply(&format!("direct: {text}"));
        }
        let (end, now) = Self::plan(&text);
        let id = self.new_task(&text, if now { end } else { State::Working });
        self.shapes().wrap_task(self.task_json(&id))
    }

    /// Stream events: the task SUBMITTED, WORKING, an artifact when completing, the end.
    fn stream(&self, params: &Value) -> (Vec<Value>, bool) {
        let text = Self::text_of(params);
        let (end, _) = Self::plan(&text);
        let id = self.new_task(&text, State::Submitted);
        let s = self.shapes();
        let mut events = vec![s.wrap_task(self.task_json(&id))];
        events.push(s.status(&id, State::Working, ""));
        self.tasks.lock().unwrap().get_mut(&id).unwrap().state = State::Working;
        if text.starts_with("hang") {
            return (events, true);
        }
        if end == State::Completed {
            events.push(s.artifact(&id, &format!("echo: {text}")));
        }
        events.push(s.status(&id, end, end.text()));
        self.tasks.lock().unwrap().get_mut(&id).unwrap().state = end;
        (events, false)
    }

    fn get(&self, params: &Value, cancel: bool) -> Result<Value, (i64, &'static str)> {
        let id = params["id"].as_str().unwrap_or("").to_owned();
        {
            let mut tasks = self.tasks.lock().unwrap();
            let record = tasks.get_mut(&id).ok_or((-32001, "TaskNotFound"))?;
            if cancel {
                if record.state.is_terminal() {
                    return Err((-32002, "TaskNotCancelable"));
                }
                record.state = State::Canceled;
            } else if record.text.starts_with("slow") {
                record.polls += 1;
                if record.polls >= 2 {
                    record.state = State::Completed;
                }
            }
        }
        Ok(self.task_json(&id))
    }
}
