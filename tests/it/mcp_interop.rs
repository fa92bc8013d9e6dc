//! Interop with `@modelcontextprotocol/server-everything` (installed by `.ci/run` into
//! `target/interop`). Ignored unless asked for (`cargo test -- --include-ignored`, as
//! `.ci/run` does).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use serde_json::{Map, json};
use switchboard::config::ServerConfig;
use switchboard::mcp::{CallContext, McpEvent, McpHub};
use switchboard::tools::ContentBlock;

use crate::support::mcp::args;
use crate::support::mcp::{assert_ready, hub_with, settled, wait_snapshot};

/// The pinned version `.ci/run` installs.
pub const EVERYTHING_VERSION: &str = "2026.8.31";

pub fn everything() -> PathBuf {
    let entry = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        entry.is_file(),
        "{} is missing: run `npm install --prefix target/interop @modelcontextprotocol/server-everything@{EVERYTHING_VERSION}`",
        entry.display()
    );
    entry
}

async fn start() -> McpHub {
    let entry = everything();
    let config = ServerConfig {
        command: Some("node".into()),
        args: vec![entry.display().to_string(), "stdio".into()],
        ..ServerConfig::default()
    };
    let hub = hub_with(&[("everything", config)]);
    assert_ready(&settled(&hub).await, "everything");
    hub
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn lists_all_four_catalogs() {
    let hub = start().await;
    let snap = hub.snapshot();
    let catalog = &snap.server("everything").unwrap().catalog;
    assert!(catalog.tool("echo").is_some(), "{:?}", catalog.tools);
    assert!(!catalog.resources.is_empty());
    assert!(!catalog.templates.is_empty());
    assert!(catalog.prompts.iter().any(|p| p.name == "args-prompt"));
    assert!(catalog.errors.is_empty(), "{:?}", catalog.errors);
    hub.shutdown().await;
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn echo_resource_and_prompt() {
    let hub = start().await;
    let r = hub
        .call_tool(
            "everything",
            "echo",
            args(json!({"message": "hi"})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    assert!(r.text_content().contains("hi"), "{r:?}");
    let uri = hub
        .snapshot()
        .server("everything")
        .unwrap()
        .catalog
        .resources[0]
        .uri
        .clone();
    let read = hub.read_resource("everything", &uri).await.unwrap();
    assert!(!read.contents.is_empty());
    let prompt = hub
        .get_prompt(
            "everything",
            "args-prompt",
            args(json!({"city": "Lyon", "state": "Rhône"})),
        )
        .await
        .unwrap();
    let text = match &prompt.messages[0].content {
        ContentBlock::Text { text } => text.clone(),
        other => panic!("{other:?}"),
    };
    assert!(text.contains("Lyon"), "{text}");
    hub.shutdown().await;
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn long_running_operation_reports_progress() {
    let hub = start().await;
    let mut events = hub.events();
    let ctx = CallContext {
        run_id: Some("interop".into()),
        ..CallContext::default()
    };
    let r = hub
        .call_tool(
            "everything",
            "trigger-long-running-operation",
            args(json!({"duration": 1, "steps": 3})),
            None,
            ctx,
        )
        .await
        .unwrap();
    assert!(!r.is_error, "{r:?}");
    let mut progress = 0;
    while let Ok(event) = events.try_recv() {
        if let McpEvent::Progress { run_id, .. } = event {
            assert_eq!(run_id.as_deref(), Some("interop"));
            progress += 1;
        }
    }
    assert!(progress >= 1, "no progress events");
    hub.shutdown().await;
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn completions_narrow_by_the_arguments_already_chosen() {
    use std::collections::BTreeMap;
    use switchboard::mcp::CompletionRef;
    let hub = start().await;
    let server = hub.server("everything").unwrap();
    let prompt = CompletionRef::Prompt("completable-prompt");
    let departments = server
        .complete(prompt, "department", "E", &BTreeMap::new())
        .await
        .unwrap();
    assert!(
        departments.iter().any(|d| d == "Engineering"),
        "{departments:?}"
    );
    let context: BTreeMap<String, String> =
        [("department".to_owned(), "Engineering".to_owned())].into();
    let names = server.complete(prompt, "name", "", &context).await.unwrap();
    assert!(!names.is_empty(), "names for Engineering: {names:?}");
    let without = server
        .complete(prompt, "name", "", &BTreeMap::new())
        .await
        .unwrap();
    assert_ne!(names, without, "the department narrows the names");
    hub.shutdown().await;
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn a_tool_image_and_a_blob_template_save_byte_for_byte() {
    let hub = start().await;
    let image = hub
        .call_tool(
            "everything",
            "get-tiny-image",
            Map::new(),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    let item = image
        .content
        .iter()
        .position(|b| matches!(b, ContentBlock::Image { .. }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("logo.png");
    let saved =
        switchboard::mcp::save::save_content(&image.content, item + 1, &path, false).unwrap();
    assert_eq!(saved.mime.as_deref(), Some("image/png"));
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let read = hub
        .read_resource("everything", "demo://resource/dynamic/blob/3")
        .await
        .unwrap();
    let blob = dir.path().join("blob.bin");
    let saved = switchboard::mcp::save::save_content(&read.contents, 1, &blob, false).unwrap();
    assert_eq!(std::fs::read(&blob).unwrap().len(), saved.bytes);
    hub.shutdown().await;
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn roots_are_offered_to_the_server() {
    let entry = everything();
    let config = ServerConfig {
        command: Some("node".into()),
        args: vec![entry.display().to_string(), "stdio".into()],
        ..ServerConfig::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let servers = [("everything".to_owned(), config)].into();
    let hub = McpHub::start_with_roots(&servers, &[dir.path().to_path_buf()]);
    assert_ready(&settled(&hub).await, "everything");
    // server-everything offers get-roots-list only to clients that declare roots;
    // it may register it a moment after initialisation (list_changed).
    wait_snapshot(&hub, "get-roots-list", |snap| {
        snap.server("everything")
            .is_some_and(|s| s.catalog.tool("get-roots-list").is_some())
    })
    .await;
    let listed = hub
        .call_tool(
            "everything",
            "get-roots-list",
            Map::new(),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    let root = format!("file://{}", dir.path().display());
    assert!(listed.text_content().contains(&root), "{listed:?}");
    hub.shutdown().await;
}

/// `simulate-research-query` runs only as a task (MCP 2025-11-25
/// `execution.taskSupport: "required"`): it is marked so, called with `params.task`,
/// followed through its stages and its result read with `tasks/result`.
#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn the_research_tool_runs_as_a_2025_task() {
    let hub = start().await;
    let snap = wait_snapshot(&hub, "simulate-research-query", |snap| {
        snap.server("everything")
            .is_some_and(|s| s.catalog.tool("simulate-research-query").is_some())
    })
    .await;
    let tool = snap
        .server("everything")
        .unwrap()
        .catalog
        .tool("simulate-research-query")
        .cloned()
        .unwrap();
    assert_eq!(tool.task, Some(switchboard::mcp::TaskMode::Required));
    let mut events = hub.events();
    let done = hub
        .call_tool(
            "everything",
            "simulate-research-query",
            args(json!({"topic": "tide pools"})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    assert!(!done.is_error, "{done:?}");
    assert!(done.text_content().contains("tide pools"), "{done:?}");
    let mut statuses = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let McpEvent::Task { view, .. } = event {
            statuses.push(view.status);
        }
    }
    assert_eq!(statuses.first().map(String::as_str), Some("working"));
    assert_eq!(
        statuses.last().map(String::as_str),
        Some("completed"),
        "{statuses:?}"
    );
    hub.shutdown().await;
}
