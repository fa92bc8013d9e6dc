//! Tools: the `Tool` trait, specs and effects, and the registry whose `invoke` is the one
//! gate every tool call passes.

mod allowlist;
pub mod builtin;
pub mod builtin_specs;
mod call_line;
mod context;
mod describe;
mod gate_text;
mod hints;
mod hooked;
mod invoke;
mod lease;
mod mcp_wire;
mod preflight;
mod qualified;
mod registry;
mod result;

mod schema_check;
mod schema_fields;
pub mod search;
mod spec;
mod tool;

pub use crate::policy::{Origin, ParseEffectError, Scope, SubjectStyle, ToolEffect};
pub use allowlist::{AllowlistError, ToolAllowlist};
pub use call_line::{CallLine, CallLineError, parse_call_line, parse_value};
pub use context::ToolContext;
pub use describe::{STRUCTURED_HEADING, describe_result, structured_section};
pub use hints::{AnnotationHints, effect_from_hints};
pub use invoke::CallOutcome;
pub use mcp_wire::{block_wire, optional, resource_contents, result_wire};
pub use qualified::{QUALIFIER, qualified_name, server_of, split_qualified};
pub use registry::{InvokeError, Registry};
pub use result::{
    ContentBlock, ToolResult, decoded_size, json_len, render_blocks, render_blocks_for_stream,
    same_data,
};
pub use schema_check::{check as check_schema, skeleton as schema_skeleton};
pub use schema_fields::{SchemaField, call_skeleton, schema_fields};
pub use spec::{Subject, ToolSpec, ToolSpecBuilder};
pub use tool::{PrecheckError, Tool, ToolError};
