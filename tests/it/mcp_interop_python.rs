//! Interop with a server built on the python `mcp` SDK (2.x, which speaks 2026-07-28;
//! pinned and installed by .ci/run into target/interop/py-mcp-venv):
//! tests/support/py_mcp_server. Its `greet` elicits a name through the SDK's resolver,
//! which asks mid-call in 2025-11-25 and answers `input_required` in 2026-07-28.
//! Ignored unless asked for (`cargo test -- --include-ignored`, as .ci/run does).
#![allow(clippy::unwrap_used)]

use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Map;
use switchboard::config::{ProtocolChoice, ServerConfig};
use switchboard::mcp::{
    Answer, Ask, Asker, CallContext, ChannelAsker, ElicitMode, ElicitationAnswer, HeadlessAsker,
    HubOptions, McpHub,
};

/// Keep in step with .ci/run.
const MCP_SDK_VERSION: &str = "2.3.0";

fn python() -> PathBuf {
    let python =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/interop/py-mcp-venv/bin/python");
    assert!(
        python.exists(),
        "{} missing: run .ci/run to install mcp {MCP_SDK_VERSION}",
        python.display()
    );
    python
}

fn hub(python: &std::path::Path, protocol: ProtocolChoice, asker: Arc<dyn Asker>) -> McpHub {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/py_mcp_server/server.py");
    let config = ServerConfig {
        command: Some(python.display().to_string()),
        args: vec![script.display().to_string()],
        protocol: Some(protocol),
        ..ServerConfig::default()
    };
    McpHub::start_with(
        &BTreeMap::from([("py".to_owned(), config)]),
        HubOptions {
            asker: Some(asker),
            ..HubOptions::default()
        },
    )
}

async fn greet(hub: &McpHub) -> String {
    let snapshot = support::mcp::settled(hub).await;
    support::mcp::assert_ready(&snapshot, "py");
    hub.call_tool("py", "greet", Map::new(), None, CallContext::default())
        .await
        .unwrap()
        .text_content()
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn python_sdk_elicitation_in_both_eras() {
    let python = python();
    for protocol in [ProtocolChoice::V2025, ProtocolChoice::V2026] {
        let era = protocol.as_str();
        let headless = |mode| Arc::new(HeadlessAsker { mode, notice: None }) as Arc<dyn Asker>;
        let h = hub(&python, protocol, headless(ElicitMode::AcceptDefaults));
        let snapshot = support::mcp::settled(&h).await;
        let info = snapshot.server("py").unwrap().info.clone().unwrap();
        assert_eq!(info.era, era, "the era negotiated");
        assert_eq!(greet(&h).await, "Hello, Ada", "{era}: the schema's default");
        h.shutdown().await;

        let h = hub(&python, protocol, headless(ElicitMode::Decline));
        assert_eq!(greet(&h).await, "decline", "{era}");
        h.shutdown().await;

        // As the TUI answers: through a ChannelAsker, with what the person typed.
        let (asker, mut asks) = ChannelAsker::new();
        let front = tokio::spawn(async move {
            let request = crate::support::within(asks.recv()).await.unwrap();
            assert!(matches!(&request.ask, Ask::Elicit(e) if e.message == "Who are you?"));
            let mut content = Map::new();
            content.insert("name".into(), "Grace".into());
            request.answer(Answer::Elicit(ElicitationAnswer::Accept(content)));
        });
        let h = hub(&python, protocol, Arc::new(asker));
        assert_eq!(greet(&h).await, "Hello, Grace", "{era}");
        front.await.unwrap();
        h.shutdown().await;
    }
}
