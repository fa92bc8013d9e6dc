//! Tools: the `Tool` trait, specs and effects, and the registry whose `invoke` is the one
//! gate every tool call passes.

pub mod builtin;
pub mod builtin_specs;
mod context;
mod effect;
mod gate;
mod hints;
mod lease;
mod registry;
mod result;
mod spec;
mod tool;

pub use context::{Origin, Scope, ToolContext};
pub use effect::{ParseEffectError, ToolEffect};
pub use hints::{AnnotationHints, effect_from_hints};
pub use registry::{InvokeError, Registry};
pub use result::{ContentBlock, ToolResult};
pub use spec::{Subject, SubjectStyle, ToolSpec, ToolSpecBuilder};
pub use tool::{Tool, ToolError};
