//! The MCP subcommands against the real binary and the test server: output, JSON and
//! exit codes (0 ok, 1 usage/config, 3 unreachable, 4 remote/tool error, 5 denied).
#![allow(clippy::unwrap_used)]

mod mcp_support;

use assert_cmd::Command;
use serde_json::Value;

use mcp_support::SERVER_BIN;

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
        Command::cargo_bin("switchboard")
            .unwrap()
            .current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .args(args)
            .timeout(std::time::Duration::from_secs(120))
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
    let written = std::fs::read_to_string(env.dir.path().join("switchboard.toml")).unwrap();
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
    let server = mcp_support::HttpServer::start("http");
    let env = Env::new(&format!("[servers.web]\nurl = {:?}\n", server.url));
    assert_eq!(
        env.stdout(&["call", "web", "echo", "-a", "text=over http"], 0),
        "over http\n"
    );
}

/// The folder's `switchboard.toml` stands for the person's own config in these tests:
/// trusted as it is, as `switchboard trust --yes` would (`state`: the state home).
fn trust_folder(cwd: &std::path::Path, state: &std::path::Path) {
    let dirs = switchboard::paths::Dirs::new(cwd, cwd.join(".config"), state, cwd.join(".share"));
    if let Ok(mut loaded) = switchboard::trust::Loaded::read(&dirs, None, &[]) {
        loaded.answer(switchboard::trust::Answer::Trust).unwrap();
    }
}
