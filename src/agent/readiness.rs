//! What a turn waits for before its first model request: MCP servers still
//! connecting, so a message sent right after launch sees their tools.

use std::future::Future;
use std::pin::Pin;

/// Servers still connecting, and a way to wait for them.
pub trait Readiness: Send + Sync {
    /// Names of the servers still connecting (empty: nothing to wait for).
    fn pending(&self) -> Vec<String>;

    /// Resolves once none is connecting (each bounded by its startup timeout) and
    /// their tools are registered.
    fn settled(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}
