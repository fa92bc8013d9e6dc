//! Specs of the built-in tools, so that the gate (and `policy explain`) can classify their
//! calls before the tools themselves exist.

use serde_json::json;

use super::effect::ToolEffect;
use super::spec::{Subject, ToolSpec};

/// Names of the built-in tools.
pub const BUILTIN_NAMES: [&str; 5] = ["fs", "shell", "http", "memory", "skills"];

/// The spec of a built-in tool by name.
pub fn builtin_spec(name: &str) -> Option<ToolSpec> {
    match name {
        "fs" => Some(fs_spec()),
        "shell" => Some(shell_spec()),
        "http" => Some(http_spec()),
        "memory" => Some(memory_spec()),
        "skills" => Some(skills_spec()),
        _ => None,
    }
}

/// Files under the workspace: read/list/exists/stat → Read, write → Write, delete → Delete.
pub fn fs_spec() -> ToolSpec {
    ToolSpec::builder("fs")
        .title("Files")
        .description("Read, list, write and delete files under the workspace.")
        .input_schema(json!({
            "type": "object",
            "properties": {
                "operation": {"type": "string",
                    "enum": ["read", "list", "exists", "stat", "write", "delete"]},
                "path": {"type": "string"},
                "content": {"type": "string"}
            },
            "required": ["operation", "path"]
        }))
        .effect_argument("operation")
        .map_effect("read", ToolEffect::Read)
        .map_effect("list", ToolEffect::Read)
        .map_effect("exists", ToolEffect::Read)
        .map_effect("stat", ToolEffect::Read)
        .map_effect("write", ToolEffect::Write)
        .map_effect("delete", ToolEffect::Delete)
        .subject(Subject::Argument("path".into()))
        .build()
}

/// An allowlisted program run as argv: always Compute.
pub fn shell_spec() -> ToolSpec {
    ToolSpec::builder("shell")
        .title("Shell")
        .description("Run an allowlisted program with arguments (no shell).")
        .input_schema(json!({
            "type": "object",
            "properties": {
                "program": {"type": "string"},
                "args": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["program"]
        }))
        .default_effect(ToolEffect::Compute)
        .subject(Subject::CommandLine {
            program: "program".into(),
            args: "args".into(),
        })
        .build()
}

/// HTTP requests: GET (the default) → Read, any other method → Write.
pub fn http_spec() -> ToolSpec {
    ToolSpec::builder("http")
        .title("HTTP")
        .description("Fetch a URL from an allowlisted host.")
        .input_schema(json!({
            "type": "object",
            "properties": {
                "url": {"type": "string"},
                "method": {"type": "string", "default": "GET"},
                "body": {"type": "string"}
            },
            "required": ["url"]
        }))
        .default_effect(ToolEffect::Write)
        .effect_argument("method")
        .effect_argument_default("GET")
        .map_effect("get", ToolEffect::Read)
        .subject(Subject::Argument("url".into()))
        .build()
}

/// The memory tool (`memory_20250818` commands).
pub fn memory_spec() -> ToolSpec {
    ToolSpec::builder("memory")
        .title("Memory")
        .description("View, create, edit, rename and delete files under /memories.")
        .input_schema(json!({
            "type": "object",
            "properties": {
                "command": {"type": "string",
                    "enum": ["view", "create", "str_replace", "insert", "delete", "rename"]},
                "path": {"type": "string"}
            },
            "required": ["command"]
        }))
        .effect_argument("command")
        .map_effect("view", ToolEffect::Read)
        .map_effect("create", ToolEffect::Write)
        .map_effect("str_replace", ToolEffect::Write)
        .map_effect("insert", ToolEffect::Write)
        .map_effect("rename", ToolEffect::Write)
        .map_effect("delete", ToolEffect::Delete)
        .subject(Subject::Argument("path".into()))
        .build()
}

/// Reading skills: always Read.
pub fn skills_spec() -> ToolSpec {
    ToolSpec::builder("skills")
        .title("Skills")
        .description("List skills and read a skill's instructions.")
        .input_schema(json!({
            "type": "object",
            "properties": {"name": {"type": "string"}}
        }))
        .default_effect(ToolEffect::Read)
        .subject(Subject::Argument("name".into()))
        .build()
}
