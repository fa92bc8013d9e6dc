//! The binary's small commands: help, version, completions.
#![allow(clippy::unwrap_used)]

use assert_cmd::Command;

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Command::cargo_bin("switchboard")
            .unwrap()
            .args(["completions", shell])
            .assert()
            .success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(text.contains("switchboard"), "{shell}: {text}");
        assert!(text.contains("policy"), "{shell} completes subcommands");
    }
}

#[test]
fn help_lists_the_global_flags() {
    let out = Command::cargo_bin("switchboard")
        .unwrap()
        .arg("--help")
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    for flag in ["--config", "--theme", "--log-file", "--no-color"] {
        assert!(text.contains(flag), "{flag} in:\n{text}");
    }
    assert!(!text.contains("--debug-panic"), "test flags stay hidden");
}

#[test]
fn a_bad_config_stops_before_the_screen_with_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("switchboard.toml"),
        "[ui]\nmouse = \"yes\"\n",
    )
    .unwrap();
    let out = Command::cargo_bin("switchboard")
        .unwrap()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("cfg"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("switchboard.toml:2:9: `ui.mouse`"), "{err}");
    let stdout = &out.get_output().stdout;
    assert!(
        !stdout.windows(2).any(|w| w == b"\x1b["),
        "the terminal was not touched"
    );
}
