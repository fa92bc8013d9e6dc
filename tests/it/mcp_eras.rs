//! The hub in both protocol generations against the test server: the handshake each
//! `protocol` choice makes, the era it reports, and everything the hub does (lists,
//! calls, reads, prompts, completion, progress, logging) in each.
#![allow(clippy::unwrap_used)]

use serde_json::{Map, json};
use switchboard::config::ProtocolChoice;
use switchboard::mcp::{CallContext, McpEvent, McpHub, RequiredPage, ServerStatus};
use switchboard::tools::ContentBlock;

use crate::support::mcp::speaking;
use crate::support::mcp::{HttpServer, assert_ready, hub_with, settled, stdio_config, url_config};
use crate::support::mcp::{args, events_until, logged};

const ERAS: [(ProtocolChoice, &str); 2] = [
    (ProtocolChoice::V2025, "2025-11-25"),
    (ProtocolChoice::V2026, "2026-07-28"),
];

async fn era_of(hub: &McpHub, name: &str) -> String {
    let snap = settled(hub).await;
    assert_ready(&snap, name);
    let info = snap.server(name).unwrap().info.clone().unwrap();
    assert_eq!(info.name, "switchboard-test");
    info.era.to_owned()
}

/// Everything the hub does, once, on server `t`.
async fn everything_works(hub: &McpHub, era: &str) {
    let snap = settled(hub).await;
    let catalog = &snap.server("t").unwrap().catalog;
    assert_eq!(catalog.tools.len(), 12, "{era}: 4 per page, 3 pages");
    assert_eq!(catalog.resources.len(), 12, "{era}");
    assert_eq!(catalog.prompts.len(), 12, "{era}");
    assert!(catalog.errors.is_empty(), "{era}: {:?}", catalog.errors);

    let r = hub
        .call_tool(
            "t",
            "add",
            args(json!({"a": 2, "b": 3})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(r.structured, Some(json!({"sum": 5.0})), "{era}");
    let read = hub.read_resource("t", "test://text/3").await.unwrap();
    assert!(
        matches!(&read.contents[0], ContentBlock::EmbeddedResource { text: Some(t), .. } if t == "contents of test://text/3"),
        "{era}"
    );
    let prompt = hub
        .get_prompt("t", "greet", args(json!({"name": "Ada"})))
        .await
        .unwrap();
    assert!(
        matches!(&prompt.messages[0].content, ContentBlock::Text { text } if text == "Hi Ada!"),
        "{era}"
    );
    let values = hub
        .server("t")
        .unwrap()
        .complete(
            switchboard::mcp::CompletionRef::Prompt("greet"),
            "name",
            "al",
            &std::collections::BTreeMap::new(),
        )
        .await
        .unwrap();
    assert_eq!(values, ["alpha"], "{era}");

    // Progress and logs arrive as events; the log level holds in both eras
    // (logging/setLevel in a session, `_meta` on each request without one).
    assert_eq!(hub.set_log_level("warning").await.unwrap(), ["t"]);
    let mut events = hub.events();
    hub.call_tool("t", "log", Map::new(), None, CallContext::default())
        .await
        .unwrap();
    hub.call_tool(
        "t",
        "slow",
        args(json!({"millis": 150})),
        None,
        CallContext::default(),
    )
    .await
    .unwrap();
    // The log tool's last message is an error; the slow call reports progress.
    let seen = events_until(&mut events, |seen| {
        logged(seen, "error")
            && seen
                .iter()
                .any(|e| matches!(e, McpEvent::Progress { request, .. } if request == "slow"))
    })
    .await;
    let (mut levels, mut progress) = (Vec::new(), 0);
    for event in seen {
        match event {
            McpEvent::Log { level, .. } => levels.push(level),
            McpEvent::Progress { request, .. } if request == "slow" => progress += 1,
            _ => {}
        }
    }
    assert_eq!(levels, ["warning", "error"], "{era}");
    assert!(progress >= 1, "{era}: progress {progress}");

    // Cancelling a call fails it at once.
    let cancel = tokio_util::sync::CancellationToken::new();
    let ctx = CallContext {
        cancel: Some(cancel.clone()),
        ..CallContext::default()
    };
    let mut events = hub.events();
    let call = hub.call_tool("t", "slow", args(json!({"millis": 5000})), None, ctx);
    let (result, _) = tokio::join!(call, async {
        // Cancelled once the server is working on it (its first progress).
        let seen = events_until(&mut events, |seen| {
            seen.iter()
                .any(|e| matches!(e, McpEvent::Progress { request, .. } if request == "slow"))
        })
        .await;
        cancel.cancel();
        seen
    });
    let err = result.unwrap_err().to_string();
    assert!(err.contains("mcp_call_failed: cancelled"), "{era}: {err}");
    pages_required_are_named(hub, era).await;
}

/// A call that needs a page visited first (-32042) names it in its error and, as it
/// is, to the front ends (the TUI's URL card).
async fn pages_required_are_named(hub: &McpHub, era: &str) {
    let mut events = hub.events();
    let err = hub
        .call_tool(
            "t",
            "remote_error",
            args(json!({"url": true})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Open to go on: https://example.com/connect"),
        "{era}: {err}"
    );
    let seen = events_until(&mut events, |seen| {
        seen.iter()
            .any(|e| matches!(e, McpEvent::PagesRequired { .. }))
    })
    .await;
    let required = seen.into_iter().find_map(|e| match e {
        McpEvent::PagesRequired {
            server,
            request,
            pages,
        } => Some((server, request, pages)),
        _ => None,
    });
    assert_eq!(
        required,
        Some((
            "t".to_owned(),
            "remote_error".to_owned(),
            vec![RequiredPage {
                url: "https://example.com/connect?state=\u{1b}[31mx".into(),
                message: Some("Connect your account.".into()),
                elicitation_id: Some("e-1".into()),
            }]
        )),
        "{era}"
    );
}

#[tokio::test]
async fn each_era_over_stdio_does_everything() {
    for (protocol, era) in ERAS {
        let hub = hub_with(&[("t", speaking(stdio_config(&[]), protocol))]);
        assert_eq!(era_of(&hub, "t").await, era);
        everything_works(&hub, era).await;
        hub.shutdown().await;
    }
}

#[tokio::test]
async fn each_era_over_streamable_http_does_everything() {
    for (protocol, era) in ERAS {
        let server = HttpServer::start("http");
        let hub = hub_with(&[("t", speaking(url_config(&server.url), protocol))]);
        assert_eq!(era_of(&hub, "t").await, era);
        everything_works(&hub, era).await;
        hub.shutdown().await;
    }
}

#[tokio::test]
async fn auto_prefers_2026_and_falls_back_to_initialize() {
    let hub = hub_with(&[
        ("new", stdio_config(&[])),
        ("old", stdio_config(&["--protocol", "2025-11-25"])),
        ("only-new", stdio_config(&["--protocol", "2026-07-28"])),
    ]);
    assert_eq!(era_of(&hub, "new").await, "2026-07-28");
    assert_eq!(era_of(&hub, "only-new").await, "2026-07-28");
    let snap = settled(&hub).await;
    let old = snap.server("old").unwrap().info.clone().unwrap();
    assert_eq!(old.era, "2025-11-25");
    assert_eq!(
        old.protocol_version, "2025-11-25",
        "initialize offers 2025-11-25, never 2026-07-28"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn a_pinned_era_the_server_lacks_fails_the_handshake() {
    let hub = hub_with(&[
        (
            "want-new",
            speaking(
                stdio_config(&["--protocol", "2025-11-25"]),
                ProtocolChoice::V2026,
            ),
        ),
        (
            "want-old",
            speaking(
                stdio_config(&["--protocol", "2026-07-28"]),
                ProtocolChoice::V2025,
            ),
        ),
    ]);
    let snap = settled(&hub).await;
    for name in ["want-new", "want-old"] {
        let status = &snap.server(name).unwrap().status;
        let ServerStatus::Failed { error, .. } = status else {
            panic!("{name}: {status:?}");
        };
        assert!(
            error.to_string().starts_with("mcp_handshake_failed"),
            "{name}: {error}"
        );
    }
    // Pinned to 2026-07-28, the reason says how to let an older server in.
    let status = &snap.server("want-new").unwrap().status;
    let ServerStatus::Failed { error, .. } = status else {
        panic!("{status:?}");
    };
    assert!(
        error.to_string().contains(
            "protocol = \"2026-07-28\" needs server/discover; protocol = \"auto\" (the default) falls back to initialize"
        ),
        "{error}"
    );
    hub.shutdown().await;
}
