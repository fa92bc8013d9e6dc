//! Test tools for the gate tests.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use switchboard::gate::{ApprovalBroker, Preview};
use switchboard::policy::Policy;
use switchboard::tools::{Origin, Registry, Tool, ToolContext, ToolResult, ToolSpec};
use tokio::sync::Semaphore;

/// Shared record of what happened, in order.
pub type Journal = Arc<Mutex<Vec<String>>>;

/// A tool that records its calls and can be made to wait inside `invoke`.
pub struct FakeTool {
    pub spec: ToolSpec,
    pub label: String,
    pub calls: AtomicUsize,
    pub journal: Journal,
    /// When set, `invoke` waits for a permit (released by the test).
    pub hold: Option<Arc<Semaphore>>,
}

impl FakeTool {
    pub fn new(spec: ToolSpec) -> Self {
        Self {
            label: spec.name.clone(),
            spec,
            calls: AtomicUsize::new(0),
            journal: Journal::default(),
            hold: None,
        }
    }

    pub fn labelled(mut self, label: &str, journal: &Journal) -> Self {
        label.clone_into(&mut self.label);
        self.journal = Arc::clone(journal);
        self
    }

    pub fn held(mut self, hold: &Arc<Semaphore>) -> Self {
        self.hold = Some(Arc::clone(hold));
        self
    }

    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn note(&self, what: &str) {
        self.journal
            .lock()
            .unwrap()
            .push(format!("{}:{what}", self.label));
    }
}

#[async_trait::async_trait]
impl Tool for FakeTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, _args: Map<String, Value>, _ctx: &ToolContext) -> ToolResult {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.note("invoke");
        if let Some(hold) = &self.hold {
            hold.acquire().await.unwrap().forget();
        }
        self.note("done");
        ToolResult::text(format!("{} ran", self.label))
    }

    async fn start(&self) -> Result<(), switchboard::tools::ToolError> {
        self.note("start");
        Ok(())
    }

    async fn close(&self) {
        self.note("close");
    }

    fn preview(&self, args: &Map<String, Value>) -> Option<Preview> {
        Some(Preview::Text(Value::Object(args.clone()).to_string()))
    }
}

pub fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

pub fn ctx(run: &str) -> ToolContext {
    ToolContext::new(run, Origin::Model)
}

/// A registry with one fake tool built from `spec`.
pub async fn registry_with(
    policy: Policy,
    interactive: bool,
    spec: ToolSpec,
) -> (Arc<Registry>, Arc<FakeTool>) {
    let broker = Arc::new(ApprovalBroker::new(interactive));
    let registry = Arc::new(Registry::new(policy, broker));
    let tool = Arc::new(FakeTool::new(spec));
    registry.register(tool.clone()).await.unwrap();
    (registry, tool)
}
