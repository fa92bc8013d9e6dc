//! The app's JSON-RPC, answered by switchboard (MCP Apps, "Communication
//! Protocol"): `ui/initialize`; `tools/call` through the gate with origin `app`;
//! `resources/read` from the app's own server; `ui/open-link` only when the person
//! says yes; `ui/message` and `ui/update-model-context` shown to the person, never
//! sent to a model.

use serde_json::{Map, Value, json};

use super::session::{AppNote, AppSession};
use crate::mcp::wire::Direction;
use crate::mcp::{ElicitationAnswer, ElicitationKind, ElicitationRequest, qualified_name};
use crate::policy::ServerRequestRecord;
use crate::tools::{CallOutcome, InvokeError, ToolContext};

/// The revision of the MCP Apps spec this host speaks.
pub const PROTOCOL_VERSION: &str = "2026-01-26";

/// What the host page does with one message from the app.
#[derive(Debug, Default, PartialEq)]
pub struct Reply {
    /// The response to a request (none for a notification).
    pub reply: Option<Value>,
    /// Notifications to post to the app after it.
    pub deliver: Vec<Value>,
    /// Start waiting for the call's outcome (the app has initialised).
    pub poll: bool,
}

/// A JSON-RPC error.
struct RpcError {
    code: i64,
    message: String,
}

impl RpcError {
    fn invalid(message: impl Into<String>) -> Self {
        Self {
            code: -32602,
            message: message.into(),
        }
    }
}

/// Answers one message the app posted.
pub async fn handle(session: &AppSession, message: Value) -> Reply {
    session.capture(Direction::Received, &message);
    let method = message.get("method").and_then(Value::as_str);
    let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
    let reply = match (method, message.get("id")) {
        (Some(method), Some(id)) => {
            let reply = match request(session, method, params).await {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(e) => json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": e.code, "message": e.message}}),
            };
            Reply {
                reply: Some(reply),
                ..Reply::default()
            }
        }
        (Some(method), None) => notified(session, method, &params),
        // A response to the host (none is asked for), or not JSON-RPC at all.
        (None, _) => Reply::default(),
    };
    for sent in reply.reply.iter().chain(&reply.deliver) {
        session.capture(Direction::Sent, sent);
    }
    reply
}

async fn request(session: &AppSession, method: &str, params: Value) -> Result<Value, RpcError> {
    match method {
        "ui/initialize" => Ok(initialized(session)),
        "ping" => Ok(json!({})),
        "tools/call" => call_tool(session, &params).await,
        "resources/read" => read_resource(session, &params).await,
        "ui/open-link" => open_link(session, &params).await,
        "ui/message" => {
            let text = text_of(params.get("content"));
            told(
                session,
                "ui/message",
                AppNote::Message {
                    app: session.name(),
                    text,
                },
            );
            Ok(json!({}))
        }
        "ui/update-model-context" => {
            let mut text = text_of(params.get("content"));
            if let Some(structured) = params.get("structuredContent") {
                text.push_str(&structured.to_string());
            }
            told(
                session,
                "ui/update-model-context",
                AppNote::Context {
                    app: session.name(),
                    text,
                },
            );
            Ok(json!({}))
        }
        "ui/request-display-mode" => Ok(json!({"mode": "inline"})),
        other => Err(RpcError {
            code: -32601,
            message: format!("method not found: {other}"),
        }),
    }
}

fn notified(session: &AppSession, method: &str, params: &Value) -> Reply {
    match method {
        "ui/notifications/initialized" => Reply {
            reply: None,
            deliver: vec![session.input_notification()],
            poll: true,
        },
        "notifications/message" => {
            let level = params["level"].as_str().unwrap_or("info").to_owned();
            let text = match &params["data"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            session.note(AppNote::Log {
                app: session.name(),
                level,
                text,
            });
            Reply::default()
        }
        _ => Reply::default(),
    }
}

/// `ui/initialize`'s result: who the host is, what it offers, and the tool.
fn initialized(session: &AppSession) -> Value {
    let tool = &session.tool;
    let mut wire_tool = json!({"name": tool.name, "description": tool.description,
        "inputSchema": tool.input_schema});
    if let Some(title) = &tool.title {
        wire_tool["title"] = json!(title);
    }
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "hostInfo": {"name": "switchboard", "version": env!("CARGO_PKG_VERSION")},
        "hostCapabilities": {
            "openLinks": {},
            "serverTools": {},
            "serverResources": {},
            "logging": {},
            "message": {"text": {}},
            "updateModelContext": {"text": {}, "structuredContent": {}},
        },
        "hostContext": {
            "toolInfo": {"tool": wire_tool},
            "theme": "light",
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "platform": "web",
        },
    })
}

/// The app's `tools/call`: only its own server's tools, through the gate (origin
/// `app`; the gate refuses tools hidden from apps and other servers' tools).
async fn call_tool(session: &AppSession, params: &Value) -> Result<Value, RpcError> {
    let name = params["name"]
        .as_str()
        .ok_or_else(|| RpcError::invalid("tools/call without a name"))?;
    let args: Map<String, Value> = params["arguments"].as_object().cloned().unwrap_or_default();
    let qualified = qualified_name(&session.server, name);
    let n = session.next_call();
    let mut ctx = ToolContext::new(format!("app-{n}"), crate::policy::Origin::App)
        .with_app(session.resource.uri.clone(), session.server.clone())
        .with_cancel(session.closed.child_token());
    if let Some(observer) = &session.deps.observer {
        ctx = ctx.with_observer(std::sync::Arc::clone(observer));
    }
    match session.deps.registry.invoke(&qualified, args, &ctx).await {
        CallOutcome::Failed(InvokeError::NotFound { .. }) => {
            Err(RpcError::invalid(format!("unknown tool: {name}")))
        }
        outcome => Ok(crate::tools::result_wire(&outcome.into_result())),
    }
}

/// The app's `resources/read`, from its own server.
async fn read_resource(session: &AppSession, params: &Value) -> Result<Value, RpcError> {
    let uri = params["uri"]
        .as_str()
        .ok_or_else(|| RpcError::invalid("resources/read without a uri"))?;
    match session.deps.hub.read_resource(&session.server, uri).await {
        Ok(read) => {
            let contents: Vec<Value> = read
                .contents
                .iter()
                .map(crate::tools::resource_contents)
                .collect();
            Ok(json!({"contents": contents}))
        }
        Err(e) => Err(RpcError {
            code: -32603,
            message: e.to_string(),
        }),
    }
}

/// `ui/open-link`: asked of the person first (as a server's URL request is); only
/// `http`, `https` and `mailto` links are considered at all.
async fn open_link(session: &AppSession, params: &Value) -> Result<Value, RpcError> {
    let url = params["url"]
        .as_str()
        .ok_or_else(|| RpcError::invalid("ui/open-link without a url"))?;
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    let opened = if matches!(scheme.as_str(), "http" | "https" | "mailto") {
        let question = ElicitationRequest {
            server: session.server.clone(),
            message: format!("The app {} asks to open a link.", session.resource.uri),
            kind: ElicitationKind::Url {
                url: url.to_owned(),
                elicitation_id: format!("app-link-{}", session.next_call()),
            },
        };
        matches!(
            session.deps.asker.elicit(question).await,
            ElicitationAnswer::Accept(_)
        )
    } else {
        false
    };
    told(
        session,
        "ui/open-link",
        AppNote::Link {
            app: session.name(),
            url: url.to_owned(),
            opened,
        },
    );
    Ok(if opened {
        json!({})
    } else {
        json!({"isError": true})
    })
}

/// Shows the person what the app did, and writes it to the audit log.
fn told(session: &AppSession, request: &str, note: AppNote) {
    let outcome = match &note {
        AppNote::Link { opened: true, .. } => "opened",
        AppNote::Link { opened: false, .. } => "declined",
        _ => "shown",
    };
    let record = ServerRequestRecord::app(&session.server, request, outcome);
    session.deps.registry.audit().append_server_request(&record);
    session.note(note);
}

/// The text of content blocks (`[{type: "text", text}]`, or one block).
fn text_of(content: Option<&Value>) -> String {
    let blocks: Vec<&Value> = match content {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(block) => vec![block],
        None => Vec::new(),
    };
    blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}
