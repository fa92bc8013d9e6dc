//! What a server of protocol 2025-11-25 says about tasks, read from the raw wire.
//!
//! In that revision (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks)
//! a server declares `capabilities.tasks.requests.tools.call` and marks each tool with
//! `execution.taskSupport`: `forbidden` (the default), `optional` or `required`; a
//! call to a `required` tool without `params.task` fails with -32601. rmcp 3.11 reads
//! neither field (its `Tool` and `ServerCapabilities` drop them), so the transports
//! hand each raw message to [`TaskSupport::inspect`] before rmcp decodes it: stdio
//! through [`super::stdio_child`], Streamable HTTP event streams through the refusal
//! tap. A JSON (not event-stream) HTTP answer is decoded inside rmcp and never seen
//! here; a `required` tool of such a server is found by its -32601 instead (see
//! `tasks_2025`).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use memchr::memmem::Finder;
use serde::Serialize;
use serde_json::Value;

/// How a tool may be called as a task (`execution.taskSupport`); forbidden is `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskMode {
    /// Either way; a task when the caller will not wait (`call --no-wait`).
    Optional,
    /// Only as a task.
    Required,
}

#[derive(Debug, Default)]
struct Seen {
    /// The server declared `tasks.requests.tools.call` in its last `initialize`.
    tool_calls: bool,
    /// It declared `tasks` at all (so `tasks/get` and `tasks/cancel` are its own).
    tasks: bool,
    /// Each tool's mode as the last `tools/list` page naming it said.
    tools: HashMap<String, TaskMode>,
}

/// One server's task facts, shared by its transport (which writes) and its handle
/// (which reads). Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct TaskSupport(Arc<Mutex<Seen>>);

/// Raw messages worth parsing: an `initialize` answer or a `tools/list` page. Built
/// once: every line a stdio server writes is searched for them.
static MARKERS: LazyLock<[Finder<'static>; 2]> = LazyLock::new(|| {
    [
        Finder::new(b"\"serverInfo\""),
        Finder::new(b"\"inputSchema\""),
    ]
});

impl TaskSupport {
    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads one raw message from the server (a line of stdio, an event's data).
    /// Only answers that can carry task facts are parsed.
    pub fn inspect(&self, raw: &[u8]) {
        if !MARKERS.iter().any(|m| m.find(raw).is_some()) {
            return;
        }
        let Ok(message) = serde_json::from_slice::<Value>(raw) else {
            return;
        };
        let Some(result) = message.get("result") else {
            return;
        };
        if let Some(tools) = result.get("tools").and_then(Value::as_array) {
            let mut seen = self.seen();
            for tool in tools {
                let Some(name) = tool.get("name").and_then(Value::as_str) else {
                    continue;
                };
                match mode_of(tool) {
                    Some(mode) => seen.tools.insert(name.to_owned(), mode),
                    None => seen.tools.remove(name),
                };
            }
        } else if result.get("serverInfo").is_some() {
            let tasks = result.pointer("/capabilities/tasks");
            let mut seen = self.seen();
            seen.tasks = tasks.is_some_and(Value::is_object);
            seen.tool_calls = tasks
                .and_then(|t| t.pointer("/requests/tools/call"))
                .is_some_and(Value::is_object);
        }
    }

    /// How `tool` may be called as a task; `None` when it may not (or the server did
    /// not declare task-augmented calls, when the mode must be ignored).
    pub fn mode(&self, tool: &str) -> Option<TaskMode> {
        let seen = self.seen();
        if !seen.tool_calls {
            return None;
        }
        seen.tools.get(tool).copied()
    }

    /// The server declared the 2025-11-25 `tasks` capability.
    pub fn declared(&self) -> bool {
        self.seen().tasks
    }
}

fn mode_of(tool: &Value) -> Option<TaskMode> {
    match tool.pointer("/execution/taskSupport")?.as_str()? {
        "optional" => Some(TaskMode::Optional),
        "required" => Some(TaskMode::Required),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: &Value) -> Vec<u8> {
        serde_json::to_vec(v).unwrap()
    }

    fn initialize(tasks: &Value) -> Vec<u8> {
        line(&serde_json::json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "tasks": tasks},
            "serverInfo": {"name": "s", "version": "1"},
        }}))
    }

    fn tools() -> Vec<u8> {
        line(
            &serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
                {"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
                {"name": "maybe", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
                {"name": "echo", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "forbidden"}},
                {"name": "plain", "inputSchema": {"type": "object"}},
                {"inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
            ]}}),
        )
    }

    #[test]
    fn modes_come_from_the_list_once_the_server_declares_task_calls() {
        let support = TaskSupport::default();
        support.inspect(&tools());
        assert_eq!(support.mode("research"), None, "not declared yet");
        support.inspect(&initialize(
            &serde_json::json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
        ));
        assert!(support.declared());
        assert_eq!(support.mode("research"), Some(TaskMode::Required));
        assert_eq!(support.mode("maybe"), Some(TaskMode::Optional));
        assert_eq!(support.mode("echo"), None);
        assert_eq!(support.mode("plain"), None);
        assert_eq!(support.mode("unknown"), None);
    }

    #[test]
    fn a_server_without_task_calls_has_no_modes_and_a_relist_updates_them() {
        let support = TaskSupport::default();
        support.inspect(&initialize(&serde_json::json!({"list": {}, "cancel": {}})));
        support.inspect(&tools());
        assert!(support.declared());
        assert_eq!(support.mode("research"), None);

        support.inspect(&initialize(
            &serde_json::json!({"requests": {"tools": {"call": {}}}}),
        ));
        assert_eq!(support.mode("research"), Some(TaskMode::Required));
        support.inspect(&line(
            &serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": {
                "tools": [{"name": "research", "inputSchema": {}}]
            }}),
        ));
        assert_eq!(support.mode("research"), None, "no longer marked");
    }

    #[test]
    fn other_messages_and_garbage_change_nothing() {
        let support = TaskSupport::default();
        support.inspect(b"{\"serverInfo\": not json");
        support.inspect(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"inputSchema\":1}}");
        support.inspect(&line(
            &serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {
                "content": [{"type": "text", "text": "\"inputSchema\" \"serverInfo\""}]
            }}),
        ));
        assert!(!support.declared());
        assert_eq!(support.mode("research"), None);
    }
}
