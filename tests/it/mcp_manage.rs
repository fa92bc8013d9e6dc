//! `switchboard mcp add | add-json | list | get | remove | enable | disable` against
//! the real binary, each test in its own HOME, XDG_CONFIG_HOME and working directory.

#![allow(clippy::unwrap_used)]

use std::fs;

use crate::support::cli::Sandbox;
use crate::support::write;

const COMMENTED: &str = "# my switchboard\n\
    \n\
    [policy]\n\
    mode = \"ask\" # ask for writes\n\
    \n\
    # the weather service, local\n\
    [servers.weather]\n\
    command = \"weather-mcp\"\n\
    args = [\"--units\", \"metric\"] # metric only\n";

#[test]
fn add_disable_enable_remove_round_trip_keeps_comments() {
    let sb = Sandbox::new();
    write(&sb.user_file(), COMMENTED);
    let out = sb.ok(&[
        "mcp", "add", "echo", "-e", "DEBUG=1", "--", "node", "echo.js", "--port", "3",
    ]);
    assert!(out.starts_with("added stdio server echo in "), "{out}");
    sb.ok(&[
        "mcp",
        "add",
        "web",
        "--url",
        "https://example.com/mcp",
        "--bearer-env",
        "WEB_TOKEN",
    ]);
    let text = fs::read_to_string(sb.user_file()).unwrap();
    assert_eq!(
        text,
        format!(
            "{COMMENTED}\n[servers.echo]\ncommand = \"node\"\nargs = [\"echo.js\", \"--port\", \"3\"]\n\
             env = {{ DEBUG = \"1\" }}\n\n[servers.web]\nurl = \"https://example.com/mcp\"\n\
             bearer_token_env_var = \"WEB_TOKEN\"\n"
        )
    );
    let list = sb.ok(&["mcp", "list"]);
    assert!(
        list.contains("echo             stdio  yes      node echo.js --port 3\n"),
        "{list}"
    );
    sb.ok(&["mcp", "disable", "weather"]);
    let text = fs::read_to_string(sb.user_file()).unwrap();
    assert!(
        text.contains("args = [\"--units\", \"metric\"] # metric only\nenabled = false\n"),
        "{text}"
    );
    assert!(
        sb.ok(&["mcp", "list"])
            .contains("weather          stdio  no ")
    );
    sb.ok(&["mcp", "enable", "weather"]);
    sb.ok(&["mcp", "remove", "echo"]);
    sb.ok(&["mcp", "remove", "web"]);
    let text = fs::read_to_string(sb.user_file()).unwrap();
    // Enabling takes the line away again: the file is as it was.
    assert_eq!(text, COMMENTED);
    sb.ok(&["config", "check"]);
    let (code, _, stderr) = sb.run(&["mcp", "remove", "echo"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no server named `echo`"), "{stderr}");
}

#[test]
fn add_json_reads_each_of_the_five_formats() {
    let sb = Sandbox::new();
    let entries = [
        (
            "desktop",
            r#"{"command":"npx","args":["-y","pkg"],"env":{"DEBUG":"1"}}"#,
            "Claude Desktop",
        ),
        (
            "code",
            r#"{"type":"http","url":"https://h/mcp","headers":{"Authorization":"Bearer ${CODE_TOKEN}"}}"#,
            "Claude Code",
        ),
        (
            "vscode",
            r#"{"servers":{"vscode":{"type":"stdio","command":"node","args":["s.js"],"env":{"KEY":"${env:MY_KEY}"}}}}"#,
            "VS Code",
        ),
        (
            "cursor",
            r#"{"url":"https://h/sse","headers":{"X-Team":"a"}}"#,
            "Cursor",
        ),
        (
            "codex",
            r#"{"command":"cx","args":["mcp"],"startup_timeout_sec":20,"tool_timeout_sec":60,"enabled_tools":["a"]}"#,
            "Codex",
        ),
    ];
    for (name, json, format) in entries {
        let (code, _, stderr) = sb.run(&["mcp", "add-json", name, json, "--scope", "project"]);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("read as a {format} entry")),
            "{stderr}"
        );
    }
    let text = fs::read_to_string(sb.project_file()).unwrap();
    for expected in [
        "[servers.desktop]\ncommand = \"npx\"\nargs = [\"-y\", \"pkg\"]\nenv = { DEBUG = \"1\" }\n",
        "[servers.code]\ntype = \"http\"\nurl = \"https://h/mcp\"\nbearer_token_env_var = \"CODE_TOKEN\"\n",
        "[servers.vscode]\ntype = \"stdio\"\ncommand = \"node\"\nargs = [\"s.js\"]\nenv = { KEY = \"${MY_KEY}\" }\n",
        "[servers.cursor]\nurl = \"https://h/sse\"\nheaders = { X-Team = \"a\" }\n",
        "[servers.codex]\ncommand = \"cx\"\nargs = [\"mcp\"]\nstartup_timeout = 20.0\ntool_timeout = 60.0\nenabled_tools = [\"a\"]\n",
    ] {
        assert!(text.contains(expected), "{expected}\nin\n{text}");
    }
    let (code, out, stderr) = sb.run_env(
        &["config", "check"],
        &[("CODE_TOKEN", "t"), ("MY_KEY", "k")],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(out.contains("5 servers"), "{out}");
}

#[test]
fn invalid_adds_are_refused_at_file_line_and_leave_the_file_alone() {
    let sb = Sandbox::new();
    write(&sb.user_file(), COMMENTED);
    let file = sb.user_file().display().to_string();
    let cases: [(&[&str], &str); 4] = [
        (
            &["mcp", "add", "bad", "--transport", "pigeon", "--", "ls"],
            ":12:8: `servers.bad.type`: unknown value `pigeon`",
        ),
        (
            &["mcp", "add", "bad", "--", "ls;rm", "-rf"],
            ":12:11: `servers.bad.command`",
        ),
        (
            &[
                "mcp",
                "add-json",
                "bad",
                r#"{"command":"a","url":"http://b"}"#,
            ],
            ":13:1: `servers.bad`: set only one of `command`",
        ),
        (
            &["mcp", "add", "weather", "--", "other"],
            "already configured",
        ),
    ];
    for (args, expected) in cases {
        let (code, _, stderr) = sb.run(args);
        assert_eq!(code, 1, "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        if expected.starts_with(':') {
            assert!(stderr.starts_with(&format!("{file}{expected}")), "{stderr}");
        }
        assert_eq!(fs::read_to_string(sb.user_file()).unwrap(), COMMENTED);
    }
    // A literal secret never reaches the file.
    let (code, _, stderr) = sb.run(&[
        "mcp",
        "add",
        "s",
        "--url",
        "https://h",
        "--header",
        "Authorization=Bearer abc123",
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("servers.s.headers.Authorization: a secret would be written"),
        "{stderr}"
    );
    assert!(!stderr.contains("abc123"));
    // A file that does not load is not edited.
    write(&sb.user_file(), "[servers.a]\ncommand = 3\n");
    let (code, _, stderr) = sb.run(&["mcp", "add", "b", "--", "b"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with(&format!("{file}:2:")), "{stderr}");
    assert_eq!(
        fs::read_to_string(sb.user_file()).unwrap(),
        "[servers.a]\ncommand = 3\n"
    );
}

#[test]
fn scope_picks_the_user_or_the_project_file() {
    let sb = Sandbox::new();
    sb.ok(&["mcp", "add", "mine", "--scope", "user", "--", "m"]);
    sb.ok(&["mcp", "add", "ours", "--scope", "project", "--", "o"]);
    assert!(
        fs::read_to_string(sb.user_file())
            .unwrap()
            .contains("[servers.mine]")
    );
    let project = fs::read_to_string(sb.project_file()).unwrap();
    assert!(project.contains("[servers.ours]") && !project.contains("mine"));
    assert!(sb.ok(&["mcp", "list", "--scope", "user"]).contains("mine "));
    // Without --scope: both layers, the project's trusted as `mcp add` created it.
    let list = sb.ok(&["mcp", "list"]);
    assert!(list.contains("ours ") && list.contains("mine "), "{list}");
}

#[test]
fn get_shows_config_and_live_status_with_secrets_masked() {
    let sb = Sandbox::new();
    let server = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");
    sb.ok(&["mcp", "add", "t", "--scope", "project", "--", server]);
    let out = sb.ok(&["mcp", "get", "t"]);
    assert!(
        out.contains(&format!("[servers.t]\ncommand = \"{server}\"\n")),
        "{out}"
    );
    assert!(out.contains("status: ready switchboard-test"), "{out}");
    assert!(out.contains("catalog: 12 tools"), "{out}");
    // A hand-written literal secret is shown masked (in the person's own file: a
    // hand edit of the project's would make it untrusted).
    write(
        &sb.user_file(),
        "[servers.h]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = { X-Api-Key = \"sekrit-value\" }\nenabled = false\n",
    );
    let out = sb.ok(&["mcp", "get", "h"]);
    assert!(
        out.contains("X-Api-Key = \"****\"") && !out.contains("sekrit"),
        "{out}"
    );
    assert!(out.contains("status: disabled"), "{out}");
    let json: serde_json::Value =
        serde_json::from_str(&sb.ok(&["mcp", "get", "t", "--json"])).unwrap();
    assert_eq!(json["status"]["status"], "ready");
    let (code, _, stderr) = sb.run(&["mcp", "get", "nope"]);
    assert_eq!((code, stderr.trim()), (1, "no MCP server named nope"));
}
