//! Tools that ask the client (`--asking`): elicitation, sampling, roots, several rounds
//! and request state. In a 2026-07-28 request they answer `input_required` and read
//! the retry's `inputResponses` / `requestState`; in a 2025-11-25 session they send
//! server→client requests instead.

#![allow(deprecated)] // sampling and roots: deprecated in 2026-07-28, still widely used

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CreateMessageRequestParams,
    ElicitRequestParams, InputRequiredResult,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// The asking tools' catalog entries.
pub fn tools() -> Vec<Value> {
    let empty = json!({"type": "object", "properties": {}});
    vec![
        json!({"name": "ask_name", "description": "Elicit a name (form with defaults); `no_default: true` makes a required field without one.",
            "inputSchema": {"type": "object", "properties": {"no_default": {"type": "boolean"}, "profile": {"type": "boolean"}}},
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "ask_url", "description": "Elicit a visit to a URL.", "inputSchema": empty,
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "sample", "description": "Ask the client's model (sampling).", "inputSchema": empty,
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "ask_roots", "description": "List the client's roots.", "inputSchema": empty,
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "multi_round", "description": "`rounds` elicitations, one per round (2026-07-28: request state).",
            "inputSchema": {"type": "object", "properties": {"rounds": {"type": "integer"}}},
            "annotations": {"readOnlyHint": true}}),
        json!({"name": "state_wait", "description": "2026-07-28: one round with request state only.",
            "inputSchema": empty, "annotations": {"readOnlyHint": true}}),
        json!({"name": "endless", "description": "2026-07-28: asks for input forever.",
            "inputSchema": empty, "annotations": {"readOnlyHint": true}}),
        json!({"name": "insist", "description": "2026-07-28: asks for a name until accepted (again under key `again` with `new_key: true`).",
            "inputSchema": {"type": "object", "properties": {"new_key": {"type": "boolean"}}},
            "annotations": {"readOnlyHint": true}}),
        crate::tasks::tool(),
        crate::subs::tool(),
    ]
}

#[allow(clippy::unnecessary_wraps)] // the type every arm of `run` returns
fn text(text: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResponse::Complete(CallToolResult::success(vec![
        rmcp::model::ContentBlock::text(text.into()),
    ])))
}

#[allow(clippy::unnecessary_wraps)] // the type every arm of `run` returns
fn tool_error(text: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResponse::Complete(CallToolResult::error(vec![
        rmcp::model::ContentBlock::text(text.into()),
    ])))
}

/// `ask_name {"profile": true}`: every kind of field a form can have.
fn profile_form() -> Value {
    json!({"mode": "form", "message": "Tell us about your trip.", "requestedSchema": {
        "type": "object",
        "properties": {
            "email": {"type": "string", "title": "Email", "format": "email", "description": "Where the ticket goes"},
            "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 14, "default": 3},
            "class": {"type": "string", "title": "Class", "oneOf": [
                {"const": "eco", "title": "Economy"}, {"const": "biz", "title": "Business"}], "default": "eco"},
            "meals": {"type": "array", "title": "Meals", "items": {"type": "string", "enum": ["breakfast", "lunch", "dinner"]},
                "default": ["breakfast"]},
            "insured": {"type": "boolean", "title": "Insurance", "default": true}
        },
        "required": ["email", "nights"]
    }})
}

fn name_form(no_default: bool) -> Value {
    let mut form = json!({"mode": "form", "message": "Who are you?", "requestedSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "default": "World"},
            "excited": {"type": "boolean", "default": false}
        },
        "required": ["name"]
    }});
    if no_default {
        form["requestedSchema"]["properties"]["code"] = json!({"type": "string"});
        form["requestedSchema"]["required"] = json!(["name", "code"]);
    }
    form
}

fn form_for(request: &CallToolRequestParams) -> Value {
    if arg(request, "profile").and_then(Value::as_bool) == Some(true) {
        return profile_form();
    }
    name_form(arg(request, "no_default").and_then(Value::as_bool) == Some(true))
}

fn sampling_params() -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is 2+2?"}}],
        "systemPrompt": "Answer briefly.",
        "maxTokens": 50
    })
}

/// What an elicitation answer says, as text.
fn elicited(answer: &Value) -> String {
    match answer["action"].as_str() {
        Some("accept") => match answer["content"]["name"].as_str() {
            Some(name) => format!("Hello, {name}"),
            None => format!("accepted {}", answer["content"]),
        },
        Some(other) => other.to_owned(),
        None => "no answer".into(),
    }
}

fn sampled(answer: &Value) -> String {
    format!(
        "model {} said: {}",
        answer["model"].as_str().unwrap_or("?"),
        answer["content"]["text"].as_str().unwrap_or("?")
    )
}

fn roots_text(answer: &Value) -> String {
    let uris: Vec<&str> = answer["roots"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    uris.join("\n")
}

fn input_required(requests: &Value, state: Option<&str>) -> Result<CallToolResponse, ErrorData> {
    let mut wire = json!({"resultType": "input_required", "inputRequests": requests.clone()});
    if requests.as_object().is_some_and(Map::is_empty) {
        wire.as_object_mut().map(|o| o.remove("inputRequests"));
    }
    if let Some(state) = state {
        wire["requestState"] = json!(state);
    }
    Ok(CallToolResponse::InputRequired(from_json::<
        InputRequiredResult,
    >(wire)?))
}

fn arg<'a>(request: &'a CallToolRequestParams, name: &str) -> Option<&'a Value> {
    request.arguments.as_ref().and_then(|a| a.get(name))
}

/// Runs an asking tool, or `None` when `request` names another tool.
#[allow(
    clippy::too_many_lines,
    reason = "a flat dispatcher: one branch per asking tool of the test server"
)]
pub async fn run(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, ErrorData>> {
    let modern = context.meta.protocol_version().is_some();
    let responses = request.input_responses.clone().unwrap_or_default();
    let state = request.request_state.as_deref();
    let one = |key: &str, method: &str, params: Value| {
        let mut requests = Map::new();
        requests.insert(key.into(), json!({"method": method, "params": params}));
        Value::Object(requests)
    };
    if request.name == "touch" {
        let uri = arg(request, "uri").and_then(Value::as_str).unwrap_or("");
        let _ = crate::subs::BUS.send(crate::subs::Change::Resource(uri.to_owned()));
        // `always`: a careless server that notifies without (or after) a subscription.
        let always = arg(request, "always").and_then(Value::as_bool) == Some(true);
        if !modern && (always || crate::subs::is_subscribed(uri)) {
            let param = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
            let _ = context.peer.notify_resource_updated(param).await;
        }
        return Some(text("touched"));
    }
    if request.name == "long_task" {
        let declared = context
            .client_capabilities()
            .is_some_and(|c| c.supports_tasks());
        return Some(crate::tasks::start(request, declared));
    }
    Some(match (request.name.as_ref(), modern) {
        ("ask_name", true) => {
            let form = form_for(request);
            responses.get("name").map_or_else(
                || input_required(&one("name", "elicitation/create", form), None),
                |answer| text(elicited(answer)),
            )
        }
        ("ask_name", false) => {
            let params: ElicitRequestParams = match from_json(form_for(request)) {
                Ok(p) => p,
                Err(e) => return Some(Err(e)),
            };
            match context.peer.create_elicitation(params).await {
                Ok(result) => text(elicited(&json!(result))),
                Err(e) => tool_error(format!("elicitation failed: {e}")),
            }
        }
        ("ask_url", true) => match responses.get("visit") {
            Some(answer) => text(answer["action"].as_str().unwrap_or("?").to_owned()),
            None => input_required(
                &one(
                    "visit",
                    "elicitation/create",
                    json!({"mode": "url", "message": "Sign in", "url": "https://example.com/login"}),
                ),
                None,
            ),
        },
        ("sample", true) => match responses.get("llm") {
            Some(answer) => text(sampled(answer)),
            None => input_required(
                &one("llm", "sampling/createMessage", sampling_params()),
                None,
            ),
        },
        ("sample", false) => {
            let params: CreateMessageRequestParams = match from_json(sampling_params()) {
                Ok(p) => p,
                Err(e) => return Some(Err(e)),
            };
            match context.peer.create_message(params).await {
                Ok(result) => text(sampled(&json!(result))),
                Err(e) => tool_error(format!("sampling failed: {e}")),
            }
        }
        ("ask_roots", true) => match responses.get("roots") {
            Some(answer) => text(roots_text(answer)),
            None => input_required(&one("roots", "roots/list", json!({})), None),
        },
        ("ask_roots", false) => match context.peer.list_roots().await {
            Ok(result) => text(roots_text(&json!(result))),
            Err(e) => tool_error(format!("roots failed: {e}")),
        },
        ("multi_round", true) => multi_round(request, &responses, state, &one),
        ("state_wait", true) => match state {
            Some("waited-once") => text("waited"),
            Some(other) => tool_error(format!("unexpected request state {other:?}")),
            None => input_required(&json!({}), Some("waited-once")),
        },
        ("endless", true) => input_required(
            &one("again", "elicitation/create", name_form(false)),
            Some("endless"),
        ),
        ("insist", true) => {
            let answer = responses.get("name").or_else(|| responses.get("again"));
            match answer {
                Some(a) if a["action"] == "accept" => text(elicited(a)),
                // Declined or cancelled: a careless server puts the same question again.
                Some(_) => {
                    let again = arg(request, "new_key").and_then(Value::as_bool) == Some(true);
                    let key = if again { "again" } else { "name" };
                    input_required(
                        &one(key, "elicitation/create", name_form(false)),
                        Some("insisting"),
                    )
                }
                None => input_required(
                    &one("name", "elicitation/create", name_form(false)),
                    Some("insisting"),
                ),
            }
        }
        ("multi_round" | "state_wait" | "endless" | "ask_url" | "insist", false) => {
            tool_error("this tool needs protocol 2026-07-28")
        }
        _ => return None,
    })
}

/// Round `k` (0-based) asks `round{k}` with state `round-{k}`; the retry must echo
/// that state exactly and answer that key.
fn multi_round(
    request: &CallToolRequestParams,
    responses: &std::collections::BTreeMap<String, Value>,
    state: Option<&str>,
    one: &dyn Fn(&str, &str, Value) -> Value,
) -> Result<CallToolResponse, ErrorData> {
    let rounds = arg(request, "rounds").and_then(Value::as_u64).unwrap_or(3);
    let done = match state {
        None => 0,
        Some(s) => match s.strip_prefix("round-").and_then(|n| n.parse::<u64>().ok()) {
            Some(k) if responses.contains_key(&format!("round{k}")) => k + 1,
            _ => return tool_error(format!("bad echo: state {s:?}, answers {responses:?}")),
        },
    };
    if done >= rounds {
        return text(format!("rounds: {done}"));
    }
    input_required(
        &one(
            &format!("round{done}"),
            "elicitation/create",
            name_form(false),
        ),
        Some(&format!("round-{done}")),
    )
}

/// `plain {roots: true}` in a 2026-07-28 request: there are no server→client requests,
/// so the roots are asked for with an input request (as `ask_roots` does).
pub async fn plain_roots(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, ErrorData>> {
    let modern = context.meta.protocol_version().is_some();
    if !modern || request.name != "plain" || arg(request, "roots") != Some(&Value::Bool(true)) {
        return None;
    }
    let declared = context
        .meta
        .client_capabilities()
        .is_some_and(|c| c.roots.is_some());
    if !declared {
        return Some(tool_error("the client does not declare roots"));
    }
    let mut as_roots = request.clone();
    as_roots.name = "ask_roots".into();
    run(&as_roots, context).await
}
