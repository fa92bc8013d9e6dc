//! `switchboard replay`: the calls of a saved session asked again of today's servers,
//! and what they give now compared with what they gave then. Nothing is sent to a
//! model: the model's tool calls are made as it asked for them, and a call that hands
//! a task to an agent (which would ask one) is not made.
//!
//! - [`recorded`]: the calls a session's events hold, each with what it gave.
//! - [`compare`]: then against now — how it ended, the text (a line diff, or field by
//!   field when it is JSON), the structured content by JSON Pointer (RFC 6901), with
//!   pointers to ignore dropped from both sides.
//! - [`run`]: one call made again: a tool call through `Registry::invoke` (the gate:
//!   a call the policy would ask about is refused without a person), a read or a
//!   prompt through the hub; its text rendered as the session rendered it.

pub mod compare;
pub mod recorded;
pub mod run;

pub use compare::{Difference, Part, Pointer, PointerError, compare, field_changes, line_diff};
pub use recorded::{Asked, RecordedCall, Seen, recorded_calls};
pub use run::{Replayer, Status, Verdict};
