//! Importers: one sample file per foreign format, env expansion, warnings, inputs.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use switchboard::config::import::{
    ForeignFormat, Headless, InputError, InputResolver, import_str, to_toml,
};

fn fixture(rel: &str) -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

fn env(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/ada".into()),
        "SB_IMPORT_TOKEN" => Some("s3cret".into()),
        _ => None,
    }
}

fn import(rel: &str) -> switchboard::config::import::Imported {
    let (path, text) = fixture(rel);
    import_str(&path, &text, &env, &Headless).unwrap()
}

#[test]
fn claude_desktop() {
    let i = import("claude_desktop_config.json");
    assert_eq!(i.format, ForeignFormat::ClaudeDesktop);
    let fs = &i.servers["filesystem"];
    assert_eq!(fs.command.as_deref(), Some("npx"));
    assert_eq!(fs.args[2], "/home/ada/Desktop");
    assert_eq!(fs.env["DEBUG"], "1");
}

#[test]
fn claude_code_with_defaults_and_types() {
    let i = import(".mcp.json");
    assert_eq!(i.format, ForeignFormat::ClaudeCode);
    assert_eq!(i.servers["local"].args, ["--port", "8080"]);
    assert_eq!(i.servers["local"].env["TOKEN"], "s3cret");
    assert_eq!(i.servers["remote"].transport.as_deref(), Some("http"));
    assert_eq!(
        i.servers["remote"].headers["Authorization"],
        "Bearer s3cret"
    );
    assert_eq!(i.servers["legacy"].transport.as_deref(), Some("sse"));
    assert!(
        i.warnings
            .iter()
            .any(|w| w.contains("`oauth`") && w.contains("legacy")),
        "{:?}",
        i.warnings
    );
}

struct Answers;
impl InputResolver for Answers {
    fn resolve(&self, id: &str, _: Option<&str>, password: bool) -> Result<String, InputError> {
        assert!(password);
        Ok(format!("typed-{id}"))
    }
}

#[test]
fn vscode_inputs_fail_clearly_when_headless() {
    let (path, text) = fixture("vscode/mcp.json");
    let e = import_str(&path, &text, &env, &Headless)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("${input:api-key}") && e.contains("The API key") && e.contains("headless"),
        "{e}"
    );

    let i = import_str(&path, &text, &env, &Answers).unwrap();
    assert_eq!(i.format, ForeignFormat::VsCode);
    assert_eq!(i.servers["github"].headers["X-Key"], "typed-api-key");
    assert!(
        i.warnings.iter().any(|w| w.contains("`envFile`")),
        "{:?}",
        i.warnings
    );
    let i = import("vscode/no-inputs.json");
    assert_eq!(i.servers["memory"].env["HOME_DIR"], "/home/ada");
}

#[test]
fn inputs_needed_lists_what_the_tui_must_ask() {
    let (path, text) = fixture("vscode/mcp.json");
    let needed = switchboard::config::import::inputs_needed(&path, &text);
    assert_eq!(needed.len(), 1);
    assert_eq!(needed[0].id, "api-key");
    assert_eq!(needed[0].description.as_deref(), Some("The API key"));
    assert!(needed[0].password);

    let answers =
        switchboard::config::import::Answers([("api-key".to_owned(), "k-123".to_owned())].into());
    let i = import_str(&path, &text, &env, &answers).unwrap();
    assert_eq!(i.servers["github"].headers["X-Key"], "k-123");

    let (path, text) = fixture("vscode/no-inputs.json");
    assert!(switchboard::config::import::inputs_needed(&path, &text).is_empty());
}

#[test]
fn cursor_env_syntax() {
    let i = import("cursor/.cursor/mcp.json");
    assert_eq!(i.format, ForeignFormat::Cursor);
    assert_eq!(
        i.servers["search"].headers["Authorization"],
        "Bearer s3cret"
    );
    assert_eq!(
        i.servers["old"].url.as_deref(),
        Some("http://localhost:9000/sse")
    );
}

#[test]
fn codex_toml() {
    let i = import("codex/config.toml");
    assert_eq!(i.format, ForeignFormat::Codex);
    let docs = &i.servers["docs"];
    assert_eq!(docs.startup_timeout, Some(20.0));
    assert_eq!(docs.tool_timeout, Some(90.5));
    assert_eq!(
        docs.enabled_tools.as_deref(),
        Some(&["search".to_owned(), "read".to_owned()][..])
    );
    assert_eq!(docs.disabled_tools, ["delete"]);
    assert_eq!(docs.cwd.as_deref(), Some(Path::new("/srv")));
    let api = &i.servers["api"];
    assert_eq!(api.bearer_token_env_var.as_deref(), Some("API_TOKEN"));
    assert_eq!(api.headers["X-Team"], "core");
    assert_eq!(api.headers["X-Secret"], "s3cret");
    assert_eq!(api.enabled, Some(false));
    assert!(
        i.warnings
            .iter()
            .any(|w| w.contains("`experimental_thing`")),
        "{:?}",
        i.warnings
    );
}

#[test]
fn unset_variables_without_default_are_errors() {
    let text = r#"{"mcpServers": {"x": {"command": "a", "env": {"K": "${SB_SURELY_UNSET}"}}}}"#;
    let e = import_str(Path::new(".mcp.json"), text, &env, &Headless)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("SB_SURELY_UNSET is not set") && e.contains("mcpServers.x.env"),
        "{e}"
    );
}

#[test]
fn emitted_toml_is_a_valid_config_with_the_same_servers() {
    for rel in [
        "claude_desktop_config.json",
        ".mcp.json",
        "cursor/.cursor/mcp.json",
        "codex/config.toml",
    ] {
        let i = import(rel);
        let toml = to_toml(&i.servers);
        let config = switchboard::settings::parse_str(&toml, Path::new("imported.toml"))
            .unwrap_or_else(|e| panic!("{rel}: {e}\n{toml}"));
        assert_eq!(config.servers, i.servers, "{rel}");
    }
}

// Issue 10 item 4: `config import` keeps secrets out of the file it writes.
#[test]
fn config_import_keeps_env_references_and_warns_about_literal_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let source = r#"{"mcpServers": {
        "remote": {"type": "http", "url": "https://mcp.example.com/mcp",
            "headers": {"Authorization": "Bearer ${SB_IMPORT_SECRET}", "X-Team": "${env:SB_IMPORT_TEAM}",
                        "X-Api-Key": "sk-literal-123"}},
        "local": {"command": "srv", "env": {"API_TOKEN": "${SB_IMPORT_SECRET}"}}
    }}"#;
    std::fs::write(dir.path().join(".mcp.json"), source).unwrap();
    let out = assert_cmd::Command::cargo_bin("switchboard")
        .unwrap()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("XDG_CONFIG_HOME")
        .env("SB_IMPORT_SECRET", "the-real-token")
        .env("SB_IMPORT_TEAM", "core")
        .args(["--config", "sb.toml", "config", "import", ".mcp.json"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("servers.remote.headers.X-Api-Key: a literal secret"),
        "{stderr}"
    );
    let path = dir.path().join("sb.toml");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(!written.contains("the-real-token"), "{written}");
    assert!(
        written.contains("bearer_token_env_var = \"SB_IMPORT_SECRET\""),
        "{written}"
    );
    assert!(
        written.contains("X-Team = \"${SB_IMPORT_TEAM}\""),
        "{written}"
    );
    assert!(
        written.contains("API_TOKEN = \"${SB_IMPORT_SECRET}\""),
        "{written}"
    );
    assert!(!written.contains("Authorization"), "{written}");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
}
