//! A server's sampling request as one model request, and the model's answer as the
//! `sampling/createMessage` result: text, tool calls as `tool_use` with
//! `stopReason: "toolUse"`, the model's name, errors.
#![allow(clippy::unwrap_used)]

use std::sync::Mutex;

use serde_json::{Value, json};
use switchboard::agent::sampling::{chat_request, sample};
use switchboard::llm::{
    ChatRequest, FinishReason, LlmError, LlmEvent, LlmStream, Message, Provider,
};

/// Answers every request with `events` and remembers the request.
struct Canned {
    events: Vec<LlmEvent>,
    seen: Mutex<Vec<ChatRequest>>,
}

impl Provider for Canned {
    fn kind(&self) -> &'static str {
        "canned"
    }
    fn model(&self) -> &'static str {
        "canned-1"
    }
    fn stream(&self, request: ChatRequest) -> LlmStream {
        self.seen.lock().unwrap().push(request);
        Box::pin(futures::stream::iter(self.events.clone()))
    }
}

fn canned(events: Vec<LlmEvent>) -> Canned {
    Canned {
        events,
        seen: Mutex::default(),
    }
}

fn params() -> Value {
    json!({
        "systemPrompt": "Be brief.",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Weather in Oslo?"}},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "forecast", "input": {"city": "Oslo"}}]},
            {"role": "user", "content": [{"type": "tool_result", "toolUseId": "c1", "content": [{"type": "text", "text": "rain"}]}]}
        ],
        "tools": [{"name": "forecast", "description": "Forecast", "inputSchema": {"type": "object"}}],
        "maxTokens": 100,
        "temperature": 0.2
    })
}

#[test]
fn the_request_keeps_roles_tools_and_limits() {
    let request = chat_request(&params()).unwrap();
    assert_eq!(request.system_text().as_deref(), Some("Be brief."));
    assert!(matches!(&request.messages[1], Message::User { text } if text == "Weather in Oslo?"));
    assert!(
        matches!(&request.messages[2], Message::Assistant { tool_calls, .. } if tool_calls[0].name == "forecast")
    );
    assert!(
        matches!(&request.messages[3], Message::Tool { call_id, content, .. } if call_id == "c1" && content == "rain")
    );
    assert_eq!(request.tools[0].name, "forecast");
    assert_eq!(request.options.max_tokens, Some(100));
    assert_eq!(request.options.temperature, Some(0.2));
    assert!(chat_request(&json!({"messages": []})).is_err());
}

#[tokio::test]
async fn text_answers_end_the_turn_and_name_the_model() {
    let provider = canned(vec![
        LlmEvent::TextDelta("Rain, ".into()),
        LlmEvent::TextDelta("all day.".into()),
        LlmEvent::Finish(FinishReason::Stop),
    ]);
    let reply = sample(&provider, &params()).await.unwrap();
    assert_eq!(reply.model, "canned-1");
    assert_eq!(
        reply.content,
        json!({"type": "text", "text": "Rain, all day."})
    );
    assert_eq!(reply.stop_reason.as_deref(), Some("endTurn"));
    assert_eq!(provider.seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn tool_calls_go_back_to_the_server_unrun() {
    let provider = canned(vec![
        LlmEvent::ToolCallStart {
            id: "c2".into(),
            name: "forecast".into(),
        },
        LlmEvent::ToolCallDelta {
            id: "c2".into(),
            fragment: r#"{"city":"#.into(),
        },
        LlmEvent::ToolCallDelta {
            id: "c2".into(),
            fragment: r#""Bergen"}"#.into(),
        },
        LlmEvent::ToolCallEnd {
            id: "c2".into(),
            signature: None,
        },
        LlmEvent::Finish(FinishReason::ToolCalls),
    ]);
    let reply = sample(&provider, &params()).await.unwrap();
    assert_eq!(
        reply.content,
        json!({"type": "tool_use", "id": "c2", "name": "forecast", "input": {"city": "Bergen"}})
    );
    assert_eq!(reply.stop_reason.as_deref(), Some("toolUse"));
}

#[tokio::test]
async fn a_provider_error_is_the_reason_given() {
    let provider = canned(vec![LlmEvent::Error(LlmError::config("canned", "no key"))]);
    let err = sample(&provider, &params()).await.unwrap_err().to_string();
    assert!(err.starts_with("the model failed:"), "{err}");
}

#[test]
fn sampling_spends_the_max_calls_budget() {
    use switchboard::agent::sampling::SAMPLING_BUDGET;
    let policy = switchboard::policy::Policy::new(switchboard::policy::Mode::Ask)
        .with_max_calls(SAMPLING_BUDGET, 1);
    let broker = std::sync::Arc::new(switchboard::gate::ApprovalBroker::new(false));
    let registry = switchboard::tools::Registry::new(policy, broker);
    assert_eq!(registry.spend_budget(SAMPLING_BUDGET), Ok(()));
    let spent = registry
        .spend_budget(SAMPLING_BUDGET)
        .unwrap_err()
        .to_string();
    assert!(spent.contains("max_calls"), "{spent}");
}
