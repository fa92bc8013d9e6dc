//! `long_task` (`--asking`): a tool call the server turns into a task (the tasks
//! extension) when the client declares it; `tasks/get` reports it working until
//! `millis` have passed (asking for a name first when `ask: true`), then completed
//! — or failed (`fail: true`), or cancelled by `tasks/cancel`.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::Instant;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams, GetTaskResult,
    UpdateTaskParams,
};
use serde_json::{Value, json};

struct Running {
    started: Instant,
    millis: u128,
    fail: bool,
    cancelled: bool,
    /// `ask: true`: a name is asked for before the work starts; then the answer.
    ask: bool,
    answer: Option<String>,
}

static TASKS: LazyLock<Mutex<HashMap<String, Running>>> = LazyLock::new(Mutex::default);

const STAMP: &str = "2026-12-01T00:00:00Z";

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

pub fn tool() -> Value {
    json!({"name": "long_task", "description": "Runs as a task for `millis` ms (`fail`, `ask`).",
        "inputSchema": {"type": "object", "properties": {"millis": {"type": "integer"},
            "fail": {"type": "boolean"}, "ask": {"type": "boolean"}}},
        "annotations": {"readOnlyHint": true}})
}

/// Starts the task (the client declared the extension) or answers at once.
pub fn start(
    request: &CallToolRequestParams,
    client_has_tasks: bool,
) -> Result<CallToolResponse, ErrorData> {
    let arg = |name: &str| request.arguments.as_ref().and_then(|a| a.get(name));
    if !client_has_tasks {
        return from_json::<rmcp::model::CallToolResult>(
            json!({"content": [{"type": "text", "text": "done without a task"}]}),
        )
        .map(CallToolResponse::Complete);
    }
    let mut tasks = TASKS
        .lock()
        .map_err(|_| ErrorData::internal_error("poisoned", None))?;
    let id = format!("task-{}", tasks.len() + 1);
    tasks.insert(
        id.clone(),
        Running {
            started: Instant::now(),
            millis: u128::from(arg("millis").and_then(Value::as_u64).unwrap_or(200)),
            fail: arg("fail").and_then(Value::as_bool) == Some(true),
            cancelled: false,
            ask: arg("ask").and_then(Value::as_bool) == Some(true),
            answer: None,
        },
    );
    from_json(
        json!({"resultType": "task", "taskId": id, "status": "working",
        "createdAt": STAMP, "lastUpdatedAt": STAMP, "ttlMs": 60000, "pollIntervalMs": 30}),
    )
    .map(CallToolResponse::Task)
}

pub fn get(params: &GetTaskParams) -> Result<GetTaskResult, ErrorData> {
    let tasks = TASKS
        .lock()
        .map_err(|_| ErrorData::internal_error("poisoned", None))?;
    let Some(task) = tasks.get(&params.task_id) else {
        return Err(ErrorData::invalid_params("no such task", None));
    };
    let base = json!({"taskId": params.task_id, "createdAt": STAMP, "lastUpdatedAt": STAMP,
        "ttlMs": 60000, "pollIntervalMs": 30});
    let mut wire = base;
    let done = task.started.elapsed().as_millis() >= task.millis;
    let status = if task.cancelled {
        "cancelled"
    } else if task.ask && task.answer.is_none() {
        wire["inputRequests"] = json!({"who": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Who runs this task?", "requestedSchema": {"type": "object",
            "properties": {"name": {"type": "string", "default": "Grace"}}, "required": ["name"]}}}});
        "input_required"
    } else if !done {
        wire["statusMessage"] = json!("still working");
        "working"
    } else if task.fail {
        wire["error"] = json!({"code": -32000, "message": "the task broke"});
        "failed"
    } else {
        let by = task.answer.clone().unwrap_or_else(|| "nobody".into());
        wire["result"] =
            json!({"content": [{"type": "text", "text": format!("task done (by {by})")}]});
        "completed"
    };
    wire["status"] = json!(status);
    from_json(wire)
}

pub fn update(params: &UpdateTaskParams) -> Result<(), ErrorData> {
    let mut tasks = TASKS
        .lock()
        .map_err(|_| ErrorData::internal_error("poisoned", None))?;
    if let Some(task) = tasks.get_mut(&params.task_id) {
        let answer = params.input_responses.get("who");
        task.answer = answer
            .and_then(|a| a["content"]["name"].as_str())
            .map(str::to_owned)
            .or_else(|| Some("(declined)".into()));
    }
    Ok(())
}

pub fn cancel(params: &CancelTaskParams) -> Result<(), ErrorData> {
    let mut tasks = TASKS
        .lock()
        .map_err(|_| ErrorData::internal_error("poisoned", None))?;
    if let Some(task) = tasks.get_mut(&params.task_id) {
        task.cancelled = true;
    }
    Ok(())
}
