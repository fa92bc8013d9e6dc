//! `switchboard test`: saved calls as tests against the real binary and the test
//! server — one line per case, what was expected and what came back for a failure, a
//! JUnit file, exit 0 / 1 / 3; and `--save-case` writing cases that then pass.
#![allow(clippy::unwrap_used)]

use crate::support::mcp::SERVER_BIN;
use crate::support::trust_folder;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "[servers.t]\ncommand = {SERVER_BIN:?}\n\n[servers.dead]\ncommand = {SERVER_BIN:?}\nargs = [\"--misbehave\", \"exit-on-init\"]\n"
        );
        std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
        trust_folder(dir.path(), &dir.path().join(".local/state"));
        Self { dir }
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.dir.path().join(name), text).unwrap();
    }

    /// Runs switchboard; returns (exit status, stdout, stderr).
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = crate::support::cli::switchboard_in(self.dir.path())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }
}

const CASES: &str = r#"
[[case]]
name = "echo says hello"
server = "t"
tool = "echo"
args = { text = "hello there" }
expect.text_contains = "hello"
expect.max_ms = 60000

[[case]]
name = "add is structured"
server = "t"
tool = "add"
args = { a = 2, b = 3 }
expect.structured = { sum = 5 }
expect.schema_valid = true
expect.json_path = { "$.sum" = 5 }

[[case]]
name = "add is wrong on purpose"
server = "t"
tool = "add"
args = { a = 2, b = 2 }
expect.structured = { sum = 5 }

[[case]]
name = "fail fails"
server = "t"
tool = "fail"
expect.ok = false

[[case]]
name = "a text resource"
server = "t"
resource = "test://text/3"
expect.matches = "^contents of test://text/\\d$"

[[case]]
name = "a formal greeting"
server = "t"
prompt = "greet"
args = { name = "Ann", style = "formal" }
expect.text_contains = "Good day, Ann."

[[case]]
name = "writes are refused headless"
server = "t"
tool = "write_thing"
args = { path = "x" }
expect.error_contains = "denied"

[[case]]
name = "no such tool"
server = "t"
tool = "nope"
"#;

#[test]
fn cases_pass_and_fail_with_what_came_back_and_a_junit_file() {
    let env = Env::new();
    env.write("calls.toml", CASES);
    let (code, out, err) = env.run(&["test", "calls.toml", "--junit", "report.xml"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with(' ')).collect();
    let verdicts: Vec<String> = lines
        .iter()
        .map(|l| l.split("  (").next().unwrap().to_owned())
        .collect();
    assert_eq!(
        verdicts,
        [
            "PASS  t › echo says hello",
            "PASS  t › add is structured",
            "FAIL  t › add is wrong on purpose",
            "PASS  t › fail fails",
            "PASS  t › a text resource",
            "PASS  t › a formal greeting",
            "PASS  t › writes are refused headless",
            "ERROR t › no such tool",
        ],
        "{out}"
    );
    assert!(
        out.contains(
            "      structured: /sum: expected 5, got 4.0\n      at calls.toml:19 (tool add)"
        ),
        "{out}"
    );
    assert!(out.contains("no tool nope on server t"), "{out}");
    assert!(
        err.contains("8 cases: 6 passed, 1 failed, 1 could not run"),
        "{err}"
    );
    let xml = std::fs::read_to_string(env.dir.path().join("report.xml")).unwrap();
    assert!(
        xml.contains(
            "<testsuites name=\"switchboard test\" tests=\"8\" failures=\"1\" errors=\"1\""
        ),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<failure type=\"structured\" message=\"structured: /sum: expected 5, got 4.0\">"
        ),
        "{xml}"
    );

    // Only the passing ones: exit 0.
    let (code, out, err) = env.run(&["test", "calls.toml", "--filter", "a formal"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("1 case: 1 passed"), "{err}");
    // In full-auto the write runs, and the case expecting a denial fails.
    let (code, out, _) = env.run(&[
        "test",
        "calls.toml",
        "--filter",
        "refused",
        "--approve",
        "full-auto",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAIL  t › writes are refused headless"),
        "{out}"
    );
}

#[test]
fn a_server_that_cannot_start_is_exit_3_and_bad_files_are_named() {
    let env = Env::new();
    env.write(
        "calls.toml",
        "[[case]]\nname = \"dead echo\"\nserver = \"dead\"\ntool = \"echo\"\n\n[[case]]\nname = \"fine\"\nserver = \"t\"\ntool = \"echo\"\nargs = { text = \"x\" }\n",
    );
    let (code, out, err) = env.run(&["test", "calls.toml", "--junit", "r.xml"]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(out.contains("ERROR dead › dead echo"), "{out}");
    assert!(out.contains("PASS  t › fine"), "{out}");
    let xml = std::fs::read_to_string(env.dir.path().join("r.xml")).unwrap();
    assert!(xml.contains("<error type=\"error\""), "{xml}");

    env.write(
        "bad.toml",
        "[[case]]\nname = \"x\"\nserver = \"t\"\ntool = \"echo\"\nexpect.txt = 1\n",
    );
    let (code, _, err) = env.run(&["test", "bad.toml"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("bad.toml:5:"), "{err}");
    assert!(err.contains("txt"), "{err}");
    let (code, _, err) = env.run(&["test"]);
    assert_eq!(code, 1);
    assert!(err.contains("switchboard.calls.toml: cannot read"), "{err}");
}

#[test]
fn saved_calls_reads_and_prompts_pass_when_run_again() {
    let env = Env::new();
    let save = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--save-case", "saved.toml"]);
        let (code, out, err) = env.run(&all);
        assert_eq!(code, 0, "{out}\n{err}");
        assert!(err.contains("saved case"), "{err}");
    };
    save(&["call", "t", "add", "-a", "a=1", "-a", "b=2"]);
    save(&["call", "t", "echo", "-a", "text=hi there"]);
    save(&["read", "t", "test://text/2"]);
    save(&["prompt", "t", "greet", "-a", "name=Bo"]);
    // A failed call is saved expecting its error (and the call's own exit status stays).
    let (code, _, err) = env.run(&["call", "t", "fail", "--save-case", "saved.toml"]);
    assert_eq!(code, 4, "{err}");
    let saved = std::fs::read_to_string(env.dir.path().join("saved.toml")).unwrap();
    assert!(saved.contains("name = \"add a=1 b=2\""), "{saved}");
    assert!(saved.contains("schema_valid = true"), "{saved}");
    assert!(saved.contains("name = \"prompt greet name=Bo\""), "{saved}");
    let (code, out, err) = env.run(&["test", "saved.toml"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("5 cases: 5 passed"), "{err}");
}

#[test]
#[ignore = "needs SWITCHBOARD_INTEROP peers"]
fn cases_against_server_everything() {
    let env = Env::new();
    let entry = crate::mcp_interop::everything();
    std::fs::write(
        env.dir.path().join("switchboard.toml"),
        format!(
            "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\nsandbox = false\n",
            entry.display().to_string()
        ),
    )
    .unwrap();
    trust_folder(env.dir.path(), &env.dir.path().join(".local/state"));
    env.write(
        "everything.toml",
        r#"
[[case]]
name = "structured weather"
server = "everything"
tool = "get-structured-content"
args = { location = "Chicago" }
expect.structured = { conditions = "Light rain / drizzle" }
expect.schema_valid = true
expect.json_path = { "$.temperature" = 36 }

[[case]]
name = "a sum"
server = "everything"
tool = "get-sum"
args = { a = 2, b = 3 }
expect.text_contains = "is 5"

[[case]]
name = "a wrong sum"
server = "everything"
tool = "get-sum"
args = { a = 2, b = 2 }
expect.text_contains = "is 5"

[[case]]
name = "a dynamic resource"
server = "everything"
resource = "demo://resource/dynamic/text/1"
expect.matches = "^Resource 1: "

[[case]]
name = "a prompt"
server = "everything"
prompt = "args-prompt"
args = { city = "Lyon" }
expect.text_contains = "Lyon"

[[case]]
name = "toggling is a write, refused headless"
server = "everything"
tool = "toggle-simulated-logging"
expect.error_contains = "denied"
"#,
    );
    let (code, out, err) = env.run(&["test", "everything.toml", "--junit", "e.xml"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let verdicts: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split("  (").next().unwrap())
        .collect();
    assert_eq!(
        verdicts,
        [
            "PASS  everything › structured weather",
            "PASS  everything › a sum",
            "FAIL  everything › a wrong sum",
            "PASS  everything › a dynamic resource",
            "PASS  everything › a prompt",
            "PASS  everything › toggling is a write, refused headless",
        ],
        "{out}\n{err}"
    );
    assert!(out.contains("\"is 5\" not in the text"), "{out}");
    assert!(err.contains("6 cases: 5 passed, 1 failed"), "{err}");
}

/// `switchboard call` of a result too large for a model prints it whole, exit 0: it
/// is the person's own call.
#[test]
fn your_own_oversized_result_is_printed_whole() {
    let env = Env::new();
    let (code, out, err) = env.run(&["call", "t", "big", "-a", "chars=300000"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim_end().len(), 300_000);
}

/// URLElicitationRequiredError (-32042) names the URL its data carries, sanitised,
/// instead of a bare remote error.
#[test]
fn a_url_the_server_requires_is_printed() {
    let env = Env::new();
    let (code, _, err) = env.run(&["call", "t", "remote_error", "-a", "url=true"]);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains(
            "This request requires more information. Open to go on: https://example.com/connect?state="
        ),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "{err:?}");
}
