//! A workspace, an outside directory and a registry with the built-in tools, for the
//! built-in tool tests. Calls go through `Registry::invoke`, like every real call.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use switchboard::config::Config;
use switchboard::gate::ApprovalBroker;
use switchboard::paths::Dirs;
use switchboard::policy::{Mode, Policy};
use switchboard::settings::parse_str;
use switchboard::tools::builtin::{BuiltinSummary, register_builtins};
use switchboard::tools::{Origin, Registry, Tool, ToolContext, ToolResult};
use tempfile::TempDir;

pub struct Bench {
    pub tmp: TempDir,
    pub workspace: PathBuf,
    /// A directory next to the workspace that no tool may reach.
    pub outside: PathBuf,
    // No test reads these two yet; they are the bench as built, for the next one.
    #[allow(dead_code)]
    pub dirs: Dirs,
    #[allow(dead_code)]
    pub config: Config,
    pub registry: Arc<Registry>,
    pub summary: BuiltinSummary,
}

pub fn config(toml: &str) -> Config {
    parse_str(toml, Path::new("test.toml")).unwrap()
}

/// Built-ins registered under `toml`, policy `full-auto` (so only the tools' own rules
/// refuse).
pub async fn bench(toml: &str) -> Bench {
    bench_with(toml, Policy::new(Mode::FullAuto), false).await
}

pub async fn bench_with(toml: &str, policy: Policy, interactive: bool) -> Bench {
    bench_prepared(toml, policy, interactive, |_| {}).await
}

/// Like [`bench_with`]; `prepare` gets the workspace before the tools are registered.
pub async fn bench_prepared(
    toml: &str,
    policy: Policy,
    interactive: bool,
    prepare: impl FnOnce(&Path),
) -> Bench {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "top secret\n").unwrap();
    prepare(&workspace);
    let dirs = Dirs::new(
        &workspace,
        tmp.path().join("config"),
        tmp.path().join("state"),
        tmp.path().join("data"),
    );
    let config = config(toml);
    let registry = Arc::new(Registry::new(
        policy,
        Arc::new(ApprovalBroker::new(interactive)),
    ));
    let summary = register_builtins(&registry, &config, &dirs, &workspace)
        .await
        .unwrap();
    Bench {
        tmp,
        workspace,
        outside,
        dirs,
        config,
        registry,
        summary,
    }
}

pub fn ctx() -> ToolContext {
    ToolContext::new("test-run", Origin::Model)
}

pub fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

impl Bench {
    pub async fn call(&self, tool: &str, value: Value) -> ToolResult {
        self.registry
            .invoke(tool, args(value), &ctx())
            .await
            .into_result()
    }

    /// Replaces `name` with `tool` (e.g. one built with a test hook).
    pub async fn swap(&self, name: &str, tool: Arc<dyn Tool>) {
        self.registry.replace(name, tool).await.unwrap();
    }

    /// Everything under the temp dir: path → content (files), `dir`, or `-> target`.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, String> {
        snapshot(self.tmp.path())
    }
}

pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap().to_path_buf();
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            let target = std::fs::read_link(&path).unwrap();
            out.insert(rel, format!("-> {}", target.display()));
        } else if kind.is_dir() {
            out.insert(rel, "dir".into());
            walk(root, &path, out);
        } else {
            let meta = std::fs::metadata(&path).unwrap();
            let text = if meta.len() > 1 << 20 {
                format!("{} bytes", meta.len())
            } else {
                String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()
            };
            out.insert(rel, text);
        }
    }
}

/// Asserts the call was refused with a message containing `needle`.
#[track_caller]
pub fn assert_refused(result: &ToolResult, needle: &str) {
    let text = result.text_content();
    assert!(result.is_error, "expected a refusal, got success: {text}");
    assert!(
        text.contains(needle),
        "refusal {text:?} does not contain {needle:?}"
    );
}

/// A context whose gate events come out of the returned receiver.
pub fn observed_ctx() -> (
    ToolContext,
    tokio::sync::mpsc::UnboundedReceiver<switchboard::gate::GateEvent>,
) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let observer: Arc<dyn switchboard::gate::GateObserver> = Arc::new(tx);
    (ctx().with_observer(observer), rx)
}

/// The next approval request among the gate's events.
pub async fn next_request(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<switchboard::gate::GateEvent>,
) -> switchboard::gate::ApprovalRequest {
    loop {
        match crate::support::within(rx.recv()).await {
            Some(switchboard::gate::GateEvent::ApprovalRequested(r)) => return r,
            Some(_) => {}
            None => panic!("no approval request"),
        }
    }
}
