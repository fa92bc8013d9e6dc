//! A `tools/call` request read straight into rmcp's type. rmcp reads a client message
//! by trying each kind in turn (`ClientRequest` is an untagged union of 22 kinds, and
//! `tools/call` is the 14th), and each kind that does not fit builds an error and
//! drops it: most of what reading a call cost. A line whose keys make it a request by
//! rmcp's own shape check (`method` and `id`, neither `result` nor `error`) and whose
//! method is `tools/call` is read as a call alone, its keys straight into their
//! fields: rmcp's own reading of one request buffers the message twice (its id and
//! its params each sit beside a flattened part), which costs more the more `_meta` a
//! 2026-07-28 client sends. Any other line, and a call that does not read so, is read
//! the general way, so no line is read differently (the tests hold the two ways to
//! the same message).

use std::borrow::Cow;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, InputResponses,
    JsonObject, JsonRpcMessage, JsonRpcRequest, JsonRpcVersion2_0, RequestId, RequestMetaObject,
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

/// A call's keys as rmcp reads them (`JsonRpcRequest<CallToolRequest>`); `method` is
/// the shape's, other keys are ignored as rmcp ignores them.
#[derive(Deserialize)]
struct Call {
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    params: Params,
}

/// `CallToolRequestParams`' keys, `_meta` as rmcp keeps it (in the request's
/// extensions, not in the params).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Params {
    #[serde(rename = "_meta", default)]
    meta: Option<JsonObject>,
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    #[serde(default)]
    input_responses: Option<InputResponses>,
    #[serde(default)]
    request_state: Option<String>,
}

/// The message, when `line` is a `tools/call` request that reads as one.
pub(super) fn tools_call(line: &[u8]) -> Option<ClientJsonRpcMessage> {
    let shape: Shape<'_> = serde_json::from_slice(line).ok()?;
    let request = shape.id.0 && !shape.result.0 && !shape.error.0;
    if !request || shape.method.as_deref() != Some("tools/call") {
        return None;
    }
    let call: Call = serde_json::from_slice(line).ok()?;
    let Params {
        meta,
        name,
        arguments,
        input_responses,
        request_state,
    } = call.params;
    let mut params = CallToolRequestParams::new(name);
    params.arguments = arguments;
    params.input_responses = input_responses;
    params.request_state = request_state;
    let mut request = CallToolRequest::new(params);
    if let Some(meta) = meta {
        request.extensions.insert(RequestMetaObject::from(meta));
    }
    Some(JsonRpcMessage::Request(JsonRpcRequest {
        jsonrpc: call.jsonrpc,
        id: call.id,
        request: ClientRequest::CallToolRequest(request),
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// The message as written, and where its `_meta` is kept: the request's
    /// extensions and the params' own field.
    type Read = (Value, Option<RequestMetaObject>, Option<RequestMetaObject>);

    fn parts(message: ClientJsonRpcMessage) -> Read {
        let (extension, own) = match &message {
            JsonRpcMessage::Request(JsonRpcRequest {
                request: ClientRequest::CallToolRequest(call),
                ..
            }) => (
                call.extensions.get::<RequestMetaObject>().cloned(),
                call.params.meta.clone(),
            ),
            _ => (None, None),
        };
        (serde_json::to_value(message).unwrap(), extension, own)
    }

    fn general(line: &str) -> Option<Read> {
        serde_json::from_str::<ClientJsonRpcMessage>(line)
            .ok()
            .map(parts)
    }

    fn fast(line: &str) -> Option<Read> {
        tools_call(line.as_bytes()).map(parts)
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
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"switchboard","version":"0.1.0"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/logLevel":"info","progressToken":13},"name":"echo","arguments":{"n":[-1,18446744073709551615,2.5e-3,1e300,null,true],"s":"\ud83d\ude00"}}}"#,
            r#"{"jsonrpc":"2.0","id":-7,"method":"tools/call","params":{"_meta":null,"name":"x","arguments":null,"inputResponses":null,"requestState":null}}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"_meta":{},"name":"x"}}"#,
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

    /// Lines rmcp may read or refuse: the fast way reads them as it does, or
    /// leaves them to it.
    #[test]
    fn odd_calls_read_the_same_or_go_the_general_way() {
        let odd = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{},"_meta":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"a"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"},"params":{"name":"b"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","requestState":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"a"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}} x"#,
        ];
        for line in odd {
            if let Some(read) = fast(line) {
                assert_eq!(Some(read), general(line), "{line}");
            }
        }
    }
}
