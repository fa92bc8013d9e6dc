//! Session options from the configuration: one place for the TUI and `run`.

use std::path::Path;
use std::sync::Arc;

use super::session::SessionOptions;
use super::store::{SessionStore, StoreError};
use crate::config::{Config, SystemPromptError};
use crate::llm::{LlmError, Provider};
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
    options.workspace = Some(workspace.display().to_string());
    let window = config
        .providers
        .get(&options.provider_name)
        .and_then(|p| p.context_window);
    options.tool_search = super::exposure::ToolSearchOptions::from_config(
        config,
        options.provider.kind(),
        options.provider.model(),
        window,
    );
    if save {
        options.store = Some(SessionStore::from_dirs(dirs));
    }
    Ok(options)
}

/// What it takes to (re)start the session behind a front end: the TUI keeps one so
/// that `/model` can switch provider or model and carry the conversation over.
#[derive(Clone)]
pub struct SessionRecipe {
    pub config: Config,
    pub dirs: Dirs,
    pub registry: Arc<Registry>,
    /// Skills the model may read, listed in the system prompt.
    pub skills: Vec<(String, String)>,
    /// Servers a turn waits for before its first request.
    pub readiness: Option<Arc<dyn super::Readiness>>,
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum SessionStartError {
    #[error("provider: {0}")]
    Provider(#[source] LlmError),
    #[error(transparent)]
    SystemPrompt(#[from] SystemPromptError),
    /// The saved session `id` could not be loaded.
    #[error("resume {id}: {source}")]
    Resume {
        id: String,
        #[source]
        source: StoreError,
    },
}

impl SessionRecipe {
    /// Start a session with this provider choice; `resume_id` continues a saved one
    /// (its conversation goes to the model, its file keeps growing), and the loaded
    /// session is returned so a UI can replay it.
    pub fn start(
        &self,
        choice: &crate::llm::ProviderChoice,
        step_mode: bool,
        resume_id: Option<&str>,
    ) -> Result<(super::SessionHandle, Option<super::LoadedSession>), SessionStartError> {
        let env = |name: &str| std::env::var(name).ok();
        let provider = crate::llm::provider_from_config(
            &self.config,
            choice,
            &env,
            crate::llm::RetryPolicy::default(),
        )
        .map_err(SessionStartError::Provider)?;
        let mut options = session_options(
            &self.config,
            &self.dirs,
            &self.dirs.cwd,
            provider,
            Arc::clone(&self.registry),
            true,
        )?;
        options.step_mode = step_mode;
        options.skills.clone_from(&self.skills);
        options.readiness.clone_from(&self.readiness);
        options.request_options.model.clone_from(&choice.model);
        let mut loaded = None;
        if let Some(id) = resume_id {
            let store = SessionStore::from_dirs(&self.dirs);
            let session = store.load(id).map_err(|source| SessionStartError::Resume {
                id: id.to_owned(),
                source,
            })?;
            options = super::resume(options, &store, &session);
            loaded = Some(session);
        }
        Ok((super::Session::spawn(options), loaded))
    }
}
