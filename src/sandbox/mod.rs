//! Sandboxed stdio MCP servers (Landlock, Linux).
//!
//! A server that runs sandboxed is not spawned directly: switchboard spawns itself as
//! `switchboard __sandbox-exec --policy JSON -- PROGRAM ARGS…` ([`exec`]), which
//! restricts its own thread with a Landlock ruleset built from the [`SandboxPolicy`]
//! and then replaces itself with the server. Landlock domains are inherited across
//! `execve` and by every child (kernel Documentation/userspace-api/landlock.rst,
//! "Inheritance"), so the server and whatever it starts stay inside. Nothing here
//! needs `unsafe`: the restriction happens in a process of its own, before `exec`.
//!
//! [`resolve`] decides whether a server is sandboxed and computes its policy (read and
//! write sets, the environment); [`tempdir`] makes the private temporary directory.

pub mod exec;
pub mod policy;
pub mod resolve;
pub mod tempdir;

pub use exec::{EXIT_EXEC_FAILED, EXIT_NOT_ENFORCED, SandboxError, exec};
pub use policy::{ENV_BASE, SandboxPolicy};
pub use resolve::{LaunchError, command, settings, wanted};

/// The hidden subcommand of the `switchboard` binary that applies a policy and runs
/// the server.
pub const SUBCOMMAND: &str = "__sandbox-exec";
