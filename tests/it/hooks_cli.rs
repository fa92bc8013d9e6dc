//! `switchboard hooks run`: the configured hooks of an event, run from the command line.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;

use assert_cmd::Command;
use serde_json::Value;

#[test]
fn hooks_run_prints_the_verdict_and_exits_5_on_deny() {
    let dir = tempfile::tempdir().unwrap();
    let check = dir.path().join("check.sh");
    std::fs::write(
        &check,
        "#!/bin/sh\ngrep -q Atlantis && { echo 'no such city' >&2; exit 2; }\necho '{\"decision\": \"ask\", \"context\": \"rate-limited API\"}'\n",
    )
    .unwrap();
    std::fs::set_permissions(&check, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = dir.path().join("switchboard.toml");
    std::fs::write(
        &config,
        "[[hooks.pre_tool_use]]\nmatcher = \"weather__*\"\ncommand = [\"./check.sh\"]\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = Command::cargo_bin("switchboard")
            .unwrap()
            .current_dir(dir.path())
            .arg("--config")
            .arg(&config)
            .args(["hooks", "run", "pre_tool_use"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, out) = run(&["--tool", "weather__get", "--args", r#"{"city":"Atlantis"}"#]);
    assert_eq!(code, Some(5));
    assert!(out.starts_with("deny   exit 2 "), "{out}");
    assert!(out.contains("decision: deny — no such city\n"), "{out}");

    let (code, out) = run(&[
        "--tool",
        "weather__get",
        "--args",
        r#"{"city":"Oslo"}"#,
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"], "ask");
    assert_eq!(v["context"][0], "rate-limited API");
    assert_eq!(v["hooks"][0]["command"], "./check.sh");

    let (code, out) = run(&["--tool", "fs"]);
    assert_eq!((code, out.as_str()), (Some(0), "no hook matches\n"));
}
