//! The JSON each provider is sent for one conversation with tool calls and results.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use switchboard::llm::{
    ChatRequest, Endpoint, Message, RequestOptions, SYNTHETIC_ID_PREFIX, ToolCall, ToolDeclaration,
    anthropic, gemini, openai,
};

fn endpoint() -> Endpoint {
    let mut e = Endpoint::new("test", "http://127.0.0.1:9", "k", "model-x", None).unwrap();
    e.max_tokens = Some(1000);
    e.temperature = Some(0.5);
    e
}

/// system, user, assistant (text + two calls), two results, a follow-up user message.
fn conversation() -> ChatRequest {
    let list = ToolCall {
        id: "call_1".into(),
        name: "fs".into(),
        arguments: json!({"operation": "list", "path": "."}),
        signature: Some("sig-a".into()),
    };
    let weather = ToolCall {
        id: format!("{SYNTHETIC_ID_PREFIX}2"),
        name: "weather__get".into(),
        arguments: json!({"city": "Oslo"}),
        signature: None,
    };
    ChatRequest {
        messages: vec![
            Message::system("You are helpful."),
            Message::user("What is here, and the weather?"),
            Message::assistant("Looking.", vec![list, weather]),
            Message::tool("call_1", "fs", "a.txt\nb.txt", false),
            Message::tool(
                format!("{SYNTHETIC_ID_PREFIX}2"),
                "weather__get",
                "no such city",
                true,
            ),
            Message::user("thanks"),
        ],
        tools: vec![ToolDeclaration {
            name: "fs".into(),
            description: "Files".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        options: RequestOptions::default(),
    }
}

#[test]
fn openai_body() {
    let body = openai::request_body(&conversation(), &endpoint());
    assert_eq!(body["model"], "model-x");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], 1000);
    let m = body["messages"].as_array().unwrap();
    assert_eq!(m.len(), 6);
    assert_eq!(
        m[0],
        json!({"role": "system", "content": "You are helpful."})
    );
    assert_eq!(m[2]["role"], "assistant");
    assert_eq!(m[2]["content"], "Looking.");
    // Arguments are a JSON *string*.
    assert_eq!(
        m[2]["tool_calls"][0],
        json!({"id": "call_1", "type": "function",
            "function": {"name": "fs", "arguments": "{\"operation\":\"list\",\"path\":\".\"}"}})
    );
    assert_eq!(
        m[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "a.txt\nb.txt"})
    );
    assert_eq!(m[4]["tool_call_id"], format!("{SYNTHETIC_ID_PREFIX}2"));
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "function": {"name": "fs", "description": "Files",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}])
    );
}

#[test]
fn anthropic_body() {
    let body = anthropic::request_body(&conversation(), &endpoint());
    assert_eq!(body["system"], "You are helpful.");
    assert_eq!(body["max_tokens"], 1000);
    let m = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = m.iter().map(|x| x["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    assert_eq!(
        m[1]["content"],
        json!([
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "call_1", "name": "fs",
                "input": {"operation": "list", "path": "."}},
            {"type": "tool_use", "id": format!("{SYNTHETIC_ID_PREFIX}2"), "name": "weather__get",
                "input": {"city": "Oslo"}},
        ])
    );
    // Both results (and the follow-up text) in one user message.
    assert_eq!(
        m[2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "call_1", "content": "a.txt\nb.txt",
                "is_error": false},
            {"type": "tool_result", "tool_use_id": format!("{SYNTHETIC_ID_PREFIX}2"),
                "content": "no such city", "is_error": true},
            {"type": "text", "text": "thanks"},
        ])
    );
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
    assert!(!anthropic::uses_memory(&conversation()));
}

#[test]
fn anthropic_needs_max_tokens() {
    let mut e = endpoint();
    e.max_tokens = None;
    let body = anthropic::request_body(&conversation(), &e);
    assert_eq!(body["max_tokens"], anthropic::DEFAULT_MAX_TOKENS);
}

#[test]
fn gemini_body() {
    let body = gemini::request_body(&conversation(), &endpoint());
    assert_eq!(
        body["systemInstruction"],
        json!({"parts": [{"text": "You are helpful."}]})
    );
    let c = body["contents"].as_array().unwrap();
    let roles: Vec<&str> = c.iter().map(|x| x["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "model", "user"]);
    assert_eq!(
        c[1]["parts"],
        json!([
            {"text": "Looking."},
            {"functionCall": {"name": "fs", "args": {"operation": "list", "path": "."},
                "id": "call_1"}, "thoughtSignature": "sig-a"},
            // A made-up id is not sent back.
            {"functionCall": {"name": "weather__get", "args": {"city": "Oslo"}}},
        ])
    );
    let parts = c[2]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3);
    assert_eq!(
        parts[0],
        json!({"functionResponse": {"name": "fs", "response": {"result": "a.txt\nb.txt"},
            "id": "call_1"}})
    );
    assert_eq!(
        parts[1],
        json!({"functionResponse": {"name": "weather__get",
            "response": {"error": "no such city"}}})
    );
    assert_eq!(parts[2], json!({"text": "thanks"}));
    assert_eq!(
        body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]["type"],
        "object"
    );
    assert_eq!(
        body["generationConfig"],
        json!({"maxOutputTokens": 1000, "temperature": 0.5})
    );
}

#[test]
fn raw_arguments_that_are_not_json_go_back_verbatim_to_openai() {
    let call = ToolCall::from_fragments("c".into(), "fs".into(), "{broken", None);
    assert_eq!(call.arguments, Value::String("{broken".into()));
    assert_eq!(call.arguments_text(), "{broken");
    assert_eq!(call.arguments_object(), json!({}));
}
