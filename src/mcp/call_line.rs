//! A `tools/call` request written out here, byte for byte as rmcp writes it. rmcp
//! writes a request's params by turning them into a JSON value first (arguments
//! included), taking the `_meta` out of it, cloning the request's own `_meta` over
//! it, and only then writing the lot. In 2026-07-28 every request's `_meta` carries
//! the client's info and capabilities (MCP 2026-07-28, basic, "General fields";
//! SEP-2575), the same on every request of a connection: [`CallLine`] keeps each
//! such entry written once and writes its bytes again while the value is the same.
//! A request of any other kind, or a call with `_meta` of its own in its params or
//! with metadata rmcp keeps elsewhere, is written by rmcp (the tests hold the two
//! ways to the same bytes).

use std::io::Write as _;

use rmcp::model::{
    CallToolRequest, ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, MetaObject,
    NumberOrString, RequestMetaObject,
};
use serde_json::Value;

/// The `_meta` entries kept written: the ones every 2026-07-28 request repeats.
const KEPT: [&str; 2] = [
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
];

/// Writes `tools/call` requests, keeping the repeated `_meta` entries written.
#[derive(Debug, Default)]
pub struct CallLine {
    /// Per [`KEPT`] key: the value last written and its JSON text.
    kept: [Option<(Value, Vec<u8>)>; 2],
}

impl CallLine {
    /// The line (with its newline) for `message` when it is a `tools/call` request
    /// written here; `None` for rmcp to write it.
    pub fn line(&mut self, message: &ClientJsonRpcMessage) -> Option<Vec<u8>> {
        let JsonRpcMessage::Request(request) = message else {
            return None;
        };
        let ClientRequest::CallToolRequest(call) = &request.request else {
            return None;
        };
        if call.params.meta.is_some() || call.extensions.get::<MetaObject>().is_some() {
            return None;
        }
        let mut out = Vec::with_capacity(256);
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        match &request.id {
            NumberOrString::Number(n) => {
                let _ = write!(out, "{n}");
            }
            NumberOrString::String(s) => json(&mut out, &**s)?,
        }
        out.extend_from_slice(br#","method":"tools/call","params":{"#);
        self.params(&mut out, call)?;
        out.extend_from_slice(b"}}\n");
        Some(out)
    }

    /// The params' keys in rmcp's order: `_meta`, then the params' own.
    fn params(&mut self, out: &mut Vec<u8>, call: &CallToolRequest) -> Option<()> {
        if let Some(meta) = call.extensions.get::<RequestMetaObject>() {
            out.extend_from_slice(br#""_meta":{"#);
            for (i, (key, value)) in meta.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                json(out, key)?;
                out.push(b':');
                self.entry(out, key, value)?;
            }
            out.extend_from_slice(b"},");
        }
        let params = &call.params;
        out.extend_from_slice(br#""name":"#);
        json(out, &params.name)?;
        if let Some(arguments) = &params.arguments {
            out.extend_from_slice(br#","arguments":"#);
            json(out, arguments)?;
        }
        if let Some(responses) = &params.input_responses {
            out.extend_from_slice(br#","inputResponses":"#);
            json(out, responses)?;
        }
        if let Some(state) = &params.request_state {
            out.extend_from_slice(br#","requestState":"#);
            json(out, state)?;
        }
        Some(())
    }

    /// One `_meta` value: the kept text when it is a kept key's last value.
    fn entry(&mut self, out: &mut Vec<u8>, key: &str, value: &Value) -> Option<()> {
        let Some(slot) = KEPT.iter().position(|k| *k == key) else {
            return json(out, value);
        };
        let kept = &mut self.kept[slot];
        match kept {
            Some((last, text)) if same(last, value) => out.extend_from_slice(text),
            _ => {
                let text = serde_json::to_vec(value).ok()?;
                out.extend_from_slice(&text);
                *kept = Some((value.clone(), text));
            }
        }
        Some(())
    }
}

fn json(out: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) -> Option<()> {
    serde_json::to_writer(out, value).ok()
}

/// Equal in order too (keys in the same order), so written the same. Quicker than
/// `==`, which looks each key of a map up in the other.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{
        CallToolRequestParams, ClientCapabilities, Implementation, JsonRpcRequest, ProgressToken,
        ProtocolVersion, Request, RequestId,
    };
    use serde_json::json;

    use super::*;

    /// rmcp's own line for `message`.
    fn rmcp_line(message: &ClientJsonRpcMessage) -> Vec<u8> {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        line
    }

    fn call(
        id: RequestId,
        params: CallToolRequestParams,
        meta: Option<RequestMetaObject>,
    ) -> ClientJsonRpcMessage {
        let mut request = Request::new(params);
        if let Some(meta) = meta {
            request.extensions.insert(meta);
        }
        JsonRpcMessage::Request(JsonRpcRequest::new(
            id,
            ClientRequest::CallToolRequest(request),
        ))
    }

    /// The `_meta` rmcp puts on a request: 2026-07-28's client context, then the
    /// progress token.
    fn meta(generation: &str, token: Option<ProgressToken>, name: &str) -> RequestMetaObject {
        let mut meta = if generation == "2026-07-28" {
            let mut capabilities = ClientCapabilities::default();
            capabilities.roots = Some(rmcp::model::RootsCapabilities::default());
            RequestMetaObject::with_client_context(
                ProtocolVersion::V_2026_07_28,
                Implementation::new(name, "1.2"),
                capabilities,
            )
        } else {
            RequestMetaObject::new()
        };
        #[allow(deprecated)]
        if generation == "2026-07-28-logs" {
            meta.set_log_level(rmcp::model::LoggingLevel::Debug);
        }
        if let Some(token) = token {
            meta.set_progress_token(token);
        }
        meta
    }

    /// Both generations, with and without a progress token, ids of both kinds,
    /// arguments with escapes, the retry fields: the same bytes as rmcp's, and
    /// the kept entries written again only when they change.
    #[test]
    fn calls_are_written_as_rmcp_writes_them() {
        let Value::Object(args) =
            json!({"text": "hé \"q\"\n", "n": [1, 2.5, null], "o": {"b": true, "a": {}}})
        else {
            unreachable!()
        };
        let mut retry = CallToolRequestParams::new("t").with_arguments(args.clone());
        retry.request_state = Some("st\"ate".into());
        retry.input_responses = Some(
            serde_json::from_value(json!({"r1": {"action": "accept", "content": {"x": 1}}}))
                .unwrap(),
        );
        let params = [
            CallToolRequestParams::new("echo"),
            CallToolRequestParams::new("t__echo").with_arguments(args),
            retry,
        ];
        let ids = [RequestId::Number(7), RequestId::String("a-\"1\"".into())];
        let tokens = [
            None,
            Some(ProgressToken(NumberOrString::Number(3))),
            Some(ProgressToken(NumberOrString::String("p".into()))),
        ];
        let mut lines = CallLine::default();
        for name in ["bench", "other", "bench"] {
            for generation in ["2025-11-25", "2026-07-28", "2026-07-28-logs", "none"] {
                for p in &params {
                    for id in &ids {
                        for token in &tokens {
                            let meta = (generation != "none")
                                .then(|| meta(generation, token.clone(), name));
                            let message = call(id.clone(), p.clone(), meta);
                            let ours = lines.line(&message).unwrap();
                            assert_eq!(
                                String::from_utf8(ours).unwrap(),
                                String::from_utf8(rmcp_line(&message)).unwrap()
                            );
                        }
                    }
                }
            }
        }
    }

    /// A call whose params carry `_meta`, legacy metadata, or any other request:
    /// left to rmcp.
    #[test]
    fn other_messages_are_left_to_rmcp() {
        let mut lines = CallLine::default();
        let mut own = CallToolRequestParams::new("echo");
        own.meta = Some(RequestMetaObject::with_progress_token(ProgressToken(
            NumberOrString::Number(1),
        )));
        assert!(lines.line(&call(RequestId::Number(1), own, None)).is_none());
        let mut legacy = Request::new(CallToolRequestParams::new("echo"));
        legacy.extensions.insert(MetaObject::default());
        let legacy = JsonRpcMessage::Request(JsonRpcRequest::new(
            RequestId::Number(2),
            ClientRequest::CallToolRequest(legacy),
        ));
        assert!(lines.line(&legacy).is_none());
        let ping = JsonRpcMessage::Request(JsonRpcRequest::new(
            RequestId::Number(3),
            ClientRequest::PingRequest(rmcp::model::RequestNoParam::default()),
        ));
        assert!(lines.line(&ping).is_none());
    }

    #[test]
    fn same_is_equality_in_order() {
        assert!(same(
            &json!({"a": [1, {"b": 2}], "c": "x"}),
            &json!({"a": [1, {"b": 2}], "c": "x"})
        ));
        assert!(!same(&json!({"a": 1, "c": 2}), &json!({"c": 2, "a": 1})));
        assert!(!same(&json!({"a": [1]}), &json!({"a": [1, 2]})));
        assert!(!same(&json!({"a": 1}), &json!({"a": 1.0})));
    }
}
