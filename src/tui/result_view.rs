//! How results look in the transcript (`tools::describe_result`, `mcp::describe_read`:
//! the same text goes into the session file, and `switchboard replay` renders today's
//! results with them to compare), and `/save` itself.

use crate::tools::ContentBlock;

pub use crate::mcp::describe_read;
pub use crate::tools::describe_result;

/// `/save`: writes an item of the last read or call, relative to the working directory.
pub fn save_blocks(
    blocks: &[ContentBlock],
    item: usize,
    path: &str,
    overwrite: bool,
) -> Result<String, String> {
    use crate::mcp::save::{SaveError, save_content};
    match save_content(blocks, item, std::path::Path::new(path), overwrite) {
        Ok(saved) => Ok(saved.to_string()),
        Err(e @ SaveError::Exists(_)) => Err(format!("{e}; /save! {path} replaces it")),
        Err(e) => Err(e.to_string()),
    }
}
