//! `x-mcp-header` (MCP 2026-07-28 over Streamable HTTP): a valid annotation is
//! mirrored to an `Mcp-Param-*` header on the call; a tool with an invalid one is
//! refused at listing and the catalog says which and why (never dropped silently).
#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};
use switchboard::config::ProtocolChoice;
use switchboard::mcp::{CallContext, McpHub};
use switchboard::tools::ContentBlock;

use crate::support::mcp::{HttpServer, assert_ready, hub_with, settled, url_config};
use crate::support::trust_folder;

fn hub(server: &HttpServer, protocol: ProtocolChoice) -> McpHub {
    let mut config = url_config(&server.url);
    config.protocol = Some(protocol);
    hub_with(&[("t", config)])
}

async fn regional(hub: &McpHub) -> String {
    let args: Map<String, Value> = json!({"region": "eu-west-1"}).as_object().unwrap().clone();
    let result = hub
        .call_tool("t", "regional", args, None, CallContext::default())
        .await
        .unwrap();
    match &result.content[0] {
        ContentBlock::Text { text } => text.clone(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn invalid_annotations_are_refused_with_a_reason_and_valid_ones_become_headers() {
    let server = HttpServer::start_with(&["--misbehave", "x-mcp-header"]);
    let hub = hub(&server, ProtocolChoice::V2026);
    let snap = settled(&hub).await;
    assert_ready(&snap, "t");
    let catalog = &snap.server("t").unwrap().catalog;
    assert!(catalog.tool("regional").is_some());
    assert!(catalog.tool("bad_header").is_none());
    assert_eq!(catalog.refused.len(), 1, "{:?}", catalog.refused);
    let (name, reason) = &catalog.refused[0];
    assert_eq!(name, "bad_header");
    assert_eq!(
        reason,
        "property `region`: x-mcp-header `Bad Region` is not a valid HTTP token"
    );
    assert_eq!(regional(&hub).await, "Mcp-Param-Region: eu-west-1");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_2025_session_has_no_param_headers_and_refuses_nothing() {
    let server = HttpServer::start_with(&["--misbehave", "x-mcp-header"]);
    let hub = hub(&server, ProtocolChoice::V2025);
    let snap = settled(&hub).await;
    assert_ready(&snap, "t");
    let catalog = &snap.server("t").unwrap().catalog;
    assert!(catalog.tool("bad_header").is_some());
    assert!(catalog.refused.is_empty(), "{:?}", catalog.refused);
    assert_eq!(regional(&hub).await, "Mcp-Param-Region: (none)");
    hub.shutdown().await;
}

fn cli(dir: &std::path::Path, args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("switchboard")
        .unwrap()
        .current_dir(dir)
        .env("HOME", dir)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn servers_json_and_catalog_name_the_refused_tool_and_why() {
    let server = HttpServer::start_with(&["--misbehave", "x-mcp-header"]);
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[servers.t]\nurl = {:?}\nprotocol = \"2026-07-28\"\n",
        server.url
    );
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    trust_folder(dir.path(), &dir.path().join(".local/state"));
    let servers: Value = serde_json::from_str(&cli(dir.path(), &["servers", "--json"])).unwrap();
    assert_eq!(
        servers["servers"][0]["refused"],
        json!([{"name": "bad_header",
            "reason": "property `region`: x-mcp-header `Bad Region` is not a valid HTTP token"}])
    );
    let text = cli(dir.path(), &["catalog"]);
    assert!(
        text.contains(
            "! refused: bad_header — property `region`: x-mcp-header `Bad Region` is not a valid HTTP token"
        ),
        "{text}"
    );
}
