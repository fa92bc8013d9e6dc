//! `switchboard run --agents …`: the coordinator from the command line, with the
//! offline scripted provider: pipeline order, parallel results in the agents' order
//! with the resilient error shape, the first failure stopping a batch, a remote (A2A)
//! agent as a pipeline step, and traces that keep the task and the outputs out unless
//! `audit_arguments = true`.
#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::support;
use crate::support::trust_folder;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    /// Agents `one` and `two` answer with fixed text, `bad` fails, `lister` answers
    /// with a tool line, `runner` (no script) turns such a line into a call.
    fn new(extra: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut config = String::new();
        for (name, line) in [
            ("one", r#"{"text":"answer one"}"#),
            ("two", r#"{"text":"answer two"}"#),
            ("bad", r#"{"error":"simulated outage"}"#),
            (
                "lister",
                r#"{"text":"fs {\"operation\":\"list\",\"path\":\".\"}"}"#,
            ),
        ] {
            let script = dir.path().join(format!("{name}.jsonl"));
            std::fs::write(&script, line).unwrap();
            write!(
                config,
                "[providers.{name}]\nkind = \"scripted\"\nscript = {:?}\n\n[agents.{name}]\nprovider = \"{name}\"\n\n",
                script.display().to_string()
            )
            .unwrap();
        }
        let audit = dir.path().join("audit.jsonl");
        write!(
            config,
            "[agents.runner]\ntools = [\"fs\"]\n\n[policy]\naudit_log = {:?}\n{extra}",
            audit.display().to_string()
        )
        .unwrap();
        std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
        trust_folder(dir.path(), &dir.path().join(".local/state"));
        Self { dir }
    }

    fn run(&self, args: &[&str], code: i32) -> String {
        let mut cmd = Command::cargo_bin("switchboard").unwrap();
        let out = cmd
            .current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .timeout(std::time::Duration::from_secs(120))
            .args(args)
            .assert()
            .code(code);
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    }

    fn audit(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("audit.jsonl")).unwrap_or_default()
    }
}

fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_pipeline_feeds_each_answer_to_the_next_agent() {
    let env = Env::new("");
    let out = env.run(
        &[
            "run",
            "--agents",
            "lister,runner",
            "--mode",
            "pipeline",
            "go",
        ],
        0,
    );
    let (first, second) = out.split_once("== runner ==").unwrap();
    assert!(first.starts_with("== lister ==\nfs {"), "{out}");
    assert!(
        second.contains("I made 1 tool call") && second.contains("fs succeeded"),
        "{out}"
    );
    // Sequential: the second agent gets the task itself, not the first answer.
    let out = env.run(&["run", "--agents", "lister,runner", "go"], 0);
    assert!(!out.contains("I made 1 tool call"), "{out}");
    let (lister, runner) = (
        out.find("== lister ==").unwrap(),
        out.find("== runner ==").unwrap(),
    );
    assert!(lister < runner, "{out}");
    // One step at a time, in the agents' order: each starts after the last finished.
    let out = env.run(&["run", "--agents", "lister,runner", "--json", "go"], 0);
    let steps: Vec<(String, String, u64)> = lines(&out)
        .into_iter()
        .filter(|l| l["event"] == "step_started" || l["event"] == "step_finished")
        .map(|l| {
            let text = |k: &str| l[k].as_str().unwrap().to_owned();
            (text("event"), text("agent"), l["index"].as_u64().unwrap())
        })
        .collect();
    let expected = [
        ("step_started", "lister", 0),
        ("step_finished", "lister", 0),
        ("step_started", "runner", 1),
        ("step_finished", "runner", 1),
    ]
    .map(|(e, a, i)| (e.to_owned(), a.to_owned(), i));
    assert_eq!(steps, expected, "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_agent_in_a_pipeline_hands_its_answer_to_a_local_one() {
    let server = support::a2a_server::Server::start(support::a2a_server::Options::default()).await;
    let env = Env::new(&format!(
        "allow = [\"agent__far\"]\n\n[agents.far]\nkind = \"a2a\"\nurl = \"{}\"\n",
        server.url
    ));
    // The remote agent echoes the task; its second line is a call for the local runner.
    let task = "go\nfs {\"operation\":\"list\",\"path\":\".\"}";
    let args = ["run", "--agents", "far,runner", "--mode", "pipeline", task];
    let out = tokio::task::block_in_place(|| env.run(&args, 0));
    let (first, second) = out.split_once("== runner ==").unwrap();
    assert!(
        first.starts_with("== far ==\necho: go\nfs {\"operation\""),
        "{out}"
    );
    assert!(
        second.contains("I made 1 tool call") && second.contains("fs succeeded"),
        "{out}"
    );
    assert_eq!(server.methods(), ["SendMessage"]);
    // A remote task that fails stops the pipeline there, with the agent's reason.
    let args = [
        "run",
        "--agents",
        "far,runner",
        "--mode",
        "pipeline",
        "fail",
    ];
    let out = tokio::task::block_in_place(|| env.run(&args, 4));
    assert!(
        out.contains("== far ==")
            && out.contains("could not do it")
            && !out.contains("== runner =="),
        "{out}"
    );
}

#[test]
fn parallel_resilient_keeps_order_records_the_error_and_leaks_no_text() {
    let env = Env::new("");
    let task = "summarise SECRET-4711";
    let args = [
        "run",
        "--agents",
        "one,bad,two",
        "--mode",
        "parallel",
        "--resilient",
        "--json",
        task,
    ];
    let out = env.run(&args, 4);
    let mut trace = lines(&out);
    // The last line carries the answers, for a script; the trace before it no text.
    let results = trace.pop().unwrap();
    assert_eq!(results["event"], "results", "{out}");
    let answers: Vec<(&str, &Value, &Value)> = results["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["agent"].as_str().unwrap(),
                &s["output"],
                &s["error"]["code"],
            )
        })
        .collect();
    assert_eq!(
        answers,
        [
            ("one", &json!("answer one"), &Value::Null),
            ("bad", &Value::Null, &json!("agent_error")),
            ("two", &json!("answer two"), &Value::Null),
        ]
    );
    let trace_text = serde_json::to_string(&trace).unwrap();
    assert!(
        !out.contains("SECRET-4711") && !trace_text.contains("answer one"),
        "{out}"
    );
    assert_eq!(trace[0]["event"], "coordinator_started");
    assert_eq!(trace[0]["agents"], json!(["one", "bad", "two"]));
    assert_eq!(trace[0]["agent_count"], 3);
    let finished: Vec<&Value> = trace
        .iter()
        .filter(|l| l["event"] == "step_finished")
        .collect();
    assert_eq!(finished.len(), 3, "{out}");
    let bad = finished.iter().find(|l| l["agent"] == "bad").unwrap();
    assert_eq!(bad["index"], 1);
    assert_eq!(
        bad["error"],
        json!({"code": "agent_error", "retryable": true})
    );
    let last = trace.last().unwrap();
    assert_eq!(
        (&last["event"], &last["failures"], &last["steps_run"]),
        (&json!("coordinator_finished"), &json!(1), &json!(3))
    );
    // Without --json the answers come in the agents' order, each under its name.
    let out = env.run(
        &[
            "run",
            "--agents",
            "one,bad,two",
            "--mode",
            "parallel",
            "--resilient",
            task,
        ],
        4,
    );
    let one = out.find("== one ==\nanswer one").unwrap();
    let bad = out
        .find("== bad ==\nerror (agent_error, retryable)")
        .unwrap();
    let two = out.find("== two ==\nanswer two").unwrap();
    assert!(one < bad && bad < two, "{out}");
    let audit = env.audit();
    assert!(
        audit.contains("coordinator_finished")
            && audit.contains("\"agent_run\"")
            && !audit.contains("answer one"),
        "{audit}"
    );
    assert!(
        !audit.contains("SECRET-4711") && !audit.contains("answer one"),
        "{audit}"
    );
}

#[test]
fn the_first_failure_stops_a_batch_unless_resilient() {
    let env = Env::new("");
    let out = env.run(&["run", "--agents", "bad,one", "--json", "go"], 4);
    let finished: Vec<Value> = lines(&out)
        .into_iter()
        .filter(|l| l["event"] == "step_finished")
        .collect();
    assert_eq!(finished.len(), 1, "{out}");
    let out = env.run(&["run", "--agents", "nobody", "go"], 1);
    assert!(out.is_empty());
}

#[test]
fn audit_arguments_lets_the_task_and_outputs_into_the_trace() {
    let env = Env::new("audit_arguments = true\n");
    let out = env.run(&["run", "--agents", "one", "--json", "task SECRET-9"], 0);
    let trace = lines(&out);
    assert_eq!(trace[0]["task"], "task SECRET-9");
    let step = trace
        .iter()
        .find(|l| l["event"] == "step_finished")
        .unwrap();
    assert_eq!(step["output"], "answer one");
}
