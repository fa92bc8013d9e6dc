//! The answer to a `tools/call` read straight into rmcp's type. rmcp reads a server
//! message by trying each kind in turn: `ServerResult` is an untagged union and a
//! tool's result is its 16th kind, so every answer to a call first failed 15 times,
//! building and dropping an error each time (about two thirds of what reading it
//! cost). [`Calls`] remembers the ids of the calls sent; a line that answers one of
//! them with a result of only a tool result's own keys (`content`,
//! `structuredContent`, `isError`, `resultType`: no kind before it in the union can
//! be read from those alone) is read as a `CallToolResult`. Every other line, and an
//! answer that does not read so, is read the general way, so no line is read
//! differently (the tests hold the two ways to the same message, key set by key set).

use std::collections::HashSet;

use rmcp::model::{
    CallToolResult, ClientJsonRpcMessage, ClientNotification, ClientRequest, JsonRpcMessage,
    JsonRpcResponse, RequestId, ServerJsonRpcMessage, ServerResult,
};
use serde::Deserialize;

/// More calls than this unanswered (their servers never answered, or were told to
/// stop): the ids are forgotten, and those answers read the general way.
const MAX_CALLS: usize = 1024;

/// The `tools/call` requests sent on one connection and not answered yet.
#[derive(Debug, Default)]
pub struct Calls(HashSet<RequestId>);

impl Calls {
    /// Notes a message on its way to the server.
    pub fn sent(&mut self, message: &ClientJsonRpcMessage) {
        match message {
            JsonRpcMessage::Request(request) => {
                if let ClientRequest::CallToolRequest(_) = request.request {
                    if self.0.len() >= MAX_CALLS {
                        self.0.clear();
                    }
                    self.0.insert(request.id.clone());
                }
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.0.remove(id);
                }
            }
            _ => {}
        }
    }

    /// The message on `line` (one JSON text, no newline), when it answers a call
    /// with a plain tool result. Any answer to a call (a result or an error) ends
    /// the wait for it.
    pub fn answer(&mut self, line: &[u8]) -> Option<ServerJsonRpcMessage> {
        if self.0.is_empty() {
            return None;
        }
        let shape: Shape = serde_json::from_slice(line).ok()?;
        let answers = !shape.method.0 && (shape.result.present || shape.error.0);
        let id = shape.id.filter(|_| answers)?;
        if !self.0.remove(&id) || shape.error.0 || !shape.result.tool_keys_only {
            return None;
        }
        let answer: JsonRpcResponse<CallToolResult> = serde_json::from_slice(line).ok()?;
        Some(JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: answer.jsonrpc,
            id: answer.id,
            result: ServerResult::CallToolResult(answer.result),
        }))
    }
}

/// The keys of a message that say whether it answers a call with a tool result.
#[derive(Deserialize)]
struct Shape {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(default)]
    method: Present,
    #[serde(default)]
    error: Present,
    #[serde(default)]
    result: Outcome,
}

/// Whether a key is there, whatever its value (`null` included, as rmcp counts it).
#[derive(Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer).map(|_| Present(true))
    }
}

/// Whether there is a `result`, and whether it is an object of a tool result's own
/// keys and no other.
#[derive(Default)]
struct Outcome {
    present: bool,
    tool_keys_only: bool,
}

/// A key of a result.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum Key {
    Content,
    StructuredContent,
    IsError,
    ResultType,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ResultVisitor)
    }
}

struct ResultVisitor;

impl<'de> serde::de::Visitor<'de> for ResultVisitor {
    type Value = Outcome;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Outcome, A::Error> {
        let mut tool_keys_only = true;
        while let Some(key) = map.next_key::<Key>()? {
            tool_keys_only &= !matches!(key, Key::Other);
            map.next_value::<serde::de::IgnoredAny>()?;
        }
        Ok(Outcome {
            present: true,
            tool_keys_only,
        })
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Outcome, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Outcome::other())
    }

    fn visit_unit<E>(self) -> Result<Outcome, E> {
        Ok(Outcome::other())
    }

    fn visit_bool<E>(self, _: bool) -> Result<Outcome, E> {
        Ok(Outcome::other())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Outcome, E> {
        Ok(Outcome::other())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Outcome, E> {
        Ok(Outcome::other())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Outcome, E> {
        Ok(Outcome::other())
    }

    fn visit_str<E>(self, _: &str) -> Result<Outcome, E> {
        Ok(Outcome::other())
    }
}

impl Outcome {
    /// A result that is no tool result (`null`, a list, a scalar).
    fn other() -> Self {
        Self {
            present: true,
            tool_keys_only: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolRequestParams, ClientRequest, JsonRpcRequest, Request};
    use serde_json::{Value, json};

    use super::*;

    fn call(id: i64) -> ClientJsonRpcMessage {
        let params = CallToolRequestParams::new("echo");
        JsonRpcMessage::Request(JsonRpcRequest::new(
            RequestId::Number(id),
            ClientRequest::CallToolRequest(Request::new(params)),
        ))
    }

    fn general(line: &str) -> Option<Value> {
        serde_json::from_str::<ServerJsonRpcMessage>(line)
            .ok()
            .map(|m| serde_json::to_value(m).unwrap())
    }

    fn fast(calls: &mut Calls, line: &str) -> Option<Value> {
        calls
            .answer(line.as_bytes())
            .map(|m| serde_json::to_value(m).unwrap())
    }

    /// Every set of a tool result's keys, with values of each kind: whenever the
    /// fast way reads an answer, the general way reads the same tool result.
    #[test]
    fn every_set_of_keys_reads_as_the_general_way_reads_it() {
        let values: [(&str, Vec<Value>); 4] = [
            (
                "content",
                vec![
                    json!([]),
                    json!([{"type": "text", "text": "hé \"q\""},
                        {"type": "image", "data": "AA==", "mimeType": "image/png"},
                        {"type": "resource_link", "uri": "u", "name": "n"},
                        {"type": "resource", "resource": {"uri": "u", "blob": "AA=="}}]),
                ],
            ),
            (
                "structuredContent",
                vec![json!({"sum": 5.0}), json!([1]), Value::Null],
            ),
            ("isError", vec![json!(true), json!(false)]),
            ("resultType", vec![json!("complete")]),
        ];
        let mut read = 0;
        for set in 1..16u32 {
            let keys: Vec<_> = (0..4).filter(|i| set & (1 << i) != 0).collect();
            for pick in 0..3 {
                let mut result = serde_json::Map::new();
                for &k in &keys {
                    let (key, choices) = &values[k];
                    result.insert((*key).to_owned(), choices[pick % choices.len()].clone());
                }
                let line = json!({"jsonrpc": "2.0", "id": 7, "result": result}).to_string();
                let mut calls = Calls::default();
                calls.sent(&call(7));
                let fast = fast(&mut calls, &line);
                let general = general(&line);
                if let Some(fast) = fast {
                    read += 1;
                    assert_eq!(Some(fast), general, "{line}");
                    let parsed: ServerJsonRpcMessage = serde_json::from_str(&line).unwrap();
                    assert!(
                        matches!(
                            parsed,
                            JsonRpcMessage::Response(JsonRpcResponse {
                                result: ServerResult::CallToolResult(_),
                                ..
                            })
                        ),
                        "{line}"
                    );
                }
            }
        }
        assert!(read >= 30, "only {read} answers read the fast way");
    }

    /// Only answers to calls sent, once each; anything else is left to the general
    /// way: other answers, errors, a result with other keys or `_meta`, tasks,
    /// notifications, a cancelled call's late answer.
    #[test]
    fn anything_else_is_left_to_the_general_way() {
        let mut calls = Calls::default();
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        assert_eq!(fast(&mut calls, answer), None, "no call sent");
        calls.sent(&call(1));
        calls.sent(&call(2));
        calls.sent(&call(3));
        for line in [
            r#"{"jsonrpc":"2.0","id":9,"result":{"content":[]}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"a":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"tools":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"working","resultType":"task"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"input_required"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":"not a list"}}"#,
        ] {
            assert_eq!(fast(&mut calls, line), None, "{line}");
            calls.sent(&call(1));
        }
        let error = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no"}}"#;
        assert_eq!(fast(&mut calls, error), None);
        assert_eq!(
            fast(
                &mut calls,
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#
            ),
            None,
            "an answered call is forgotten"
        );
        assert!(fast(&mut calls, answer).is_some());
        assert_eq!(fast(&mut calls, answer), None, "answered once");
        let cancelled: ClientJsonRpcMessage = serde_json::from_value(json!({"jsonrpc": "2.0",
            "method": "notifications/cancelled", "params": {"requestId": 3}}))
        .unwrap();
        calls.sent(&cancelled);
        let late = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#;
        assert_eq!(
            fast(&mut calls, late),
            None,
            "a cancelled call is forgotten"
        );
    }
}
