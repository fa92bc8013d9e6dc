//! The MCP subcommands against the real binary and the test server: output, JSON and
//! exit codes (0 ok, 1 usage/config, 3 unreachable, 4 remote/tool error, 5 denied).
#![allow(clippy::unwrap_used)]

use crate::support;

use assert_cmd::Command;
use serde_json::Value;

use crate::support::mcp::SERVER_BIN;
use crate::support::trust_folder;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new(extra: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "[servers.t]\ncommand = {SERVER_BIN:?}\n\n[servers.dead]\ncommand = {SERVER_BIN:?}\nargs = [\"--misbehave\", \"exit-on-init\"]\n{extra}"
        );
        std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
        trust_folder(dir.path(), &dir.path().join(".local/state"));
        Self { dir }
    }

    fn cmd(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        crate::support::cli::switchboard_in(self.dir.path())
            .args(args)
            .assert()
    }

    fn stdout(&self, args: &[&str], code: i32) -> String {
        let out = self.cmd(args).code(code).get_output().stdout.clone();
        String::from_utf8(out).unwrap()
    }
}

#[test]
fn servers_lists_status_and_counts() {
    let env = Env::new("");
    // `dead` failed to start: the listing is printed and the exit status says so.
    let out = env.stdout(&["servers"], 3);
    assert!(
        out.contains("t ") && out.contains("ready") && out.contains("switchboard-test 1.2.3"),
        "{out}"
    );
    assert!(
        out.contains("dead") && out.contains("mcp_handshake_failed"),
        "{out}"
    );
    let json: Value = serde_json::from_str(&env.stdout(&["servers", "--json"], 3)).unwrap();
    let t = json["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "t")
        .unwrap();
    assert_eq!(t["counts"]["tools"], 12);
    // What its declarations cost, weighed as the default (scripted, OpenAI-shaped)
    // provider is sent them: their compact JSON over 4.
    let declared: Value =
        serde_json::from_str(&env.stdout(&["catalog", "--server", "t", "--format", "openai"], 0))
            .unwrap();
    let bytes: usize = declared
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.to_string().len())
        .sum();
    assert_eq!(t["tool_tokens"], bytes.div_ceil(4), "{declared}");
    assert_eq!(t["tool_tokens_for"], "scripted");
    assert!(out.contains("TOK"), "{out}");
    // `auto` finds the newest generation the test server speaks.
    assert_eq!(t["info"]["protocol_version"], "2026-07-28");
    assert_eq!(t["era"], "2026-07-28");
}

#[test]
fn catalog_human_json_and_provider_formats() {
    let env = Env::new("[policy]\neffects = { \"t__plain\" = \"read\" }\n");
    let out = env.stdout(&["catalog", "--server", "t"], 0);
    assert!(
        out.contains("12 tools, 12 resources, 12 templates, 12 prompts"),
        "{out}"
    );
    assert!(
        out.contains("t__delete_thing") && out.contains("delete"),
        "{out}"
    );
    assert!(out.contains("greet(name, [style])"), "{out}");
    // Columns line up however long the names are: every tool's effect starts at the
    // same column.
    let effect_columns: std::collections::BTreeSet<usize> = out
        .lines()
        .filter(|l| l.starts_with("    t__"))
        .map(|l| {
            let name_end = l[4..].find(' ').unwrap() + 4;
            name_end + l[name_end..].find(|c: char| c != ' ').unwrap()
        })
        .collect();
    assert_eq!(effect_columns.len(), 1, "{out}");
    let json: Value =
        serde_json::from_str(&env.stdout(&["catalog", "--server", "t", "--json"], 0)).unwrap();
    let tools = json["servers"][0]["tools"].as_array().unwrap();
    let plain = tools.iter().find(|t| t["name"] == "plain").unwrap();
    assert_eq!(plain["effect"], "read", "[policy] effects override");
    assert_eq!(
        json["servers"][0]["templates"].as_array().unwrap().len(),
        12
    );
    let openai: Value =
        serde_json::from_str(&env.stdout(&["catalog", "--server", "t", "--format", "openai"], 0))
            .unwrap();
    let add = openai
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["function"]["name"] == "t__add")
        .unwrap();
    assert_eq!(add["function"]["parameters"]["required"][0], "a");
    let anthropic: Value =
        serde_json::from_str(&env.stdout(&["catalog", "--format", "anthropic"], 0)).unwrap();
    assert!(
        anthropic
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["name"] == "t__echo" && d["input_schema"]["type"] == "object")
    );
    env.cmd(&["catalog", "--server", "dead"]).code(3);
    env.cmd(&["catalog", "--server", "nope"]).code(1);
}

#[test]
fn call_runs_through_the_gate() {
    let env = Env::new("[servers.t2]\ncommand = \"x\"\nenabled = false\n");
    assert_eq!(
        env.stdout(&["call", "t", "echo", "-a", "text=hello"], 0),
        "hello\n"
    );
    let out = env.stdout(
        &[
            "call",
            "t",
            "add",
            "--args",
            "{\"a\": 2, \"b\": 5}",
            "--json",
        ],
        0,
    );
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["structured"]["sum"], 7.0);
    // Delete needs approval in ask mode; non-interactive → denied, naming the rule.
    let denied = env.cmd(&["call", "t", "delete_thing"]).code(5);
    let stderr = String::from_utf8(denied.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("allow = [\"t__delete_thing\"]"), "{stderr}");
    env.cmd(&["call", "t", "delete_thing", "--approve", "full-auto"])
        .code(0);
    env.cmd(&[
        "call",
        "t",
        "echo",
        "-a",
        "text=x",
        "--approve",
        "read-only",
    ])
    .code(0);
    env.cmd(&["call", "t", "remote_error"]).code(4);
    env.cmd(&["call", "t", "fail"]).code(4);
    env.cmd(&["call", "dead", "echo"]).code(3);
    env.cmd(&["call", "nope", "echo"]).code(1);
    env.cmd(&["call", "t", "no_such_tool"]).code(1);
    env.cmd(&["call", "t2", "echo"]).code(1);
    env.cmd(&["call", "t", "echo", "--args", "[1]"]).code(1);
}

#[test]
fn deny_rules_and_disabled_tools() {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[servers.t]\ncommand = {SERVER_BIN:?}\ndisabled_tools = [\"echo\"]\n\n[policy]\ndeny = [\"t__add\"]\n"
    );
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    trust_folder(dir.path(), &dir.path().join(".local/state"));
    let run = |args: &[&str]| {
        Command::cargo_bin("switchboard")
            .unwrap()
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .env_remove("XDG_STATE_HOME")
            .args(args)
            .assert()
    };
    run(&[
        "call",
        "t",
        "add",
        "-a",
        "a=1",
        "-a",
        "b=1",
        "--approve",
        "full-auto",
    ])
    .code(5);
    let off = run(&["call", "t", "echo", "-a", "text=x"]).code(1);
    let stderr = String::from_utf8(off.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("disabled_tools"), "{stderr}");
}

#[test]
fn read_and_prompt() {
    let env = Env::new("");
    assert_eq!(
        env.stdout(&["read", "t", "test://text/2"], 0),
        "contents of test://text/2\n"
    );
    let out = env.stdout(&["read", "t", "test://blob/12", "--json"], 0);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["contents"][0]["blob"], "AAEC");
    let saved = env
        .cmd(&["read", "t", "test://blob/12", "-o", "blob.bin"])
        .code(0);
    let said = String::from_utf8_lossy(&saved.get_output().stderr).into_owned();
    assert!(
        said.contains("saved 3 bytes (application/octet-stream)"),
        "{said}"
    );
    let path = env.dir.path().join("blob.bin");
    assert_eq!(std::fs::read(&path).unwrap(), [0, 1, 2]);
    let refused = env
        .cmd(&["read", "t", "test://text/2", "-o", "blob.bin"])
        .code(1);
    let said = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(said.contains("exists"), "{said}");
    env.cmd(&["read", "t", "test://text/2", "-o", "blob.bin", "--force"])
        .code(0);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "contents of test://text/2"
    );
    env.cmd(&["read", "t", "test://missing"]).code(4);
    env.cmd(&["read", "dead", "test://text/1"]).code(3);
    let out = env.stdout(
        &[
            "prompt",
            "t",
            "greet",
            "-a",
            "name=Ada",
            "-a",
            "style=formal",
        ],
        0,
    );
    assert!(out.contains("user: Good day, Ada."), "{out}");
    env.cmd(&["prompt", "t", "greet"]).code(4);
}

#[test]
fn mcp_config_files_load_directly_and_import_writes_toml() {
    let env = Env::new("");
    let file = env.dir.path().join(".mcp.json");
    let json = format!(
        r#"{{"mcpServers": {{"imported": {{"command": {SERVER_BIN:?}, "args": [], "oauth": {{}}}}}}}}"#
    );
    std::fs::write(&file, json).unwrap();
    // A file inside the folder is the folder's: trusted first.
    env.cmd(&["--mcp-config", ".mcp.json", "trust", "--yes"])
        .code(0);
    let assert = env
        .cmd(&[
            "--mcp-config",
            ".mcp.json",
            "call",
            "imported",
            "echo",
            "-a",
            "text=via import",
        ])
        .code(0);
    let out = assert.get_output();
    assert_eq!(
        String::from_utf8(out.stdout.clone()).unwrap(),
        "via import\n"
    );
    assert!(
        String::from_utf8(out.stderr.clone())
            .unwrap()
            .contains("unsupported key `oauth`")
    );

    let printed = env.stdout(&["config", "import", ".mcp.json", "--print"], 0);
    assert!(printed.contains("[servers.imported]"), "{printed}");
    env.stdout(&["config", "import", ".mcp.json"], 0);
    // Into the person's own file, never the folder's.
    let written =
        std::fs::read_to_string(env.dir.path().join(".config/switchboard/config.toml")).unwrap();
    assert!(written.contains("[servers.imported]"), "{written}");
    // Importing again clashes.
    env.cmd(&["config", "import", ".mcp.json"]).code(1);
    assert_eq!(
        env.stdout(&["call", "imported", "echo", "-a", "text=from config"], 0),
        "from config\n"
    );
}

#[test]
fn refused_commands_and_urls_fail_to_start() {
    let env = Env::new(
        "[servers.shell]\ncommand = \"echo hi | cat\"\n[servers.file]\nurl = \"file:///etc/passwd\"\n",
    );
    let out = env.stdout(&["servers"], 3);
    assert!(out.contains("shell metacharacter"), "{out}");
    assert!(out.contains("must use http or https"), "{out}");
    env.cmd(&["call", "shell", "x"]).code(3);
    env.cmd(&["call", "file", "x"]).code(3);
}

#[test]
fn streamable_http_server_from_the_cli() {
    let server = support::mcp::HttpServer::start("http");
    let env = Env::new(&format!("[servers.web]\nurl = {:?}\n", server.url));
    assert_eq!(
        env.stdout(&["call", "web", "echo", "-a", "text=over http"], 0),
        "over http\n"
    );
}

/// Sandboxed stdio servers (Landlock): the same probe server run sandboxed and not.
#[cfg(target_os = "linux")]
mod sandbox {
    use super::*;
    use std::path::{Path, PathBuf};

    struct Box {
        dir: tempfile::TempDir,
        home: tempfile::TempDir,
        allowed: PathBuf,
        outside: tempfile::TempDir,
    }

    impl Box {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let allowed = dir.path().join("allowed");
            std::fs::create_dir(&allowed).unwrap();
            let write = allowed.display().to_string();
            let config = format!(
                "[servers.box]\ncommand = {SERVER_BIN:?}\nargs = [\"--misbehave\", \"probes\"]\n\
                 [servers.box.sandbox]\nwrite = [{write:?}]\n\n\
                 [servers.open]\ncommand = {SERVER_BIN:?}\nargs = [\"--misbehave\", \"probes\"]\nsandbox = false\n"
            );
            std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
            let home = tempfile::tempdir().unwrap();
            super::trust_folder(dir.path(), &home.path().join(".local/state"));
            std::fs::write(home.path().join("secret"), "s").unwrap();
            Self {
                dir,
                home,
                allowed,
                outside: tempfile::tempdir().unwrap(),
            }
        }

        fn run(&self, args: &[&str]) -> assert_cmd::assert::Assert {
            Command::cargo_bin("switchboard")
                .unwrap()
                .current_dir(self.dir.path())
                .env("HOME", self.home.path())
                // The servers' private temp dirs go here, and away with the test.
                .env("TMPDIR", self.dir.path())
                .env("SWITCHBOARD_TEST_SECRET", "1")
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("XDG_STATE_HOME")
                .args(args)
                .timeout(std::time::Duration::from_secs(120))
                .assert()
        }

        fn probe(&self, server: &str, tool: &str, args: &Value) -> String {
            let out = self
                .run(&["call", server, tool, "--args", &args.to_string()])
                .code(0)
                .get_output()
                .stdout
                .clone();
            String::from_utf8(out).unwrap()
        }

        fn write(&self, server: &str, path: &Path) -> String {
            self.probe(
                server,
                "probe_write",
                &serde_json::json!({ "path": path.join(server) }),
            )
        }
    }

    /// Whether this kernel enforces Landlock: the launcher itself, on `true`.
    fn landlock_here() -> bool {
        let policy =
            r#"{"read":["/usr","/lib","/lib64","/bin"],"write":[],"network":false,"env":[]}"#;
        let out = Command::cargo_bin("switchboard")
            .unwrap()
            .args(["__sandbox-exec", "--policy", policy, "--", "true"])
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        match out.status.code() {
            Some(0) => true,
            Some(125) => {
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(err.contains("Landlock is unavailable"), "{err}");
                false
            }
            other => panic!("launcher exit {other:?}: {out:?}"),
        }
    }

    #[test]
    fn a_sandboxed_server_writes_only_its_paths_reaches_no_port_and_keeps_no_secrets() {
        let b = Box::new();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        if !landlock_here() {
            // Never unsandboxed: the server does not start, and says why.
            let err = b.run(&["call", "box", "probe_env"]).code(3);
            let err = String::from_utf8_lossy(&err.get_output().stderr).into_owned();
            assert!(
                err.contains("box") && err.contains("Landlock is unavailable"),
                "{err}"
            );
            return;
        }
        assert_eq!(b.write("box", &b.allowed), "ok\n");
        assert!(b.allowed.join("box").is_file());
        // Its private temp dir (TMPDIR) is writable too.
        let tmp = b.probe(
            "box",
            "probe_write",
            &serde_json::json!({"path": "scratch"}),
        );
        assert_eq!(tmp, "ok\n");
        // It landed in the server's private dir under switchboard's TMPDIR.
        let child = |dir: &Path, prefix: &str| {
            std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
                .unwrap()
        };
        let private = child(&child(b.dir.path(), "switchboard-sandbox-"), "box-");
        assert!(private.join("scratch").is_file());
        let outside = b.write("box", b.outside.path());
        assert!(outside.starts_with("error:"), "{outside}");
        assert!(!b.outside.path().join("box").exists());
        let secret = b.home.path().join("secret");
        let read = b.probe("box", "probe_read", &serde_json::json!({ "path": secret }));
        assert!(read.starts_with("error:"), "HOME is readable: {read}");
        let connect = b.probe("box", "probe_connect", &serde_json::json!({ "port": port }));
        assert!(connect.starts_with("error:"), "{connect}");
        let env = b.probe("box", "probe_env", &serde_json::json!({}));
        let names: Vec<&str> = env.lines().collect();
        assert!(!names.contains(&"SWITCHBOARD_TEST_SECRET"), "{env}");
        assert!(
            names.contains(&"PATH") && names.contains(&"TMPDIR"),
            "{env}"
        );

        // The control: the same server unsandboxed does all of it.
        assert_eq!(b.write("open", b.outside.path()), "ok\n");
        let read = b.probe("open", "probe_read", &serde_json::json!({ "path": secret }));
        assert_eq!(read, "ok\n");
        let connect = b.probe(
            "open",
            "probe_connect",
            &serde_json::json!({ "port": port }),
        );
        assert_eq!(connect, "ok\n");
        let env = b.probe("open", "probe_env", &serde_json::json!({}));
        assert!(env.lines().any(|n| n == "SWITCHBOARD_TEST_SECRET"), "{env}");
    }

    #[test]
    fn servers_json_says_which_servers_are_sandboxed() {
        let b = Box::new();
        let code = if landlock_here() { 0 } else { 3 };
        let out = b
            .run(&["servers", "--json"])
            .code(code)
            .get_output()
            .stdout
            .clone();
        let json: Value = serde_json::from_slice(&out).unwrap();
        let sandboxed = |name: &str| {
            json["servers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == name)
                .map(|s| s["sandboxed"].clone())
        };
        assert_eq!(sandboxed("box"), Some(Value::Bool(true)));
        assert_eq!(sandboxed("open"), Some(Value::Bool(false)));
    }

    #[test]
    fn a_sandboxed_start_that_fails_names_the_server_and_the_launchers_reason() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("switchboard.toml"),
            "[mcp]\nsandbox = \"on\"\n\n[servers.gone]\ncommand = \"/nonexistent/mcp-server\"\n",
        )
        .unwrap();
        super::trust_folder(dir.path(), &dir.path().join(".local/state"));
        let out = Command::cargo_bin("switchboard")
            .unwrap()
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .env("TMPDIR", dir.path())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .args(["call", "gone", "echo"])
            .timeout(std::time::Duration::from_secs(120))
            .assert()
            .code(3);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        let why = if landlock_here() {
            "cannot run \"/nonexistent/mcp-server\" in the sandbox"
        } else {
            "Landlock is unavailable"
        };
        assert!(err.contains("gone") && err.contains(why), "{err}");
    }
}
