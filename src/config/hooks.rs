//! `[hooks]`: commands run at points of a session (`[[hooks.pre_tool_use]]` …).
//! Checked by `crate::hooks::Hooks::from_config`, which reports each bad value at its
//! place in the file.

use serde::{Deserialize, Serialize};
use toml::Spanned;

/// `[hooks]`: one list of hooks per event, run in the order listed.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HooksConfig {
    /// Before a tool call is authorised; may deny it or ask for approval.
    pub pre_tool_use: Vec<HookConfig>,
    /// After a tool call ran; may add context for the model.
    pub post_tool_use: Vec<HookConfig>,
    /// When the user sends a message; may block it or add context.
    pub user_prompt_submit: Vec<HookConfig>,
    /// When a session starts; may add context.
    pub session_start: Vec<HookConfig>,
    /// When a turn ends.
    pub stop: Vec<HookConfig>,
    /// When a tool call is about to ask the user; may answer for the user.
    pub permission_request: Vec<HookConfig>,
}

/// One hook: a command run without a shell.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// Tool events only: a glob over the qualified tool name (`weather__*`); all tools
    /// when absent.
    #[serde(default)]
    pub matcher: Option<Spanned<String>>,
    /// The program and its arguments. A relative program path with a `/` is taken from
    /// the workspace; a bare name is looked up on `PATH`.
    pub command: Spanned<Vec<String>>,
    /// Seconds before the hook is killed (default 30); a timeout is a deny.
    #[serde(default)]
    pub timeout: Option<Spanned<f64>>,
}
