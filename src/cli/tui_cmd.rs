//! `switchboard` with no subcommand: load the configuration, then start the TUI.
//! Configuration errors are printed before the screen is touched.

use std::path::Path;
use std::sync::Arc;

use super::Cli;
use crate::agent::{ApprovalBroker, Session, SessionHandle, SessionStore, resume, session_options};
use crate::config::{self, Config, ConfigError, LoadedConfig};
use crate::keymap::Keymap;
use crate::llm::{ProviderChoice, RetryPolicy, provider_from_config};
use crate::paths::Dirs;
use crate::policy::{AuditLog, Mode, Policy};
use crate::theme::{Theme, ThemeSet};
use crate::tools::Registry;
use crate::tools::builtin::register_builtins;
use crate::tui::state::{ChatEntry, ChatKind};
use crate::tui::{self, TuiOptions, boot::initial_state, state::NoticeLevel};

/// Print a configuration error plainly and exit 1.
fn fail(error: &ConfigError) -> ! {
    eprintln!("{error}");
    std::process::exit(1)
}

/// The gate for this UI: the configured policy, an interactive broker, the audit log,
/// and the file "always" appends rules to.
fn registry(loaded: &LoadedConfig, dirs: &Dirs, always_file: &Path) -> Registry {
    let config = &loaded.config;
    // The loader has validated the rules already.
    let policy = Policy::from_config(&config.policy).unwrap_or_else(|_| Policy::new(Mode::Ask));
    let audit_path = config
        .policy
        .audit_log
        .clone()
        .unwrap_or_else(|| dirs.default_audit_log());
    let audit = AuditLog::open(&audit_path, config.policy.audit_arguments).unwrap_or_else(|e| {
        tracing::warn!("audit log {}: {e}", audit_path.display());
        AuditLog::disabled()
    });
    Registry::new(policy, Arc::new(ApprovalBroker::new(true)))
        .with_audit(audit)
        .with_always_file(always_file)
}

/// The agent session behind the composer: the chosen provider (the offline scripted
/// one by default), `[agent]` options, saved to the state directory; `--resume` /
/// `--continue` reopen a saved one and replay its transcript into the UI.
fn start_session(
    cli: &Cli,
    config: &Config,
    dirs: &Dirs,
    registry: &Arc<Registry>,
    state: &mut tui::State,
) -> Option<SessionHandle> {
    let choice = ProviderChoice {
        name: cli.provider.clone(),
        model: cli.model.clone(),
    };
    let env = |name: &str| std::env::var(name).ok();
    let provider = match provider_from_config(config, &choice, &env, RetryPolicy::default()) {
        Ok(provider) => provider,
        Err(e) => {
            state.status.provider = tui::state::NO_PROVIDER.into();
            state
                .chat
                .push(ChatEntry::new(ChatKind::Error, format!("provider: {e}")));
            return None;
        }
    };
    let mut options = match session_options(
        config,
        dirs,
        &dirs.cwd,
        provider,
        Arc::clone(registry),
        true,
    ) {
        Ok(options) => options,
        Err(e) => {
            state
                .chat
                .push(ChatEntry::new(ChatKind::Error, e.to_string()));
            return None;
        }
    };
    options.step_mode = cli.step;
    options.request_options.model.clone_from(&cli.model);
    let store = SessionStore::from_dirs(dirs);
    let wanted = match (&cli.resume, cli.continue_last) {
        (Some(id), _) => Some(Ok(id.clone())),
        (None, true) => store.latest().transpose(),
        (None, false) => None,
    };
    if let Some(id) = wanted {
        match id.and_then(|id| store.load(&id)) {
            Ok(loaded) => {
                tui::boot::replay(state, &loaded);
                options = resume(options, &store, &loaded);
            }
            Err(e) => state
                .chat
                .push(ChatEntry::new(ChatKind::Error, format!("resume: {e}"))),
        }
    }
    Some(Session::spawn(options))
}

pub fn run(cli: &Cli) -> color_eyre::Result<()> {
    let dirs = Dirs::from_env();
    let loaded = config::load(&dirs, cli.config.as_deref()).unwrap_or_else(|e| fail(&e));
    // The loader has validated the bindings already.
    let keymap = Keymap::with_overrides(&loaded.config.ui.keys).unwrap_or_default();

    let no_color = cli.no_color || std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let themes = ThemeSet::new(Some(dirs.user_theme_dir()));
    let theme_name = cli
        .theme
        .clone()
        .or_else(|| loaded.config.ui.theme.clone())
        .unwrap_or_else(|| "default".into());
    let (theme, theme_error) = match themes.load(&theme_name) {
        Ok(theme) => (theme, None),
        Err(e) => (Theme::fallback_default(), Some(e)),
    };
    let theme = if no_color {
        theme.without_colors()
    } else {
        theme
    };
    let shown_name = if theme_error.is_some() {
        "default".to_string()
    } else {
        theme_name
    };
    let always_file = loaded
        .source
        .as_ref()
        .map_or_else(|| dirs.cwd.join("switchboard.toml"), |c| c.path.clone());
    let registry = Arc::new(registry(&loaded, &dirs, &always_file));
    let mut state = initial_state(&loaded.config, keymap, shown_name, themes.names());
    state.always_file = always_file.display().to_string();
    state.status.policy_mode = registry.policy().mode().to_string();
    if let Some(e) = theme_error {
        state.notice(NoticeLevel::Error, format!("{e}; using the default theme"));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let builtins = register_builtins(&registry, &loaded.config, &dirs, &dirs.cwd).await;
        let memory_dir = match builtins {
            Ok(summary) => {
                tui::boot::show_builtins(
                    &mut state,
                    &summary,
                    loaded.config.skills.allow.as_deref(),
                );
                summary.memory_dir
            }
            Err(e) => {
                state.notice(NoticeLevel::Error, format!("built-in tools: {e}"));
                None
            }
        };
        state.catalog.tools = registry.specs().iter().map(tui::boot::tool_entry).collect();
        let session = start_session(cli, &loaded.config, &dirs, &registry, &mut state);
        tui::app::run_async(TuiOptions {
            state,
            registry,
            session,
            memory_dir,
            theme,
            themes,
            no_color,
            log_file: cli
                .log_file
                .clone()
                .unwrap_or_else(|| dirs.default_log_file()),
            exit_after_first_frame: cli.exit_after_first_frame,
            debug_panic: cli.debug_panic,
        })
        .await
    })
}
