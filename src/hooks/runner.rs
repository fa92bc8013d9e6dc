//! Running one hook: argv without a shell, in its own process group, one JSON object
//! on stdin, stdout and stderr read (capped), killed with its group on timeout.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use super::input::HookInput;
use super::verdict::{HookDecision, HookRecord};

/// The most of a hook's stdout or stderr that is read.
const MAX_OUTPUT: usize = 64 * 1024;
/// The longest reason or context kept from a hook.
const MAX_TEXT_CHARS: usize = 2000;

/// A configured hook.
#[derive(Debug, Clone)]
pub struct Hook {
    /// The glob as written, and its matcher (tool events).
    pub matcher: Option<(String, globset::GlobMatcher)>,
    pub argv: Vec<String>,
    pub timeout: Duration,
}

/// What one run came to.
#[derive(Debug, Clone)]
pub struct HookRun {
    pub decision: Option<HookDecision>,
    pub reason: Option<String>,
    pub context: Option<String>,
    /// Set when the hook failed and was ignored.
    pub warning: Option<String>,
    pub record: HookRecord,
}

/// Kills the hook's process group when dropped.
struct GroupGuard(Option<Pid>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.0.take() {
            let _ = kill_process_group(pgid, Signal::KILL);
        }
    }
}

/// `./check.sh` is taken from the workspace; a bare name is looked up on `PATH`.
fn program(argv0: &str, cwd: &Path) -> PathBuf {
    let path = Path::new(argv0);
    if path.is_relative() && argv0.contains('/') {
        cwd.join(path)
    } else {
        path.to_path_buf()
    }
}

async fn read_capped(pipe: Option<impl AsyncRead + Unpin>) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe.take(MAX_OUTPUT as u64).read_to_end(&mut out).await;
    }
    out
}

fn clip(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Runs `hook` with `input` and reads its answer. Never fails: a hook that cannot run
/// or fails is a warning (fail open), except a timeout, which is a deny.
pub async fn run(hook: &Hook, input: &HookInput) -> HookRun {
    let started = Instant::now();
    let name = hook.argv.first().cloned().unwrap_or_default();
    let mut command = tokio::process::Command::new(program(&name, &input.cwd));
    command
        .args(hook.argv.iter().skip(1))
        .current_dir(&input.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let finish = |exit: Option<i32>, outcome: Answer| outcome.into_run(input, &name, exit, started);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return finish(None, Answer::failed(format!("cannot start: {e}"))),
    };
    let _guard = GroupGuard(
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw),
    );
    let stdin = serde_json::to_vec(&input.to_json()).unwrap_or_default();
    let mut writer = child.stdin.take();
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let talk = async {
        let write = async {
            if let Some(w) = writer.as_mut() {
                let _ = w.write_all(&stdin).await; // a hook need not read its stdin
            }
            drop(writer.take());
        };
        let ((), out, err) = tokio::join!(write, read_capped(stdout), read_capped(stderr));
        (child.wait().await, out, err)
    };
    let result = tokio::time::timeout(hook.timeout, talk).await;
    match result {
        Err(_) => {
            let reason = format!(
                "hook `{name}` timed out after {}s",
                hook.timeout.as_secs_f64()
            );
            finish(
                None,
                Answer::decided(HookDecision::Deny, Some(reason), None),
            )
        }
        Ok((Err(e), _, _)) => finish(None, Answer::failed(format!("lost the process: {e}"))),
        Ok((Ok(status), out, err)) => {
            let (out, err) = (String::from_utf8_lossy(&out), String::from_utf8_lossy(&err));
            finish(
                status.code(),
                Answer::read(input, status.code(), &out, &err),
            )
        }
    }
}

/// A hook's answer before it is recorded.
struct Answer {
    decision: Option<HookDecision>,
    reason: Option<String>,
    context: Option<String>,
    warning: Option<String>,
}

impl Answer {
    fn decided(decision: HookDecision, reason: Option<String>, context: Option<String>) -> Self {
        Self {
            decision: Some(decision),
            reason,
            context,
            warning: None,
        }
    }

    fn failed(warning: String) -> Self {
        Self {
            decision: None,
            reason: None,
            context: None,
            warning: Some(warning),
        }
    }

    /// Exit 0: JSON on stdout (or plain text as context for prompt and session
    /// events); exit 2: deny with stderr as the reason; other: fail open.
    fn read(input: &HookInput, code: Option<i32>, out: &str, err: &str) -> Self {
        match code {
            Some(0) => Self::from_stdout(input, out),
            Some(2) => {
                let reason = Some(clip(err)).filter(|r| !r.is_empty());
                Self::decided(HookDecision::Deny, reason, None)
            }
            Some(n) => Self::failed(format!("exited with {n}: {}", clip(err))),
            None => Self::failed(format!("killed by a signal: {}", clip(err))),
        }
    }

    fn from_stdout(input: &HookInput, out: &str) -> Self {
        let trimmed = out.trim();
        let Ok(Value::Object(answer)) = serde_json::from_str::<Value>(trimmed) else {
            let context = (input.event.plain_stdout_is_context() && !trimmed.is_empty())
                .then(|| clip(trimmed));
            return Self {
                decision: None,
                reason: None,
                context,
                warning: None,
            };
        };
        let text = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| answer.get(*k).and_then(Value::as_str))
                .map(clip)
                .filter(|t| !t.is_empty())
        };
        let reason = text(&["reason", "permissionDecisionReason"]);
        let context = text(&["context", "additionalContext"]);
        match answer.get("decision").and_then(Value::as_str) {
            None => Self {
                decision: None,
                reason,
                context,
                warning: None,
            },
            Some(word) => match HookDecision::parse(word) {
                Some(decision) => Self::decided(decision, reason, context),
                None => Self::failed(format!("unknown decision `{}` on stdout", clip(word))),
            },
        }
    }

    fn into_run(
        mut self,
        input: &HookInput,
        name: &str,
        exit: Option<i32>,
        started: Instant,
    ) -> HookRun {
        if self.decision == Some(HookDecision::Deny) && self.reason.is_none() {
            self.reason = Some(format!("denied by hook `{name}`"));
        }
        let outcome = match (self.decision, &self.warning) {
            (Some(d), _) => d.as_str(),
            (None, Some(_)) => "error",
            (None, None) => "none",
        };
        let warning = self.warning.map(|w| format!("hook `{name}` ignored: {w}"));
        let record = HookRecord {
            event: input.event.key(),
            command: name.to_owned(),
            outcome,
            exit_code: exit,
            reason: self.reason.clone().or_else(|| warning.clone()),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        HookRun {
            decision: self.decision,
            reason: self.reason,
            context: self.context,
            warning,
            record,
        }
    }
}
