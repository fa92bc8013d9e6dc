//! Talking to one remote agent: JSON-RPC over HTTP, SSE for streams, polling
//! `GetTask` until the task ends, `CancelTask` on request.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use reqwest::header::{ACCEPT, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::A2aError;
use super::card::{AgentCard, ProtocolVersion, card_url};
use super::progress::{Outcome, Progress};
use super::wire::{self, Task, TaskState, Update};

/// The largest JSON answer or stream read from an agent (hostile servers are cut off).
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Credentials for a remote agent; secrets are named by environment variable only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct A2aAuth {
    /// Plain extra headers.
    pub headers: BTreeMap<String, String>,
    /// Sent as `Authorization: Bearer <value>`.
    pub bearer_token_env_var: Option<String>,
    /// Sent in `api_key_header` (default `X-API-Key`).
    pub api_key_env_var: Option<String>,
    pub api_key_header: Option<String>,
}

impl A2aAuth {
    /// The headers to send; a named variable that is unset is an error.
    pub fn header_map(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<HeaderMap, A2aError> {
        let mut map = HeaderMap::new();
        let mut put = |name: &str, value: String, sensitive: bool| {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| A2aError::Auth(format!("bad header name {name}")))?;
            let mut value = HeaderValue::from_str(&value)
                .map_err(|_| A2aError::Auth(format!("bad value for header {name}")))?;
            value.set_sensitive(sensitive);
            map.insert(name, value);
            Ok::<_, A2aError>(())
        };
        for (name, value) in &self.headers {
            put(name, value.clone(), false)?;
        }
        let secret = |var: &str| {
            env(var)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| A2aError::Auth(format!("set the environment variable {var}")))
        };
        if let Some(var) = &self.bearer_token_env_var {
            put("authorization", format!("Bearer {}", secret(var)?), true)?;
        }
        if let Some(var) = &self.api_key_env_var {
            let header = self.api_key_header.as_deref().unwrap_or("X-API-Key");
            put(header, secret(var)?, true)?;
        }
        Ok(map)
    }
}

/// A connection to one remote agent.
#[derive(Debug)]
pub struct A2aClient {
    http: reqwest::Client,
    card: AgentCard,
    headers: HeaderMap,
    next_id: AtomicU64,
    poll: Duration,
}

impl A2aClient {
    /// Reads the agent card at `base_url` and prepares to speak the version it lists.
    pub async fn connect(base_url: &str, headers: HeaderMap) -> Result<Self, A2aError> {
        let http = crate::tls::client_builder()
            .connect_timeout(Duration::from_secs(30))
            .read_timeout(Duration::from_secs(300))
            .build()
            .map_err(|e| transport(base_url, &e))?;
        let url = card_url(base_url)?;
        let response = http
            .get(url.clone())
            .headers(headers.clone())
            .send()
            .await
            .map_err(|e| transport(url.as_str(), &e))?;
        let value = read_json(url.as_str(), response).await?;
        let card = AgentCard::parse(&value, &url)?;
        Ok(Self {
            http,
            card,
            headers,
            next_id: AtomicU64::new(1),
            poll: Duration::from_millis(500),
        })
    }

    /// Polls `GetTask` this often while a task runs (default 0.5 s).
    #[must_use]
    pub fn with_poll_interval(mut self, poll: Duration) -> Self {
        self.poll = poll;
        self
    }

    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    pub fn version(&self) -> ProtocolVersion {
        self.card.interface.version
    }

    /// One JSON-RPC request; its `result`.
    async fn call(&self, operation: &str, params: Value) -> Result<Value, A2aError> {
        let response = self.post(operation, params, "application/json").await?;
        let url = &self.card.interface.url;
        rpc_result(read_json(url, response).await?)
    }

    async fn post(
        &self,
        operation: &str,
        params: Value,
        accept: &'static str,
    ) -> Result<reqwest::Response, A2aError> {
        let url = &self.card.interface.url;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id,
            "method": wire::method(operation, self.version()), "params": params});
        let mut request = self
            .http
            .post(url)
            .headers(self.headers.clone())
            .header(ACCEPT, accept)
            .json(&body);
        if self.version() == ProtocolVersion::V1_0 {
            request = request.header("A2A-Version", "1.0");
        }
        let response = request.send().await.map_err(|e| transport(url, &e))?;
        if !response.status().is_success() {
            return Err(A2aError::Status {
                url: url.clone(),
                status: response.status().as_u16(),
            });
        }
        Ok(response)
    }

    /// `SendMessage`: the task (or direct reply) the server answers with.
    pub async fn send(&self, text: &str) -> Result<Update, A2aError> {
        let params = wire::send_params(text, &message_id(), self.version());
        wire::parse_result(&self.call("send", params).await?)
    }

    /// `GetTask`.
    pub async fn get_task(&self, id: &str) -> Result<Task, A2aError> {
        wire::parse_task(&self.call("get", json!({"id": id})).await?)
    }

    /// `CancelTask`: the task as it is after cancelling.
    pub async fn cancel_task(&self, id: &str) -> Result<Task, A2aError> {
        wire::parse_task(&self.call("cancel", json!({"id": id})).await?)
    }

    /// Runs `text` as a task to its end: streams when the card allows, polls
    /// `GetTask` until the task is terminal or waits for input; every update goes to
    /// `updates`. When `cancel` fires, the task is cancelled on the server and the
    /// outcome is `canceled`.
    pub async fn run(
        &self,
        text: &str,
        updates: Option<&mpsc::UnboundedSender<Update>>,
        cancel: &CancellationToken,
    ) -> Result<Outcome, A2aError> {
        let progress = Mutex::new(Progress::default());
        let apply = |update: Update| {
            if let Ok(mut p) = progress.lock() {
                p.apply(&update);
            }
            if let Some(tx) = updates {
                let _ = tx.send(update);
            }
        };
        let is_done = || progress.lock().is_ok_and(|p| p.done());
        let follow = async {
            if self.card.streaming {
                self.stream(text, &apply, &is_done).await?;
            } else {
                apply(self.send(text).await?);
            }
            while !is_done() {
                let id = progress.lock().ok().and_then(|p| p.task_id.clone());
                let Some(id) = id else {
                    return Err(A2aError::Decode(
                        "the answer named no task to follow".into(),
                    ));
                };
                tokio::time::sleep(self.poll).await;
                apply(Update::Task(self.get_task(&id).await?));
            }
            Ok(())
        };
        tokio::select! {
            result = follow => result?,
            () = cancel.cancelled() => self.cancel_known(&progress).await,
        }
        progress
            .lock()
            .map(|p| p.outcome())
            .map_err(|_| A2aError::Decode("internal state poisoned".into()))
    }

    /// After a cancel request: `CancelTask` for the task, if there is one.
    async fn cancel_known(&self, progress: &Mutex<Progress>) {
        let id = progress.lock().ok().and_then(|p| p.task_id.clone());
        let answer = match &id {
            Some(id) => Some(self.cancel_task(id).await),
            None => None,
        };
        if let Ok(mut p) = progress.lock() {
            p.state = Some(TaskState::Canceled);
            if let Some(Err(e)) = answer {
                p.status_text = format!("cancelled here; the agent said: {e}");
            }
        }
    }

    /// `SendStreamingMessage`: applies each event until the server closes the stream
    /// or the task is done.
    async fn stream(
        &self,
        text: &str,
        apply: &(dyn Fn(Update) + Sync),
        done: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), A2aError> {
        let url = self.card.interface.url.clone();
        let params = wire::send_params(text, &message_id(), self.version());
        let response = self.post("stream", params, "text/event-stream").await?;
        let is_sse = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_sse {
            // A server may answer a stream request with one JSON-RPC response.
            apply(wire::parse_result(&rpc_result(
                read_json(&url, response).await?,
            )?)?);
            return Ok(());
        }
        let mut events = Box::pin(crate::sse::events(capped(response.bytes_stream())));
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| A2aError::Transport {
                url: url.clone(),
                message: e.to_string(),
            })?;
            if event.data.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(&event.data)
                .map_err(|e| A2aError::Decode(format!("bad stream event: {e}")))?;
            apply(wire::parse_result(&rpc_result(value)?)?);
            if done() {
                break;
            }
        }
        Ok(())
    }
}

/// The bytes of a body, failing once more than [`MAX_BODY_BYTES`] arrived.
fn capped<S>(bytes: S) -> BoxStream<'static, Result<bytes::Bytes, std::io::Error>>
where
    S: Stream<Item = reqwest::Result<bytes::Bytes>> + Send + 'static,
{
    let mut total = 0usize;
    bytes
        .map(move |chunk| {
            let chunk = chunk.map_err(std::io::Error::other)?;
            total += chunk.len();
            if total > MAX_BODY_BYTES {
                return Err(std::io::Error::other("the agent sent more than 16 MiB"));
            }
            Ok(chunk)
        })
        .boxed()
}

async fn read_json(url: &str, response: reqwest::Response) -> Result<Value, A2aError> {
    let status = response.status();
    if !status.is_success() {
        return Err(A2aError::Status {
            url: url.to_owned(),
            status: status.as_u16(),
        });
    }
    let mut body = Vec::new();
    let mut chunks = capped(response.bytes_stream());
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| A2aError::Transport {
            url: url.to_owned(),
            message: e.to_string(),
        })?;
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| A2aError::Decode(format!("not JSON from {url}: {e}")))
}

/// The `result` of a JSON-RPC response, or its `error`.
fn rpc_result(mut response: Value) -> Result<Value, A2aError> {
    if let Some(error) = response.get("error") {
        return Err(A2aError::Rpc {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        });
    }
    match response.get_mut("result") {
        Some(result) => Ok(result.take()),
        None => Err(A2aError::Decode(
            "a JSON-RPC response without result".into(),
        )),
    }
}

fn transport(url: &str, error: &reqwest::Error) -> A2aError {
    A2aError::Transport {
        url: url.to_owned(),
        message: crate::tls::error_chain(error),
    }
}

/// A message id unique enough for one client: time and a process-wide counter.
fn message_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("sb-{nanos:x}-{}", COUNTER.fetch_add(1, Ordering::Relaxed))
}
