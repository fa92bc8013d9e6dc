//! Shared helpers for provider tests: endpoints with a recording sleeper, stream
//! collection and assembly.
#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use switchboard::llm::scripted_script::ScriptedTurn;
use switchboard::llm::{
    ChatRequest, Endpoint, FinishReason, LlmError, LlmEvent, LlmStream, Provider, RetryPolicy,
    ScriptedProvider, ToolCall, Usage,
};

pub type Sleeps = Arc<Mutex<Vec<Duration>>>;

/// An endpoint at `base` whose retries record their delay instead of sleeping.
pub fn endpoint(base: &str) -> (Endpoint, Sleeps) {
    let sleeps = Sleeps::default();
    let record = Arc::clone(&sleeps);
    let retry = RetryPolicy::default()
        .without_jitter()
        .with_sleep(Arc::new(move |d| {
            record.lock().unwrap().push(d);
            Box::pin(async {})
        }));
    let endpoint = Endpoint::new("test", base, "sk-test", "test-model", None)
        .unwrap()
        .with_retry(retry);
    (endpoint, sleeps)
}

/// Every event of a stream (hang guard: 30 s).
pub async fn collect(stream: LlmStream) -> Vec<LlmEvent> {
    tokio::time::timeout(Duration::from_secs(30), stream.collect::<Vec<_>>())
        .await
        .unwrap()
}

/// What a stream adds up to.
#[derive(Debug, Default)]
pub struct Assembled {
    pub text: String,
    pub calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
    pub finish: Option<FinishReason>,
    pub error: Option<LlmError>,
}

pub fn assemble(events: &[LlmEvent]) -> Assembled {
    let mut out = Assembled::default();
    let mut partial: Vec<(String, String, String, Option<String>)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let last = i + 1 == events.len();
        match e {
            LlmEvent::TextDelta(t) => out.text.push_str(t),
            LlmEvent::ToolCallStart { id, name } => {
                partial.push((id.clone(), name.clone(), String::new(), None));
            }
            LlmEvent::ToolCallDelta { id, fragment } => {
                let p = partial.iter_mut().find(|p| &p.0 == id).unwrap();
                p.2.push_str(fragment);
            }
            LlmEvent::ToolCallEnd { id, signature } => {
                let p = partial.iter_mut().find(|p| &p.0 == id).unwrap();
                p.3.clone_from(signature);
            }
            LlmEvent::Usage(u) => out.usage = Some(*u),
            LlmEvent::Finish(f) => {
                assert!(last, "Finish must be the last event: {events:?}");
                out.finish = Some(f.clone());
            }
            LlmEvent::Error(e) => {
                assert!(last, "Error must be the last event: {events:?}");
                out.error = Some(e.clone());
            }
        }
    }
    out.calls = partial
        .into_iter()
        .map(|(id, name, args, sig)| ToolCall::from_fragments(id, name, &args, sig))
        .collect();
    out
}

/// `data: …` lines, each followed by a blank line.
pub fn data_lines(chunks: &[&str]) -> String {
    let mut out = String::new();
    for c in chunks {
        let _ = write!(out, "data: {c}\n\n");
    }
    out
}

/// `event: NAME` + `data: …` pairs.
pub fn named_events(events: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (name, data) in events {
        let _ = write!(out, "event: {name}\ndata: {data}\n\n");
    }
    out
}

/// The scripted provider answering `turns` in order, remembering every request.
pub struct Recording {
    inner: ScriptedProvider,
    seen: Mutex<Vec<ChatRequest>>,
}

impl Recording {
    pub fn new(turns: Vec<ScriptedTurn>) -> Arc<Self> {
        Arc::new(Self {
            inner: ScriptedProvider::with_script(turns),
            seen: Mutex::default(),
        })
    }

    /// The requests sent so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.seen.lock().unwrap().clone()
    }
}

impl Provider for Recording {
    fn kind(&self) -> &'static str {
        "scripted"
    }
    fn model(&self) -> &'static str {
        "script"
    }
    fn stream(&self, request: ChatRequest) -> LlmStream {
        self.seen.lock().unwrap().push(request.clone());
        self.inner.stream(request)
    }
}
