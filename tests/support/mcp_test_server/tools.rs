//! The test server's tools (`TestServer::run_tool`): echo, arithmetic, progress,
//! limits, errors, list changes, content kinds, logging, roots.

#![allow(deprecated)] // logging is deprecated in 2026-07-28 but what servers in the wild use

use std::sync::atomic::Ordering;

use rmcp::model::{CallToolRequestParams, LoggingMessageNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

use crate::data;
use crate::handler::{TestServer, arg, from_json};

impl TestServer {
    #[allow(
        clippy::too_many_lines,
        reason = "a flat dispatcher: one arm per tool of the test server"
    )]
    pub async fn run_tool(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let name: &str = &request.name;
        if &*self.misbehave == "stderr-flood" {
            flood_stderr();
        }
        Ok(match name {
            "echo" => {
                let text = arg(request, "text").and_then(Value::as_str).unwrap_or("");
                json!({"content": [{"type": "text", "text": text}]})
            }
            "add" => {
                let a = arg(request, "a").and_then(Value::as_f64).unwrap_or(0.0);
                let b = arg(request, "b").and_then(Value::as_f64).unwrap_or(0.0);
                let sum = a + b;
                if &*self.misbehave == "bad-structured" {
                    // Not what the outputSchema promises: `sum` as a string.
                    return Ok(
                        json!({"content": [{"type": "text", "text": format!("{sum}")}],
                        "structuredContent": {"sum": format!("{sum}")}}),
                    );
                }
                if &*self.misbehave == "stamped" {
                    // A field that differs on every call, as a clock's would.
                    let at = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_nanos());
                    let data = json!({"sum": sum, "timestamp": at.to_string()});
                    return Ok(
                        json!({"content": [{"type": "text", "text": data.to_string()}],
                        "structuredContent": data}),
                    );
                }
                json!({"content": [{"type": "text", "text": format!("{{\"sum\":{sum}}}")}],
                    "structuredContent": {"sum": sum}})
            }
            "slow" => return crate::slow::slow(request, context).await,
            "big" => {
                let chars = arg(request, "chars")
                    .and_then(Value::as_u64)
                    .unwrap_or(1000);
                let blocks = arg(request, "blocks")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .max(1);
                let per = usize::try_from(chars / blocks).unwrap_or(0);
                let content: Vec<Value> = (0..blocks)
                    .map(|_| json!({"type": "text", "text": "x".repeat(per)}))
                    .collect();
                json!({ "content": content })
            }
            "fail" => {
                json!({"content": [{"type": "text", "text": "the tool failed"}], "isError": true})
            }
            "remote_error" => {
                // `url: true`: URLElicitationRequiredError (-32042), the URL in its data.
                if arg(request, "url").and_then(Value::as_bool) == Some(true) {
                    return Err(ErrorData::new(
                        rmcp::model::ErrorCode(-32042),
                        "This request requires more information.",
                        Some(
                            json!({"elicitations": [{"mode": "url", "elicitationId": "e-1",
                            "url": "https://example.com/connect?state=\u{1b}[31mx",
                            "message": "Connect your account."}]}),
                        ),
                    ));
                }
                return Err(ErrorData::invalid_params("remote says no", None));
            }
            "add_tool" => {
                self.extra_tool.store(true, Ordering::SeqCst);
                // `times`: announce it that many times in a burst (a re-list storm).
                let times = arg(request, "times").and_then(Value::as_u64).unwrap_or(1);
                for _ in 0..times {
                    let _ = context.peer.notify_tool_list_changed().await;
                }
                let _ = crate::subs::BUS.send(crate::subs::Change::Tools);
                json!({"content": [{"type": "text", "text": "added extra"}]})
            }
            "delete_thing" => json!({"content": [{"type": "text", "text": "deleted"}]}),
            "write_thing" => json!({"content": [{"type": "text", "text": "written"}]}),
            "mixed" => json!({"content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "audio", "data": "aGVsbG8=", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "test://text/1", "name": "text-1", "mimeType": "text/plain"},
                {"type": "resource", "resource": {"uri": "test://text/2", "mimeType": "text/plain", "text": "embedded"}}
            ]}),
            "log" => {
                // 2026-07-28 carries the level in each request's `_meta`.
                let least = context
                    .meta
                    .log_level()
                    .map_or_else(|| self.log_level.load(Ordering::SeqCst), rank);
                for (rank, level) in ["debug", "info", "warning", "error"]
                    .into_iter()
                    .enumerate()
                {
                    if rank < usize::from(least) {
                        continue;
                    }
                    let param: LoggingMessageNotificationParam = from_json(
                        json!({"level": level, "logger": "test", "data": format!("a {level} message")}),
                    )?;
                    #[allow(deprecated)]
                    let _ = context.peer.notify_logging_message(param).await;
                }
                json!({"content": [{"type": "text", "text": "logged"}]})
            }
            "plain" => {
                if arg(request, "exit").and_then(Value::as_bool) == Some(true) {
                    std::process::exit(9);
                }
                // `roots: true` asks the client for its roots (roots/list) and lists them.
                if arg(request, "roots").and_then(Value::as_bool) == Some(true) {
                    let declared = context
                        .peer
                        .peer_info()
                        .is_some_and(|info| info.capabilities.roots.is_some());
                    if !declared {
                        return from_json(json!({"content": [{"type": "text",
                            "text": "the client does not declare roots"}], "isError": true}));
                    }
                    let roots = context
                        .peer
                        .list_roots()
                        .await
                        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    let uris: Vec<String> = roots.roots.into_iter().map(|r| r.uri).collect();
                    return from_json(
                        json!({"content": [{"type": "text", "text": uris.join("\n")}]}),
                    );
                }
                json!({"content": [{"type": "text", "text": "plain ok"}]})
            }
            "regional" | "bad_header" => {
                let got = context
                    .extensions
                    .get::<hyper::http::request::Parts>()
                    .and_then(|p| p.headers.get("mcp-param-region"))
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("(none)");
                json!({"content": [{"type": "text", "text": format!("Mcp-Param-Region: {got}")}]})
            }
            n if n == data::LONG_NAME || n == data::ODD_NAME => {
                json!({"content": [{"type": "text", "text": format!("called {n}")}]})
            }
            "extra" if self.extra_tool.load(Ordering::SeqCst) => {
                json!({"content": [{"type": "text", "text": "extra ok"}]})
            }
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        })
    }
}

/// 20 000 stderr lines at once, as a chatty server does on every call.
fn flood_stderr() {
    use std::io::Write as _;
    let mut err = std::io::stderr().lock();
    for i in 0..20_000 {
        let _ = writeln!(err, "flood line {i}: {}", "x".repeat(100));
    }
    let _ = err.flush();
}

/// A level's rank for `log` (0 debug, 1 info, 2 warning, 3 error).
pub fn rank(level: rmcp::model::LoggingLevel) -> u8 {
    let wire = serde_json::to_value(level).unwrap_or_default();
    match wire.as_str().unwrap_or("debug") {
        "debug" => 0,
        "info" | "notice" => 1,
        "warning" => 2,
        _ => 3,
    }
}
