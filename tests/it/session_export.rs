//! `switchboard export --format html` of a session made by a real `run` (a scripted
//! model calling the test server and a built-in): one self-contained page with a
//! card per call, hostile text inert, secrets masked as the wire capture masks them.
#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use serde_json::Value;

use crate::support::mcp::SERVER_BIN;

const HOSTILE: &str = r#"<script>alert("pwned")</script> & "quoted""#;

fn switchboard(home: &std::path::Path) -> Command {
    let mut cmd = Command::cargo_bin("switchboard").unwrap();
    cmd.current_dir(home)
        .env_clear()
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .timeout(std::time::Duration::from_secs(120));
    cmd
}

/// A session whose model calls `demo__echo` with hostile text and a secret, a tool
/// that fails, and a write the non-interactive run refuses; its id.
fn session(home: &std::path::Path) -> String {
    let call =
        |name: &str, arguments: Value| serde_json::json!({"name": name, "arguments": arguments});
    let first = serde_json::json!({
        "text": "Let me <b>echo</b> it.",
        "tool_calls": [
            call("demo__echo", serde_json::json!({"text": HOSTILE, "api_key": "sk-test-123"})),
            call("demo__fail", serde_json::json!({})),
            call("fs", serde_json::json!({"operation": "write", "path": "x.txt", "content": "x"})),
        ]
    });
    let script = home.join("script.jsonl");
    std::fs::write(
        &script,
        format!("{first}\n{{\"text\": \"Done </pre><script>alert(1)</script>\"}}\n"),
    )
    .unwrap();
    let dir = home.join("config/switchboard");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "default_provider = \"demo\"\n[providers.demo]\nkind = \"scripted\"\nscript = {:?}\n\n\
             [servers.demo]\ncommand = {SERVER_BIN:?}\n\n[policy]\nallow = [\"demo__*\"]\n",
            script.to_str().unwrap()
        ),
    )
    .unwrap();
    // The refused write makes it exit 5; the session is saved all the same.
    let out = switchboard(home)
        .args(["run", "--json", "go"])
        .assert()
        .code(5);
    let out = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    first["session_id"].as_str().unwrap().to_owned()
}

#[test]
fn export_html_is_one_inert_page_with_a_card_per_call() {
    let home = tempfile::tempdir().unwrap();
    let id = session(home.path());
    let out = switchboard(home.path())
        .args(["export", &id, "--format", "html"])
        .assert()
        .success();
    let html = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"),
        "{html}"
    );
    assert!(html.ends_with("</html>\n"));
    // Self-contained and inert: inline style, a policy that loads and runs nothing,
    // and no markup from the session.
    assert!(html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
    ));
    assert!(!html.contains("<script") && !html.contains("<link") && !html.contains(" src="));
    assert!(!html.contains("http://") && !html.contains("https://"));
    let escaped = "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &amp; &quot;quoted&quot;";
    // The echo's result, as the model got it.
    assert!(
        html.contains(&format!("<dt>Result</dt><dd><pre>{escaped}</pre></dd>")),
        "{html}"
    );
    assert!(
        html.contains("Let me &lt;b&gt;echo&lt;/b&gt; it."),
        "{html}"
    );
    assert!(html.contains("Done &lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    // The card: tool, arguments with the secret masked, who decided, how it ended.
    assert!(html.contains(
        "<article class=\"card ok\">\n<h3><code>demo__echo</code> <span class=\"muted\">model</span>"
    ), "{html}");
    assert!(
        html.contains("&quot;api_key&quot;: &quot;***&quot;"),
        "{html}"
    );
    assert!(!html.contains("sk-test-123"), "{html}");
    assert!(
        html.contains("<dt>Decision</dt><dd>rule allow = &quot;demo__*&quot;</dd>"),
        "{html}"
    );
    // The failed call and the refused write, with their errors.
    assert!(html.contains("<article class=\"card error\">\n<h3><code>demo__fail</code>"));
    assert!(html.contains("<dt>Error</dt><dd class=\"failure\"><pre>the tool failed</pre>"));
    assert!(html.contains("<article class=\"card denied\">\n<h3><code>fs</code>"));
    assert!(
        html.contains("<dt>Decision</dt><dd>non-interactive run ("),
        "{html}"
    );
    assert!(
        html.contains("add allow = [&quot;fs(write:*)&quot;]"),
        "{html}"
    );
}
