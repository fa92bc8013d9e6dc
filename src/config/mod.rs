//! Configuration: the data model, loading with precise errors, and the search order.
//!
//! - [`load`] finds the file (see [`crate::paths::Dirs::config_candidates`]), reads,
//!   parses and validates it.
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
mod load;
mod locate;
mod model;
mod serve;
pub mod suggest;
mod tools;
mod validate;

pub use agent::{DEFAULT_MAX_STEPS, DEFAULT_MAX_TOOL_RESULT_CHARS, SystemPromptError};
pub use error::{ConfigError, ErrorKind, Located, line_column};
pub use key_path::KeyPath;
pub use load::{LoadedConfig, find_source, load, parse_str};
pub use locate::SourceMap;
pub use model::*;
pub use serve::{DEFAULT_MAX_MESSAGE_BYTES, ServeClientConfig, ServeConfig};
pub use validate::{
    BUILTIN_PROVIDER, CONFIRM_DELETE, POLICY_MODES, SERVER_TRANSPORTS, TOOL_EFFECTS, is_aws_region,
};
