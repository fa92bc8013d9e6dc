//! The `Tool` trait: what every built-in and MCP tool implements.

use serde_json::{Map, Value};

use super::builtin::{FsError, HttpError, ShellError};
use super::context::ToolContext;
use super::result::ToolResult;
use super::spec::ToolSpec;
use crate::gate::Preview;

/// A tool failed to start (or a registry operation on it failed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error("tool {tool} failed to start: {message}")]
    Start { tool: String, message: String },
    #[error("tool {tool} is already registered")]
    Duplicate { tool: String },
    #[error("cannot put tool {found} in place of {expected}: the names differ")]
    NameMismatch { expected: String, found: String },
}

/// Why a tool would refuse a call by its own limits ([`Tool::precheck`]); the message
/// is the refusal the model reads.
#[derive(Debug, thiserror::Error)]
pub enum PrecheckError {
    #[error(transparent)]
    Fs(#[from] FsError),
    #[error(transparent)]
    Shell(#[from] ShellError),
    #[error(transparent)]
    Http(#[from] HttpError),
}

/// A callable tool. Object-safe: the registry holds `Arc<dyn Tool>`.
///
/// Only [`crate::tools::Registry::invoke`] calls `invoke`; a tool never authorises itself.
#[async_trait::async_trait]
pub trait Tool: Send + Sync {
    fn spec(&self) -> &ToolSpec;

    /// Run the call. Failures the model should see are `ToolResult { is_error: true }`.
    async fn invoke(&self, args: Map<String, Value>, ctx: &ToolContext) -> ToolResult;

    /// Called once before the instance receives calls.
    async fn start(&self) -> Result<(), ToolError> {
        Ok(())
    }

    /// Called once after the last call on this instance has finished.
    async fn close(&self) {}

    /// What an approval pane shows for this call (a diff, a command line, a URL).
    fn preview(&self, _args: &Map<String, Value>) -> Option<Preview> {
        None
    }

    /// The tool's own limits, checked before anyone is asked: `Err` is why the tool
    /// would refuse this call anyway (a path outside the workspace, a host not on the
    /// allowlist). Cheap and without side effects; `invoke` still checks for itself.
    fn precheck(&self, _args: &Map<String, Value>) -> Result<(), PrecheckError> {
        Ok(())
    }
}
