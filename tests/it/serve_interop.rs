//! A client nobody here wrote: the python `mcp` SDK (pinned, installed by .ci/run into
//! target/interop/py-mcp-venv) against `switchboard serve --stdio` and `--http`, with the
//! reference server-everything behind it: the lists match the catalog, a read call
//! works, a write is refused headless with the rule named. Ignored unless asked for
//! (`cargo test -- --include-ignored`, as .ci/run does).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crate::support::serve::{Env, HttpGateway, SWITCHBOARD};
use crate::support::trust_folder;
use serde_json::Value;

/// Keep in step with .ci/run.
const MCP_SDK_VERSION: &str = "2.3.0";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The venv's python and server-everything.
fn peers() -> (PathBuf, PathBuf) {
    let python = root().join("target/interop/py-mcp-venv/bin/python");
    let everything = root()
        .join("target/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        python.exists() && everything.exists(),
        "run .ci/run to install the peers (mcp {MCP_SDK_VERSION})"
    );
    (python, everything)
}

fn env_with(everything: &std::path::Path) -> Env {
    let env = Env::new("");
    let config = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}]\n",
        everything.display().to_string()
    );
    std::fs::write(env.path().join("switchboard.toml"), config).unwrap();
    trust_folder(env.path(), &env.path().join(".local/state"));
    env
}

async fn python_client(env: &Env, python: &std::path::Path, target: &[&str]) -> Value {
    let out = tokio::process::Command::new(python)
        .arg(root().join("tests/support/mcp_py_client.py"))
        .args(target)
        .current_dir(env.path())
        .env("HOME", env.path())
        .env("SB_ECHO", "everything__echo")
        .env("SB_ARGS", r#"{"message": "from python"}"#)
        .env("SB_WRITE", "everything__toggle-simulated-logging")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

fn check(answer: &Value) {
    let tools: Vec<&str> = answer["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        tools.contains(&"everything__echo") && tools.len() > 10,
        "{tools:?}"
    );
    assert_eq!(answer["echo"]["is_error"], false, "{answer}");
    assert!(
        answer["echo"]["text"]
            .as_str()
            .unwrap()
            .contains("from python")
    );
    assert_eq!(answer["write"]["is_error"], true, "{answer}");
    let refusal = answer["write"]["text"].as_str().unwrap();
    assert!(
        refusal.contains("allow = [\"everything__toggle-simulated-logging"),
        "{refusal}"
    );
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn the_python_sdk_uses_serve_over_stdio() {
    let (python, everything) = peers();
    let env = env_with(&everything);
    check(&python_client(&env, &python, &[SWITCHBOARD, "serve", "--stdio"]).await);
}

#[tokio::test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
async fn the_python_sdk_uses_serve_over_http() {
    let (python, everything) = peers();
    let env = env_with(&everything);
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    check(&python_client(&env, &python, &[gateway.url.as_str()]).await);
}
