//! Hooks with real scripts: exit 2 blocks with stderr, JSON deny/ask/allow with
//! reason and context, a hanging hook times out as a deny, failures fail open, order
//! and matchers, the stdin object, and config errors at file:line:col.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use crate::support::script;
use serde_json::{Value, json};
use switchboard::hooks::{HookDecision, HookEvent, HookInput, Hooks};
use switchboard::policy::Verdict;
use switchboard::settings::parse_str;

fn hooks(toml: &str) -> Hooks {
    let config = parse_str(toml, Path::new("t.toml")).unwrap();
    Hooks::from_config(&config.hooks).unwrap()
}

fn call(dir: &Path, tool: &str) -> HookInput {
    HookInput::new(HookEvent::PreToolUse, "s-1", dir).tool_call(
        tool,
        json!({"city": "Oslo"}),
        "read",
        "allow",
    )
}

#[tokio::test]
async fn exit_2_denies_with_stderr_as_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "check.sh",
        "echo 'no weather on Sundays' >&2\nexit 2",
    );
    let h = hooks("[[hooks.pre_tool_use]]\nmatcher = \"weather__*\"\ncommand = [\"./check.sh\"]\n");
    let v = h.pre_tool_use(&call(dir.path(), "weather__get")).await;
    assert_eq!(v.decision, Some(HookDecision::Deny));
    assert_eq!(v.reason.as_deref(), Some("no weather on Sundays"));
    assert_eq!(v.tighten(Verdict::Allow), Verdict::Deny);
    assert_eq!(v.records.len(), 1);
    assert_eq!(v.records[0].outcome, "deny");
    assert_eq!(v.records[0].exit_code, Some(2));
    // The matcher leaves other tools alone.
    let other = h.pre_tool_use(&call(dir.path(), "fs")).await;
    assert_eq!((other.decision, other.records.len()), (None, 0));
    assert_eq!(h.count(HookEvent::PreToolUse, Some("fs")), 0);
}

#[tokio::test]
async fn json_answers_deny_ask_and_allow() {
    let dir = tempfile::tempdir().unwrap();
    for (name, decision) in [("deny", "deny"), ("ask", "ask"), ("allow", "allow")] {
        script(
            dir.path(),
            &format!("{name}.sh"),
            &format!(
                "cat >/dev/null\necho '{{\"decision\": \"{decision}\", \"reason\": \"because {name}\", \"context\": \"note {name}\"}}'"
            ),
        );
    }
    for (name, expected, tightened) in [
        ("deny", HookDecision::Deny, Verdict::Deny),
        ("ask", HookDecision::Ask, Verdict::Ask),
        ("allow", HookDecision::Allow, Verdict::Allow),
    ] {
        let h = hooks(&format!(
            "[[hooks.pre_tool_use]]\ncommand = [\"./{name}.sh\"]\n"
        ));
        let v = h.pre_tool_use(&call(dir.path(), "fs")).await;
        assert_eq!(v.decision, Some(expected), "{name}");
        assert_eq!(v.reason, Some(format!("because {name}")));
        assert_eq!(v.context, vec![format!("note {name}")]);
        assert_eq!(v.tighten(Verdict::Allow), tightened);
    }
}

#[tokio::test]
async fn a_hook_allow_never_beats_a_deny_rule() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "yes.sh", "echo '{\"decision\": \"allow\"}'");
    let h = hooks("[[hooks.pre_tool_use]]\ncommand = [\"./yes.sh\"]\n");
    let v = h.pre_tool_use(&call(dir.path(), "fs")).await;
    assert_eq!(v.decision, Some(HookDecision::Allow));
    assert_eq!(v.tighten(Verdict::Deny), Verdict::Deny);
    assert_eq!(v.tighten(Verdict::Ask), Verdict::Ask);
}

#[tokio::test]
async fn a_hanging_hook_is_killed_and_denies() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "hang.sh", "sleep 30 &\nsleep 30");
    let h = hooks("[[hooks.pre_tool_use]]\ncommand = [\"./hang.sh\"]\ntimeout = 0.5\n");
    let v = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        h.pre_tool_use(&call(dir.path(), "fs")),
    )
    .await
    .unwrap();
    assert_eq!(v.decision, Some(HookDecision::Deny));
    assert_eq!(
        v.reason.as_deref(),
        Some("hook `./hang.sh` timed out after 0.5s")
    );
    assert_eq!(v.records[0].exit_code, None);
}

#[tokio::test]
async fn failures_fail_open_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "broken.sh", "echo 'oops' >&2\nexit 1");
    script(dir.path(), "odd.sh", "echo '{\"decision\": \"maybe\"}'");
    let h = hooks(
        "[[hooks.pre_tool_use]]\ncommand = [\"./broken.sh\"]\n\
         [[hooks.pre_tool_use]]\ncommand = [\"./missing.sh\"]\n\
         [[hooks.pre_tool_use]]\ncommand = [\"./odd.sh\"]\n",
    );
    let v = h.pre_tool_use(&call(dir.path(), "fs")).await;
    assert_eq!(v.decision, None);
    assert_eq!(v.tighten(Verdict::Allow), Verdict::Allow);
    assert_eq!(v.warnings.len(), 3, "{:?}", v.warnings);
    assert_eq!(
        v.warnings[0],
        "hook `./broken.sh` ignored: exited with 1: oops"
    );
    assert!(v.warnings[1].starts_with("hook `./missing.sh` ignored: cannot start"));
    assert!(v.warnings[2].contains("unknown decision `maybe`"));
    assert!(v.records.iter().all(|r| r.outcome == "error"));
}

#[tokio::test]
async fn hooks_run_in_order_and_a_deny_stops_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    script(
        dir.path(),
        "ask.sh",
        "echo '{\"decision\": \"ask\", \"reason\": \"check it\"}'",
    );
    script(dir.path(), "no.sh", "exit 2");
    script(dir.path(), "late.sh", "touch late-ran");
    let h = hooks(
        "[[hooks.pre_tool_use]]\ncommand = [\"./ask.sh\"]\n\
         [[hooks.pre_tool_use]]\ncommand = [\"./no.sh\"]\n\
         [[hooks.pre_tool_use]]\ncommand = [\"./late.sh\"]\n",
    );
    let v = h.pre_tool_use(&call(dir.path(), "fs")).await;
    assert_eq!(v.decision, Some(HookDecision::Deny));
    assert_eq!(v.reason.as_deref(), Some("denied by hook `./no.sh`"));
    let outcomes: Vec<&str> = v.records.iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes, vec!["ask", "deny"]);
    assert!(!dir.path().join("late-ran").exists());
}

#[tokio::test]
async fn the_hook_reads_one_json_object_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "log.sh", "cat > seen.json");
    let h = hooks("[[hooks.pre_tool_use]]\ncommand = [\"./log.sh\"]\n");
    let v = h.pre_tool_use(&call(dir.path(), "weather__get")).await;
    assert_eq!(v.decision, None);
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["event"], "pre_tool_use");
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["session_id"], "s-1");
    assert_eq!(seen["tool"], "weather__get");
    assert_eq!(seen["tool_name"], "weather__get");
    assert_eq!(seen["arguments"], json!({"city": "Oslo"}));
    assert_eq!(seen["tool_input"], json!({"city": "Oslo"}));
    assert_eq!(
        (seen["effect"].as_str(), seen["decision"].as_str()),
        (Some("read"), Some("allow"))
    );
    assert!(seen.get("prompt").is_none());
}

#[tokio::test]
async fn prompt_hooks_add_plain_stdout_as_context_and_can_block() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "ctx.sh", "echo 'the repo uses tabs'");
    script(
        dir.path(),
        "guard.sh",
        "grep -q password && { echo 'no secrets in prompts' >&2; exit 2; }\nexit 0",
    );
    let h = hooks(
        "[[hooks.user_prompt_submit]]\ncommand = [\"./ctx.sh\"]\n\
         [[hooks.user_prompt_submit]]\ncommand = [\"./guard.sh\"]\n",
    );
    let mut input = HookInput::new(HookEvent::UserPromptSubmit, "s-1", dir.path());
    input.prompt = Some("fix the build".into());
    let v = h.run(&input).await;
    assert_eq!(
        (v.decision, v.context.clone()),
        (None, vec!["the repo uses tabs".to_owned()])
    );
    input.prompt = Some("my password is hunter2".into());
    let v = h.run(&input).await;
    assert_eq!(v.decision, Some(HookDecision::Deny));
    assert_eq!(v.reason.as_deref(), Some("no secrets in prompts"));
}

#[test]
fn config_errors_name_file_line_and_column() {
    let path = Path::new("t.toml");
    let cases = [
        (
            "[[hooks.session_start]]\nmatcher = \"fs\"\ncommand = [\"x\"]\n",
            "t.toml:2:11: `hooks.session_start[0].matcher`: `session_start` hooks are not about a tool: remove `matcher`",
        ),
        (
            "[[hooks.pre_tool_use]]\ncommand = []\n",
            "t.toml:2:11: `hooks.pre_tool_use[0].command`: is empty",
        ),
        (
            "[[hooks.stop]]\ncommand = [\"x\"]\ntimeout = 0\n",
            "t.toml:3:11: `hooks.stop[0].timeout`: must be more than 0 and at most 600 seconds",
        ),
        (
            "[[hooks.pre_tool_use]]\nmatcher = \"a[\"\ncommand = [\"x\"]\n",
            "t.toml:2:11: `hooks.pre_tool_use[0].matcher`: not a glob",
        ),
        (
            "[[hooks.pre_tool_use]]\ncommand = [\"x\"]\ncomand = 1\n",
            "t.toml:3:1: unknown key `comand` in [hooks.pre_tool_use[0]]",
        ),
        (
            "[[hooks.before_tool]]\ncommand = [\"x\"]\n",
            "t.toml:1:9: unknown key `before_tool` in [hooks]",
        ),
    ];
    for (text, expected) in cases {
        let error = parse_str(text, path).unwrap_err().to_string();
        assert!(error.starts_with(expected), "{text}\n→ {error}");
    }
}
