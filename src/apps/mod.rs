//! MCP Apps hosting (extension `io.modelcontextprotocol/ui`, spec
//! https://github.com/modelcontextprotocol/ext-apps,
//! `specification/2026-01-26/apps.mdx`): a tool's `ui://` page opened in the
//! person's browser through a local host, with every call the app makes passing the
//! one gate (origin `app`).
//!
//! - [`session`]: one opened app: its tool, resource, the call it shows, and what
//!   it reaches (registry, hub, the person).
//! - [`host`]: the two local listeners (host page, sandbox proxy), the token.
//! - [`bridge`]: the app's JSON-RPC, answered.
//! - [`csp`]: the Content-Security-Policy the app runs under.
//! - [`resource`]: the `ui://` resource read as an app.

mod bridge;
mod csp;
mod host;
mod resource;
mod session;

pub use bridge::{PROTOCOL_VERSION, Reply, handle};
pub use csp::policy as content_security_policy;
pub use host::AppHost;
pub use resource::{AppResource, ResourceError};
pub use session::{AppDeps, AppNote, AppSession, CallState, notification};
