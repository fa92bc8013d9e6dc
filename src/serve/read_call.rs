//! A `tools/call` request read straight into rmcp's type. rmcp reads a client message
//! by trying each kind in turn (`ClientRequest` is an untagged union of 22 kinds, and
//! `tools/call` is the 14th), and each kind that does not fit builds an error and
//! drops it: most of what reading a call cost. A line whose keys make it a request by
//! rmcp's own shape check (`method` and `id`, neither `result` nor `error`) and whose
//! method is `tools/call` is read as a `CallToolRequest` alone. Any other line, and a
//! call that does not read so, is read the general way, so no line is read
//! differently (the tests hold the two ways to the same message).

use std::borrow::Cow;

use rmcp::model::{
    CallToolRequest, ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, JsonRpcRequest,
};
use serde::Deserialize;

/// The keys rmcp's shape check looks at.
#[derive(Deserialize)]
struct Shape<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(default)]
    id: Present,
    #[serde(default)]
    result: Present,
    #[serde(default)]
    error: Present,
}

/// Whether a key is there, whatever its value (`null` included, as rmcp counts it).
#[derive(Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer).map(|_| Present(true))
    }
}

/// The message, when `line` is a `tools/call` request that reads as one.
pub(super) fn tools_call(line: &[u8]) -> Option<ClientJsonRpcMessage> {
    let shape: Shape<'_> = serde_json::from_slice(line).ok()?;
    let request = shape.id.0 && !shape.result.0 && !shape.error.0;
    if !request || shape.method.as_deref() != Some("tools/call") {
        return None;
    }
    let call: JsonRpcRequest<CallToolRequest> = serde_json::from_slice(line).ok()?;
    Some(JsonRpcMessage::Request(JsonRpcRequest {
        jsonrpc: call.jsonrpc,
        id: call.id,
        request: ClientRequest::CallToolRequest(call.request),
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn general(line: &str) -> Option<Value> {
        serde_json::from_str::<ClientJsonRpcMessage>(line)
            .ok()
            .map(|m| serde_json::to_value(m).unwrap())
    }

    fn fast(line: &str) -> Option<Value> {
        tools_call(line.as_bytes()).map(|m| serde_json::to_value(m).unwrap())
    }

    /// Calls of every shape read as the general way reads them: `_meta` (progress
    /// token, 2026-07-28 client info), retries, string ids, escapes, unknown keys.
    #[test]
    fn a_call_reads_as_the_general_way_reads_it() {
        let calls = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t__echo","arguments":{"text":"hi"}}}"#,
            r#"{"jsonrpc":"2.0","id":"a-7","method":"tools/call","params":{"name":"t__echo","arguments":{"text":"h\u00e9 \"q\""},"_meta":{"progressToken":7}}}"#,
            r#"{"id":2,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"progressToken":"p"},"name":"x"},"method":"tools\/call","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t__slow","inputResponses":{"q1":{"action":"accept","content":{"ok":true}}},"requestState":"opaque"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t__echo","arguments":{}},"extra":{"ignored":[1,2]}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t__echo","unknownParam":1}}"#,
        ];
        for line in calls {
            let fast = fast(line);
            assert!(fast.is_some(), "not read the fast way: {line}");
            assert_eq!(fast, general(line), "{line}");
        }
    }

    /// What is not a plain call goes the general way: other methods, notifications,
    /// a `result` or `error` key (even `null`), a call that does not read as one.
    #[test]
    fn anything_else_is_left_to_the_general_way() {
        let others = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"},"result":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7,"params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            "not json",
        ];
        for line in others {
            assert_eq!(fast(line), None, "{line}");
        }
    }
}
