//! Hooks: user commands run at points of a session, as Claude Code, Codex and Gemini
//! CLI have them (<https://code.claude.com/docs/en/hooks>).
//!
//! `[[hooks.pre_tool_use]] matcher = "weather__*", command = ["./check.sh"]` runs
//! `./check.sh` (no shell) before each matching tool call, with one JSON object on
//! stdin ([`HookInput::to_json`]). The hook answers with its exit code — 0 go on, 2
//! deny with stderr as the reason, anything else is ignored with a warning (fail
//! open) — or, on exit 0, with a JSON object on stdout: `{"decision": "allow" |
//! "deny" | "ask", "reason": "…", "context": "…"}` (`context` is added for the
//! model). A hook that outlives its `timeout` (default 30 s) is killed with its
//! process group and counts as a deny.
//!
//! Hooks of one event run in the order listed; the strictest decision wins (deny >
//! ask > allow) and a deny stops the rest. [`HookVerdict::tighten`] applies the
//! result to the gate's verdict: a hook can turn allow into ask or deny, never lift
//! a deny rule or a read-only scope. Every run leaves a [`HookRecord`] for the audit
//! log.
//!
//! Wiring into `Registry::invoke` (for the gate): after scope and deny rules, call
//! [`Hooks::pre_tool_use`] with the effect and the verdict so far, apply
//! [`HookVerdict::tighten`], put `reason` in the refusal text and `records` in the
//! audit record; `permission_request` runs before asking the user (its allow or deny
//! answers for the user); `post_tool_use` after the call, its `context` appended to
//! the result the model reads.

mod input;
mod runner;
mod verdict;

use std::ops::Range;
use std::time::Duration;

use globset::GlobBuilder;
use toml::Spanned;

pub use input::HookInput;
pub use verdict::{HookDecision, HookRecord, HookVerdict};

use crate::config::{HookConfig, HooksConfig};
use runner::Hook;

/// Default seconds before a hook is killed.
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
/// The longest `timeout` accepted.
pub const MAX_TIMEOUT_SECS: f64 = 600.0;

/// The moments hooks run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    SessionStart,
    Stop,
    PermissionRequest,
}

impl HookEvent {
    pub const ALL: [Self; 6] = [
        Self::PreToolUse,
        Self::PostToolUse,
        Self::UserPromptSubmit,
        Self::SessionStart,
        Self::Stop,
        Self::PermissionRequest,
    ];

    /// The config key (`pre_tool_use`).
    pub fn key(self) -> &'static str {
        match self {
            Self::PreToolUse => "pre_tool_use",
            Self::PostToolUse => "post_tool_use",
            Self::UserPromptSubmit => "user_prompt_submit",
            Self::SessionStart => "session_start",
            Self::Stop => "stop",
            Self::PermissionRequest => "permission_request",
        }
    }

    /// The event of a config key.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.key() == key)
    }

    /// The name other agents use (`PreToolUse`), sent as `hook_event_name`.
    pub fn display_name(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::SessionStart => "SessionStart",
            Self::Stop => "Stop",
            Self::PermissionRequest => "PermissionRequest",
        }
    }

    /// Whether the event is about one tool call (and so takes a `matcher`).
    pub fn is_tool_event(self) -> bool {
        matches!(
            self,
            Self::PreToolUse | Self::PostToolUse | Self::PermissionRequest
        )
    }

    /// Plain (non-JSON) stdout of a successful hook is context for the model.
    fn plain_stdout_is_context(self) -> bool {
        matches!(self, Self::UserPromptSubmit | Self::SessionStart)
    }

    fn configured(self, config: &HooksConfig) -> &[HookConfig] {
        match self {
            Self::PreToolUse => &config.pre_tool_use,
            Self::PostToolUse => &config.post_tool_use,
            Self::UserPromptSubmit => &config.user_prompt_submit,
            Self::SessionStart => &config.session_start,
            Self::Stop => &config.stop,
            Self::PermissionRequest => &config.permission_request,
        }
    }
}

/// One invalid value in `[hooks]`, with its place in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct HookConfigError {
    pub span: Range<usize>,
    /// `hooks.pre_tool_use[0].command`
    pub key: String,
    pub message: String,
    pub hint: Option<String>,
}

/// The configured hooks, ready to run.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    hooks: Vec<(HookEvent, Hook)>,
    /// The workspace hooks run in (and are told about).
    cwd: Option<std::path::PathBuf>,
}

impl Hooks {
    /// Checks `[hooks]`, collecting every bad command, matcher or timeout.
    pub fn from_config(config: &HooksConfig) -> Result<Self, Vec<HookConfigError>> {
        let mut hooks = Vec::new();
        let mut errors = Vec::new();
        for event in HookEvent::ALL {
            for (i, c) in event.configured(config).iter().enumerate() {
                let key = |field: &str| format!("hooks.{}[{i}].{field}", event.key());
                let mut error =
                    |span: Range<usize>, field: &str, message: String, hint: Option<&str>| {
                        errors.push(HookConfigError {
                            span,
                            key: key(field),
                            message,
                            hint: hint.map(str::to_owned),
                        });
                    };
                match check(event, c) {
                    Ok(hook) => hooks.push((event, hook)),
                    Err((span, field, message, hint)) => error(span, field, message, hint),
                }
            }
        }
        if errors.is_empty() {
            Ok(Self { hooks, cwd: None })
        } else {
            Err(errors)
        }
    }

    /// The same hooks, run in `cwd` (the workspace).
    #[must_use]
    pub fn with_cwd(mut self, cwd: impl Into<std::path::PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// The workspace (the process's directory when none was given).
    pub fn cwd(&self) -> std::path::PathBuf {
        self.cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| ".".into())
    }

    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// How many hooks would run for `event` (and `tool`, for tool events).
    pub fn count(&self, event: HookEvent, tool: Option<&str>) -> usize {
        self.matching(event, tool).count()
    }

    fn matching<'a>(
        &'a self,
        event: HookEvent,
        tool: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Hook> + 'a {
        self.hooks
            .iter()
            .filter(move |(e, _)| *e == event)
            .map(|(_, h)| h)
            .filter(move |h| match (&h.matcher, tool) {
                (None, _) => true,
                (Some((_, glob)), Some(tool)) => glob.is_match(tool),
                (Some(_), None) => false,
            })
    }

    /// Runs the hooks of `input.event` (matching `input.tool`) in order, stopping at
    /// the first deny.
    pub async fn run(&self, input: &HookInput) -> HookVerdict {
        let mut verdict = HookVerdict::default();
        for hook in self.matching(input.event, input.tool.as_deref()) {
            let run = runner::run(hook, input).await;
            verdict.merge(run.decision, run.reason);
            verdict.context.extend(run.context);
            verdict.warnings.extend(run.warning);
            verdict.records.push(run.record);
            if verdict.is_deny() {
                break;
            }
        }
        verdict
    }

    /// The `pre_tool_use` hooks for a call (`input.event` is set to it).
    pub async fn pre_tool_use(&self, input: &HookInput) -> HookVerdict {
        let mut input = input.clone();
        input.event = HookEvent::PreToolUse;
        self.run(&input).await
    }
}

type Problem = (Range<usize>, &'static str, String, Option<&'static str>);

fn check(event: HookEvent, c: &HookConfig) -> Result<Hook, Problem> {
    let argv = c.command.get_ref();
    match argv.first() {
        None => {
            return Err((
                c.command.span(),
                "command",
                "is empty".into(),
                Some("write the program and its arguments, e.g. [\"./check.sh\", \"--strict\"]"),
            ));
        }
        Some(p) if p.trim().is_empty() => {
            return Err((
                c.command.span(),
                "command",
                "the program name is empty".into(),
                None,
            ));
        }
        _ => {}
    }
    let matcher = match &c.matcher {
        None => None,
        Some(m) if !event.is_tool_event() => {
            return Err((
                m.span(),
                "matcher",
                format!(
                    "`{}` hooks are not about a tool: remove `matcher`",
                    event.key()
                ),
                None,
            ));
        }
        Some(m) => Some(compile(m)?),
    };
    let timeout = match &c.timeout {
        None => DEFAULT_TIMEOUT_SECS,
        Some(t) => {
            let secs = *t.get_ref();
            if !(secs.is_finite() && secs > 0.0 && secs <= MAX_TIMEOUT_SECS) {
                return Err((
                    t.span(),
                    "timeout",
                    format!("must be more than 0 and at most {MAX_TIMEOUT_SECS} seconds"),
                    None,
                ));
            }
            secs
        }
    };
    Ok(Hook {
        matcher,
        argv: argv.clone(),
        timeout: Duration::from_secs_f64(timeout),
    })
}

fn compile(m: &Spanned<String>) -> Result<(String, globset::GlobMatcher), Problem> {
    GlobBuilder::new(m.get_ref())
        .backslash_escape(true)
        .build()
        .map(|g| (m.get_ref().clone(), g.compile_matcher()))
        .map_err(|e| {
            (
                m.span(),
                "matcher",
                format!("not a glob: {}", e.kind()),
                Some("`*` matches any part of a tool name: `weather__*`"),
            )
        })
}
