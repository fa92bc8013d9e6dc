//! Session options from the configuration: one place for the TUI and `run`.

use std::path::Path;
use std::sync::Arc;

use super::session::SessionOptions;
use super::store::SessionStore;
use crate::config::{Config, SystemPromptError};
use crate::llm::Provider;
use crate::paths::Dirs;
use crate::tools::Registry;

/// Options for a session with this provider and registry, following `[agent]`:
/// system prompt, step limit, tool-result truncation; saved under the state directory
/// unless `save` is false.
pub fn session_options(
    config: &Config,
    dirs: &Dirs,
    workspace: &Path,
    (provider_name, provider): (String, Arc<dyn Provider>),
    registry: Arc<Registry>,
    save: bool,
) -> Result<SessionOptions, SystemPromptError> {
    let agent = &config.agent;
    let mut options = SessionOptions::new(provider, registry);
    options.provider_name = provider_name;
    options.system_prompt = agent.custom_system_prompt(workspace)?;
    options.max_steps = agent.max_steps;
    options.max_tool_result_chars = agent.max_tool_result_chars;
    if save {
        options.store = Some(SessionStore::from_dirs(dirs));
    }
    Ok(options)
}
