//! MCP servers: one task per server owning the rmcp client, its status, its catalog
//! generation and its limits; everything the UI sees is an immutable snapshot.
//!
//! - [`McpHub`] starts the servers and publishes [`HubSnapshot`]s (a `watch`) and
//!   [`McpEvent`]s (a `broadcast`).
//! - [`McpTool`] puts each catalog tool behind the registry's gate;
//!   [`sync_registry`] keeps the registry in step with the catalogs.

pub mod apps;
pub mod ask;
mod call_line;
mod calls;
pub mod catalog;
pub mod catalog_cache;
pub mod catalog_diff;
mod client;
mod connect;
pub mod endpoint;
mod erased;
mod error;
mod exit_watch;
mod fast_reply;
pub mod freshness;
mod http_client;
mod http_failure;
mod hub;
mod input;
mod input_closed;
mod limits;
pub mod listing;
pub mod oauth;
mod on_demand;
pub mod param_headers;
mod progress_routes;
mod reauth;
mod refusal_tap;
mod rejoin;
mod relay;
mod relist;
mod result;
mod rounds;
pub mod save;
mod server;
mod shared_stdin;
mod snapshot;
mod sse;
mod stderr;
mod stdio_child;
mod subscribe;
mod sync;
mod task_support;
mod tasks;
mod tasks_2025;
mod tool;
pub mod wire;
mod wire_tap;

pub use ask::{
    Answer, Ask, AskRequest, Asker, ChannelAsker, ElicitMode, ElicitationAnswer, ElicitationKind,
    ElicitationRequest, HeadlessAsker, SampleRefusal, SamplingReply, SamplingRequest,
};
pub use calls::{CallContext, CompletionRef};
pub use catalog::{
    CatalogPrompt, CatalogResource, CatalogSnapshot, CatalogTemplate, CatalogTool, ListKind,
    PromptArgumentInfo, ToolHints,
};
pub use endpoint::{Endpoint, EndpointError, TransportKind, refusal};
pub use erased::DynTransport;
pub use error::{LimitKind, McpError, needs_login, untrusted};
pub use hub::{HubOptions, McpHub, StartGate};
pub use limits::Limits;
pub use listing::RequiredPage;
pub use reauth::{LoginFailure, MAX_LOGIN_ROUNDS, step_up_scopes};
pub use result::{PromptMessageView, PromptView, ResourceRead, describe_read};
pub use server::{ServerHandle, backoff};
pub use snapshot::{HubSnapshot, McpEvent, ServerInfo, ServerSnapshot, ServerStatus, era_of};
pub use sync::{RegistrySync, spawn_sync, sync_registry};
pub use task_support::TaskMode;
pub use tasks::TaskView;
pub use tool::{McpTool, QUALIFIER, qualified_name, tool_enabled, tool_spec};
pub use wire::WireLog;
