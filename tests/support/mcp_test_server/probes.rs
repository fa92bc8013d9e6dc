//! `--misbehave probes`: tools that try what a sandbox should stop and say whether it
//! worked (`ok`, or `error: …` as a normal result, so a test reads the text).

use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::handler::arg;

pub fn tools() -> Vec<Value> {
    let path =
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    vec![
        json!({"name": "probe_write", "description": "Create a file (a relative path is under the temp dir).",
            "inputSchema": path, "annotations": {"readOnlyHint": true}}),
        json!({"name": "probe_read", "description": "Read a file.",
            "inputSchema": path, "annotations": {"readOnlyHint": true}}),
        json!({"name": "probe_connect", "description": "TCP connect to 127.0.0.1:port.",
            "inputSchema": {"type": "object", "properties": {"port": {"type": "integer"}}, "required": ["port"]},
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "probe_env", "description": "The names of the environment variables, one a line.",
            "inputSchema": {"type": "object", "properties": {}}, "annotations": {"readOnlyHint": true}}),
    ]
}

/// The probe's answer, or `None` for a tool that is not a probe.
pub fn run(request: &CallToolRequestParams) -> Option<Value> {
    let path = || {
        let given = arg(request, "path").and_then(Value::as_str).unwrap_or("");
        std::env::temp_dir().join(given)
    };
    let said = |result: std::io::Result<()>| match result {
        Ok(()) => "ok".to_owned(),
        Err(e) => format!("error: {e}"),
    };
    let text = match &*request.name {
        "probe_write" => said(std::fs::write(path(), "probe")),
        "probe_read" => said(std::fs::read(path()).map(drop)),
        "probe_connect" => {
            let port = arg(request, "port").and_then(Value::as_u64).unwrap_or(0);
            let addr =
                std::net::SocketAddr::from(([127, 0, 0, 1], u16::try_from(port).unwrap_or(0)));
            said(std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map(drop))
        }
        "probe_env" => {
            let mut names: Vec<String> = std::env::vars_os()
                .map(|(k, _)| k.to_string_lossy().into_owned())
                .collect();
            names.sort();
            names.join("\n")
        }
        _ => return None,
    };
    Some(json!({"content": [{"type": "text", "text": text}]}))
}
