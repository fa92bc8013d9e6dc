//! The `shell` tool: an allow-listed program run as argv (never through a shell) in the
//! workspace, with an empty environment plus allow-listed variables.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::args::{self, ArgError};
use super::process_group::{self, RunOutcome};
use crate::config::ShellToolConfig;
use crate::gate::Preview;
use crate::tools::builtin_specs::shell_spec;
use crate::tools::{PrecheckError, Tool, ToolContext, ToolResult, ToolSpec};

/// The PATH a program sees unless `PATH` is on `[tools.shell] env`.
pub const MINIMAL_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Why a `shell` call did not run.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error(transparent)]
    Arg(#[from] ArgError),
    #[error(
        "refused: `program` must be a bare program name such as `git`, not a path ({0:?}); it is looked up on PATH"
    )]
    NotBare(String),
    #[error(
        "refused: no programs are allowed yet; to let the model run e.g. git, add `allow = [\"git\"]` under [tools.shell] in switchboard.toml"
    )]
    NothingAllowed,
    #[error("refused: `{program}` is not on [tools.shell] allow (allowed: {allowed})")]
    NotAllowed { program: String, allowed: String },
    #[error("`{0}` was not found on PATH")]
    NotFound(String),
    #[error("refused: timeout_secs {asked} is above [tools.shell] max_timeout_secs ({max})")]
    Timeout { asked: u64, max: u64 },
    #[error("refused: timeout_secs must be at least 1")]
    ZeroTimeout,
    #[error("could not run `{0}`: {1}")]
    Spawn(String, std::io::Error),
}

/// Runs allow-listed programs.
#[derive(Debug)]
pub struct ShellTool {
    spec: ToolSpec,
    config: ShellToolConfig,
    workspace: PathBuf,
}

/// A call that passed every check.
struct Checked {
    program: String,
    path: PathBuf,
    args: Vec<String>,
    timeout: u64,
}

impl ShellTool {
    pub fn new(config: ShellToolConfig, workspace: &Path) -> Self {
        Self {
            spec: shell_spec(),
            config,
            workspace: workspace.to_path_buf(),
        }
    }

    fn check(&self, args: &Map<String, Value>) -> Result<Checked, ShellError> {
        let program = args::string(args, "program")?;
        let argv = args::string_list(args, "args")?;
        let timeout = args::optional_u64(args, "timeout_secs")?.unwrap_or(self.config.timeout_secs);
        if program.is_empty() || program.contains('/') || program.contains('\0') {
            return Err(ShellError::NotBare(program.to_owned()));
        }
        if self.config.allow.is_empty() {
            return Err(ShellError::NothingAllowed);
        }
        if !self.config.allow.iter().any(|a| a == program) {
            return Err(ShellError::NotAllowed {
                program: program.to_owned(),
                allowed: self.config.allow.join(", "),
            });
        }
        if timeout == 0 {
            return Err(ShellError::ZeroTimeout);
        }
        if timeout > self.config.max_timeout_secs {
            return Err(ShellError::Timeout {
                asked: timeout,
                max: self.config.max_timeout_secs,
            });
        }
        let search = std::env::var_os("PATH").unwrap_or_else(|| MINIMAL_PATH.into());
        let path = find_on_path(program, &search)
            .ok_or_else(|| ShellError::NotFound(program.to_owned()))?;
        Ok(Checked {
            program: program.to_owned(),
            path,
            args: argv,
            timeout,
        })
    }

    fn command(&self, checked: &Checked) -> Command {
        let mut command = Command::new(&checked.path);
        command
            .args(&checked.args)
            .current_dir(&self.workspace)
            .env_clear();
        if !self.config.env.iter().any(|v| v == "PATH") {
            command.env("PATH", MINIMAL_PATH);
        }
        for name in &self.config.env {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
        command
    }
}

/// The first executable regular file named `program` in the directories of `search`.
pub fn find_on_path(program: &str, search: &OsString) -> Option<PathBuf> {
    std::env::split_paths(search)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// `program arg1 arg2`, each argument quoted when it is not plain.
pub fn command_line(program: &str, args: &[String]) -> String {
    let mut line = program.to_owned();
    for arg in args {
        line.push(' ');
        let plain = !arg.is_empty()
            && arg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
        if plain {
            line.push_str(arg);
        } else {
            line.push('\'');
            line.push_str(&arg.replace('\'', "'\\''"));
            line.push('\'');
        }
    }
    line
}

fn render(checked: &Checked, outcome: &RunOutcome, budget: u64) -> ToolResult {
    let mut text = String::from_utf8_lossy(&outcome.output).into_owned();
    if outcome.dropped > 0 {
        if !text.ends_with('\n') && !text.is_empty() {
            text.push('\n');
        }
        let _ = write!(
            text,
            "[output truncated: {} more bytes not shown ([tools.shell] max_output_bytes = {budget})]",
            outcome.dropped
        );
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let status = if outcome.timed_out {
        format!(
            "[timed out after {}s: the process group was killed]",
            checked.timeout
        )
    } else {
        match (outcome.exit_code, outcome.signal) {
            (Some(code), _) => format!("[exit code {code}]"),
            (None, Some(sig)) => format!("[killed by signal {sig}]"),
            (None, None) => "[exit status unknown]".to_owned(),
        }
    };
    text.push_str(&status);
    let failed = outcome.timed_out || outcome.exit_code != Some(0);
    let mut result = if failed {
        ToolResult::error(text)
    } else {
        ToolResult::text(text)
    };
    result.structured = Some(json!({
        "program": checked.program,
        "exit_code": outcome.exit_code,
        "signal": outcome.signal,
        "timed_out": outcome.timed_out,
        "truncated_bytes": outcome.dropped,
    }));
    result
}

#[async_trait::async_trait]
impl Tool for ShellTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, args: Map<String, Value>, _ctx: &ToolContext) -> ToolResult {
        let checked = match self.check(&args) {
            Ok(c) => c,
            Err(e) => return ToolResult::error(e.to_string()),
        };
        let budget = usize::try_from(self.config.max_output_bytes).unwrap_or(usize::MAX);
        let timeout = Duration::from_secs(checked.timeout);
        match process_group::run(self.command(&checked), timeout, budget).await {
            Ok(outcome) => render(&checked, &outcome, self.config.max_output_bytes),
            Err(e) => ToolResult::error(ShellError::Spawn(checked.program, e).to_string()),
        }
    }

    fn precheck(&self, args: &Map<String, Value>) -> Result<(), PrecheckError> {
        self.check(args).map(|_| ()).map_err(PrecheckError::from)
    }

    fn preview(&self, args: &Map<String, Value>) -> Option<Preview> {
        let program = args.get("program")?.as_str()?;
        let argv = args::string_list(args, "args").unwrap_or_default();
        Some(Preview::Command(command_line(program, &argv)))
    }
}
