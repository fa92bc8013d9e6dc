//! The CLI in both protocol generations: `--protocol`, the era in `servers`, and
//! `--elicit` answering servers that ask.
#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use serde_json::Value;

use crate::support::mcp::SERVER_BIN;
use crate::support::trust_folder;

fn env(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[servers.t]\ncommand = {SERVER_BIN:?}\nargs = [\"--asking\"]\n\n[servers.old]\ncommand = {SERVER_BIN:?}\nargs = [\"--protocol\", \"2025-11-25\"]\n{extra}"
    );
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    trust_folder(dir.path(), &dir.path().join(".local/state"));
    dir
}

fn run(dir: &tempfile::TempDir, args: &[&str], code: i32) -> (String, String) {
    let out = Command::cargo_bin("switchboard")
        .unwrap()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(code)
        .get_output()
        .clone();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn eras(dir: &tempfile::TempDir, extra: &[&str]) -> Vec<(String, String)> {
    let mut args = vec!["servers", "--json"];
    args.extend_from_slice(extra);
    let json: Value = serde_json::from_str(&run(dir, &args, 0).0).unwrap();
    json["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["era"].as_str().unwrap_or("none").to_owned(),
            )
        })
        .collect()
}

#[test]
fn servers_show_the_era_and_protocol_overrides_it() {
    let dir = env("");
    let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    assert_eq!(
        eras(&dir, &[]),
        [pair("old", "2025-11-25"), pair("t", "2026-07-28")]
    );
    assert_eq!(
        eras(&dir, &["--protocol", "2025-11-25"]),
        [pair("old", "2025-11-25"), pair("t", "2025-11-25")]
    );
    let (table, _) = run(&dir, &["servers"], 0);
    assert!(table.contains("protocol 2026-07-28, stateless"), "{table}");
    assert!(table.contains("protocol 2025-11-25, session"), "{table}");
    // Pinned to 2026-07-28, the old server cannot connect (and `servers` exits 3).
    let json: Value =
        serde_json::from_str(&run(&dir, &["servers", "--json", "--protocol", "2026-07-28"], 3).0)
            .unwrap();
    let old = &json["servers"][0];
    assert_eq!(old["status"], "failed", "{old}");
    assert!(
        old["error"]
            .as_str()
            .unwrap()
            .contains("mcp_handshake_failed")
    );
}

#[test]
fn elicit_flag_answers_servers_that_ask() {
    let dir = env("");
    for protocol in ["2025-11-25", "2026-07-28"] {
        let call = |extra: &[&str]| {
            let mut args = vec!["call", "t", "ask_name", "--protocol", protocol];
            args.extend_from_slice(extra);
            run(&dir, &args, 0)
        };
        let (out, err) = call(&[]);
        assert!(out.contains("decline"), "{protocol}: {out}");
        assert!(
            err.contains("--elicit"),
            "{protocol}: the note names the flag: {err}"
        );
        let (out, _) = call(&["--elicit", "accept-defaults"]);
        assert!(out.contains("Hello, World"), "{protocol}: {out}");
        let (out, _) = call(&["--elicit", "cancel"]);
        assert!(out.contains("cancel"), "{protocol}: {out}");
    }
    let (_, err) = run(&dir, &["call", "t", "ask_name", "--elicit", "maybe"], 2);
    assert!(err.contains("accept-defaults"), "{err}");
}

#[test]
fn headless_sampling_is_refused_and_deny_refuses_without_asking() {
    let dir = env("[mcp]\nsampling = \"deny\"\n");
    for protocol in ["2025-11-25", "2026-07-28"] {
        let (out, err) = run(&dir, &["call", "t", "sample", "--protocol", protocol], 4);
        assert!(
            format!("{out}{err}").contains("sampling = \"deny\""),
            "{protocol}: {out} {err}"
        );
    }
    // Without a policy, headless still refuses: nobody is there to approve.
    let dir2 = env("");
    let (out, err) = run(&dir2, &["call", "t", "sample"], 4);
    assert!(
        format!("{out}{err}").contains("without a person to approve it"),
        "{out} {err}"
    );
    // Each request is in the audit log with its outcome.
    let outcomes = |dir: &tempfile::TempDir| -> Vec<String> {
        let log = dir.path().join(".local/state/switchboard/audit.jsonl");
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["event"] == "server_request" && r["request"] == "sampling")
            .map(|r| {
                format!(
                    "{}:{}",
                    r["server"].as_str().unwrap(),
                    r["outcome"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(outcomes(&dir), ["t:deny (policy)", "t:deny (policy)"]);
    assert_eq!(outcomes(&dir2), ["t:reject"]);
}

#[test]
fn null_for_an_optional_argument_passes_the_schema_check() {
    let dir = env("");
    let (out, _) = run(
        &dir,
        &[
            "call",
            "t",
            "slow",
            "--args",
            r#"{"millis": 10, "progress": null}"#,
        ],
        0,
    );
    assert!(out.contains("slept 10 ms"), "{out}");
    // A required argument still has to be there.
    let (_, err) = run(
        &dir,
        &["call", "t", "echo", "--args", r#"{"text": null}"#],
        1,
    );
    assert!(err.contains("invalid argument"), "{err}");
}
