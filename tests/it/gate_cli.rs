//! `switchboard policy explain` against the real binary.
#![allow(clippy::unwrap_used)] // helpers outside #[test] fns unwrap too

use assert_cmd::Command;

const CONFIG: &str = r#"
[policy]
mode = "ask"
allow = ["fs(write:docs/**)"]
deny = ["fs(delete:*)"]
"#;

fn explain(config: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switchboard.toml");
    std::fs::write(&path, config).unwrap();
    Command::cargo_bin("switchboard")
        .unwrap()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .arg("--config")
        .arg(&path)
        .args(["policy", "explain"])
        .args(extra)
        .assert()
}

fn stdout_of(config: &str, extra: &[&str]) -> String {
    let out = explain(config, extra).success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn explains_an_allow_rule() {
    let out = stdout_of(
        CONFIG,
        &["fs", r#"{"operation":"write","path":"docs/a.md"}"#],
    );
    assert_eq!(
        out,
        "fs {\"operation\":\"write\",\"path\":\"docs/a.md\"} → write → allow (rule allow = \"fs(write:docs/**)\")\n"
    );
}

#[test]
fn explains_deny_and_mode() {
    let out = stdout_of(
        CONFIG,
        &["fs", r#"{"operation":"delete","path":"docs/a.md"}"#],
    );
    assert!(
        out.ends_with("→ delete → deny (rule deny = \"fs(delete:*)\")\n"),
        "{out}"
    );
    let out = stdout_of(CONFIG, &["shell", r#"{"program":"ls"}"#]);
    assert!(
        out.ends_with("→ compute → ask (mode ask: compute calls need approval)\n"),
        "{out}"
    );
    let out = stdout_of(CONFIG, &["http", r#"{"url":"https://x.io"}"#]);
    assert!(
        out.ends_with("→ read → allow (mode ask: read calls run)\n"),
        "{out}"
    );
}

#[test]
fn unknown_tools_and_overrides() {
    // No such server: said plainly, and what was assumed.
    let out = stdout_of(CONFIG, &["everything__echo"]);
    assert_eq!(
        out,
        "everything__echo {} → unknown → ask (mode ask: unknown calls need approval)\n\
         note: could not read everything__echo's annotations from server everything (no MCP \
         server named everything); its effect was taken as unknown (--effect EFFECT says \
         what to assume)\n"
    );
    let out = stdout_of(CONFIG, &["everything__echo", "{}", "--effect", "read"]);
    assert!(out.contains("→ read → allow"), "{out}");
    let out = stdout_of(
        CONFIG,
        &["shell", r#"{"program":"ls"}"#, "--approve", "full-auto"],
    );
    assert!(
        out.ends_with("→ compute → allow (mode full-auto: compute calls run)\n"),
        "{out}"
    );
}

#[test]
fn invalid_rule_is_reported_with_its_place() {
    let bad = "[policy]\nallow = [\"fs(write:docs\"]\n";
    let out = explain(bad, &["fs"]).failure().get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert!(err.contains("switchboard.toml:2:10"), "{err}");
    assert!(err.contains("policy.allow[0]"), "{err}");
}

#[test]
fn bad_arguments_fail() {
    explain(CONFIG, &["fs", "[1]"]).failure();
    explain(CONFIG, &["fs", "{}", "--approve", "yolo"]).failure();
}

/// An MCP tool is classified from its server's annotations, as the gate does: the
/// named server alone is started to read them (the test server's `echo` says
/// `readOnlyHint`, `write_thing` does not).
#[test]
fn an_mcp_tool_is_explained_by_its_servers_annotations() {
    let config = format!(
        "[servers.t]\ncommand = {:?}\n\n[servers.never]\ncommand = \"/nonexistent/never\"\n\n[policy]\nmode = \"ask\"\n",
        crate::support::mcp::SERVER_BIN
    );
    let out = stdout_of(&config, &["t__echo", r#"{"text":"hi"}"#]);
    assert_eq!(
        out,
        "t__echo {\"text\":\"hi\"} → read → allow (mode ask: read calls run)\n"
    );
    let out = stdout_of(&config, &["t__write_thing"]);
    assert!(out.starts_with("t__write_thing {} → write → ask"), "{out}");
}
