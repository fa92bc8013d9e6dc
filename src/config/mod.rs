//! Configuration: the data model, loading with precise errors, and the search order.
//!
//! - [`Layers`] reads the user's file and a project's (or the one `--config` names),
//!   each checked on its own; [`merge`] lays a project over the user's file.
//! - [`load`] finds the one file a single-file reader uses (see
//!   [`crate::paths::Dirs::config_candidates`]), reads, parses and validates it.
//! - [`parse_str`] does the same for text already in hand.
//! - [`ConfigError`] renders as `PATH:LINE:COL: MESSAGE` (+ `  hint: …`); other
//!   modules report their own located problems with [`ConfigError::at`].

mod agent;
mod agents;
mod decode;
pub mod edit;
mod error;
mod hooks;
pub mod import;
mod key_path;
mod keys;
mod layers;
mod load;
mod locate;
pub mod merge;
mod model;
mod serve;
pub mod suggest;
mod tools;
mod validate;

pub use agent::{DEFAULT_MAX_STEPS, DEFAULT_MAX_TOOL_RESULT_CHARS, SystemPromptError};
pub use error::{ConfigError, ErrorKind, Located, line_column};
pub use key_path::KeyPath;
pub use layers::{Layer, Layers};
pub use load::{
    LoadedConfig, decode_str, decode_toml, find_source, load, parse_checked, parse_str,
};
pub use locate::SourceMap;
pub use model::*;
pub use serve::{DEFAULT_MAX_MESSAGE_BYTES, ServeClientConfig, ServeConfig};
pub use validate::{
    BUILTIN_PROVIDER, CONFIRM_DELETE, POLICY_MODES, PartCheck, PartProblem, SERVER_TRANSPORTS,
    TOOL_EFFECTS, is_aws_region, no_part_checks,
};
