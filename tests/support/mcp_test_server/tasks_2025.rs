//! `--misbehave tasks-2025` (and `tasks-2025-hidden`): a stdio server of protocol
//! 2025-11-25 with that revision's tasks, spoken as raw JSON-RPC (rmcp has no types
//! for them). It declares `tasks {list, cancel, requests.tools.call}` and lists:
//! - `research {topic, stages?, ask?}`: `execution.taskSupport: required`; a plain
//!   call fails with -32601. As a task it works `stages` (default 3) × 100 ms with a
//!   status message per stage; with `ask` it then needs input: `tasks/result` sends
//!   an `elicitation/create` (its `interpretation` has a default) and reports it.
//! - `lookup {key}`: `optional`; plain it answers at once, as a task after 100 ms.
//! - `echo {text}`: no `execution` (forbidden); always a plain call.
//!
//! `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` work as the spec says
//! (unknown ids and cancelling a finished task: -32602). `tasks-2025-hidden` declares
//! no tasks capability and marks no tool, yet behaves the same: a client learns that
//! `research` needs a task only from its -32601. With `SWITCHBOARD_TEST_MARKER=FILE`,
//! every `tools/call` line is appended to FILE (tests read how calls were sent).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

const STAGE: Duration = Duration::from_millis(100);
const RELATED: &str = "io.modelcontextprotocol/related-task";

struct Task {
    id: String,
    tool: String,
    topic: String,
    created: Instant,
    stages: u32,
    ask: bool,
    answer: Option<String>,
    cancelled: bool,
    ttl: u64,
}

impl Task {
    fn status(&self) -> (&'static str, Option<String>) {
        if self.cancelled {
            return ("cancelled", Some("cancelled by the client".into()));
        }
        let elapsed = self.created.elapsed();
        let done = STAGE * self.stages;
        if elapsed < done {
            let stage = elapsed.as_millis() / STAGE.as_millis() + 1;
            return ("working", Some(format!("stage {stage} of {}", self.stages)));
        }
        if self.ask && self.answer.is_none() {
            return ("input_required", Some("which meaning?".into()));
        }
        ("completed", None)
    }

    fn wire(&self) -> Value {
        let (status, message) = self.status();
        let mut task = json!({
            "taskId": self.id,
            "status": status,
            "createdAt": "2026-12-03T00:00:00Z",
            "lastUpdatedAt": "2026-12-03T00:00:00Z",
            "ttl": self.ttl,
            "pollInterval": 50,
        });
        if let Some(message) = message {
            task["statusMessage"] = json!(message);
        }
        task
    }

    fn result(&self) -> Value {
        let text = match (&self.tool[..], &self.answer) {
            ("lookup", _) => format!("looked up {}", self.topic),
            (_, Some(answer)) => format!("report on {} ({answer})", self.topic),
            (_, None) => format!("report on {}", self.topic),
        };
        json!({
            "content": [{"type": "text", "text": text}],
            "_meta": {RELATED: {"taskId": self.id}},
        })
    }
}

#[derive(Default)]
struct State {
    tasks: Vec<Task>,
    next: u64,
    /// Our requests to the client → who waits for the answer.
    pending: HashMap<String, oneshot::Sender<Value>>,
}

type Shared = Arc<Mutex<State>>;
type Out = mpsc::UnboundedSender<Value>;

pub async fn serve(hidden: bool) -> Result<(), String> {
    let (out, mut rx) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(message) = rx.recv().await {
            let mut line = message.to_string();
            line.push('\n');
            if stdout.write_all(line.as_bytes()).await.is_err() {
                break;
            }
            let _ = stdout.flush().await;
        }
    });
    let state = Shared::default();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if message.get("method").is_none() {
            answered(&state, &message);
            continue;
        }
        if message.get("method").and_then(Value::as_str) == Some("tools/call") {
            note(&line);
        }
        handle(&state, &out, &message, hidden);
    }
    drop(out);
    let _ = writer.await;
    Ok(())
}

fn note(line: &str) {
    if let Ok(path) = std::env::var("SWITCHBOARD_TEST_MARKER")
        && let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        use std::io::Write as _;
        let _ = writeln!(file, "{line}");
    }
}

/// The client's answer to one of our requests.
fn answered(state: &Shared, message: &Value) {
    let Some(id) = message.get("id").map(id_key) else {
        return;
    };
    let waiter = state.lock().ok().and_then(|mut s| s.pending.remove(&id));
    if let Some(waiter) = waiter {
        let _ = waiter.send(message.clone());
    }
}

fn id_key(id: &Value) -> String {
    id.as_str().map_or_else(|| id.to_string(), str::to_owned)
}

fn handle(state: &Shared, out: &Out, message: &Value, hidden: bool) {
    let id = message.get("id").cloned();
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let reply = match method {
        "initialize" => Ok(initialize(hidden)),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(tools(hidden)),
        "tools/call" => call(state, &params),
        "tasks/get" => with_task(state, &params, |t| Ok(t.wire())),
        "tasks/list" => Ok(list(state)),
        "tasks/cancel" => with_task(state, &params, cancel),
        "tasks/result" => {
            if let Some(id) = id {
                tokio::spawn(result(Arc::clone(state), out.clone(), id, params));
            }
            return;
        }
        _ if id.is_none() => return,
        other => Err((-32601, format!("Method not found: {other}"))),
    };
    let Some(id) = id else { return };
    let _ = out.send(match reply {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    });
}

fn initialize(hidden: bool) -> Value {
    let mut capabilities = json!({"tools": {"listChanged": false}});
    if !hidden {
        capabilities["tasks"] =
            json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
    }
    json!({
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "serverInfo": {"name": "test-tasks-2025", "version": "1.0.0"},
    })
}

fn tools(hidden: bool) -> Value {
    let object = |props: Value, required: Value| json!({"type": "object", "properties": props, "required": required});
    let mut research = json!({
        "name": "research",
        "description": "Researches a topic in stages (a task).",
        "inputSchema": object(json!({
            "topic": {"type": "string"},
            "stages": {"type": "integer"},
            "ask": {"type": "boolean"},
        }), json!(["topic"])),
        "annotations": {"readOnlyHint": true},
    });
    let mut lookup = json!({
        "name": "lookup",
        "description": "Looks a key up (a task if asked).",
        "inputSchema": object(json!({"key": {"type": "string"}}), json!(["key"])),
        "annotations": {"readOnlyHint": true},
    });
    if !hidden {
        research["execution"] = json!({"taskSupport": "required"});
        lookup["execution"] = json!({"taskSupport": "optional"});
    }
    let echo = json!({
        "name": "echo",
        "description": "Echoes text.",
        "inputSchema": object(json!({"text": {"type": "string"}}), json!(["text"])),
        "annotations": {"readOnlyHint": true},
    });
    json!({"tools": [research, lookup, echo]})
}

type Reply = Result<Value, (i64, String)>;

fn call(state: &Shared, params: &Value) -> Reply {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let args = params.get("arguments").cloned().unwrap_or(json!({}));
    let text = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let task = params.get("task");
    match (name, task) {
        ("echo", _) => Ok(json!({"content": [{"type": "text", "text": text("text")}]})),
        ("lookup", None) => {
            Ok(json!({"content": [{"type": "text", "text": format!("looked up {}", text("key"))}]}))
        }
        ("research", None) => Err((
            -32601,
            "Tool research requires task augmentation (taskSupport: 'required')".into(),
        )),
        ("research" | "lookup", Some(task)) => {
            let mut state = state.lock().map_err(|_| (-32603, "poisoned".to_owned()))?;
            state.next += 1;
            let research = name == "research";
            let created = Task {
                id: format!("task-{}", state.next),
                tool: name.to_owned(),
                topic: if research { text("topic") } else { text("key") },
                created: Instant::now(),
                stages: if research {
                    args.get("stages")
                        .and_then(Value::as_u64)
                        .and_then(|n| u32::try_from(n).ok())
                        .unwrap_or(3)
                } else {
                    1
                },
                ask: research && args.get("ask").and_then(Value::as_bool) == Some(true),
                answer: None,
                cancelled: false,
                ttl: task
                    .get("ttl")
                    .and_then(Value::as_u64)
                    .unwrap_or(60_000)
                    .min(300_000),
            };
            let wire = created.wire();
            state.tasks.push(created);
            Ok(json!({"task": wire}))
        }
        (other, _) => Err((-32602, format!("Unknown tool: {other}"))),
    }
}

fn with_task(state: &Shared, params: &Value, f: impl FnOnce(&mut Task) -> Reply) -> Reply {
    let id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
    let mut state = state.lock().map_err(|_| (-32603, "poisoned".to_owned()))?;
    match state.tasks.iter_mut().find(|t| t.id == id) {
        Some(task) => f(task),
        None => Err((-32602, "Failed to retrieve task: Task not found".into())),
    }
}

fn cancel(task: &mut Task) -> Reply {
    let (status, _) = task.status();
    if matches!(status, "completed" | "failed" | "cancelled") {
        return Err((
            -32602,
            format!("Cannot cancel task in terminal status: {status}"),
        ));
    }
    task.cancelled = true;
    Ok(task.wire())
}

fn list(state: &Shared) -> Value {
    let tasks: Vec<Value> = state
        .lock()
        .map(|s| s.tasks.iter().map(Task::wire).collect())
        .unwrap_or_default();
    json!({"tasks": tasks})
}

/// `tasks/result`: waits for the task to stop working, asks the client when it needs
/// input, and answers with the call's result.
async fn result(state: Shared, out: Out, id: Value, params: Value) {
    let reply = loop {
        let status = match with_task(&state, &params, |t| Ok(json!(t.status().0))) {
            Ok(status) => status.as_str().unwrap_or("").to_owned(),
            Err(e) => break Err(e),
        };
        match status.as_str() {
            "working" => tokio::time::sleep(STAGE / 4).await,
            "input_required" => ask(&state, &out, &params).await,
            "cancelled" => break Err((-32602, "Task was cancelled".into())),
            _ => break with_task(&state, &params, |t| Ok(t.result())),
        }
    };
    let _ = out.send(match reply {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    });
}

async fn ask(state: &Shared, out: &Out, params: &Value) {
    let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
    let request_id = format!("ask-{task_id}");
    let (tx, rx) = oneshot::channel();
    if let Ok(mut s) = state.lock() {
        s.pending.insert(request_id.clone(), tx);
    }
    let _ = out.send(json!({
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "Which meaning of the topic?",
            "requestedSchema": {
                "type": "object",
                "properties": {"interpretation": {
                    "type": "string",
                    "enum": ["the narrow one", "the broad one"],
                    "default": "the narrow one",
                }},
                "required": ["interpretation"],
            },
            "_meta": {RELATED: {"taskId": task_id}},
        },
    }));
    let answer = rx.await.unwrap_or(Value::Null);
    let interpretation = answer
        .pointer("/result/content/interpretation")
        .and_then(Value::as_str)
        .map_or_else(
            || {
                format!(
                    "no interpretation: {}",
                    answer
                        .pointer("/result/action")
                        .and_then(Value::as_str)
                        .unwrap_or("error")
                )
            },
            str::to_owned,
        );
    let _ = with_task(state, params, |t| {
        t.answer = Some(interpretation);
        Ok(Value::Null)
    });
}
