//! `switchboard` with no subcommand: load the configuration, then start the TUI.
//! Configuration errors are printed before the screen is touched.

use std::sync::Arc;

use super::Cli;
use super::mcp_session::{self, Asked};
use crate::agent::{SessionHandle, SessionRecipe, SessionStore};
use crate::config::import::InputSpec;
use crate::keymap::Keymap;
use crate::llm::ProviderChoice;
use crate::paths::Dirs;
use crate::theme::{Theme, ThemeSet};
use crate::tui::input_prompt::Outcome;
use crate::tui::{self, TuiOptions};
use crate::workbench::{Workbench, WorkbenchOptions};

/// The agent session behind the composer: the chosen provider (the offline scripted
/// one by default), `[agent]` options, saved to the state directory; `--resume` /
/// `--continue` reopen a saved one and replay its transcript into the UI.
fn start_session(
    cli: &Cli,
    recipe: &SessionRecipe,
    state: &mut tui::State,
) -> Option<SessionHandle> {
    let choice = ProviderChoice {
        name: cli.provider.clone(),
        model: cli.model.clone(),
    };
    let store = SessionStore::from_dirs(&recipe.dirs);
    let wanted = match (&cli.resume, cli.continue_last) {
        // `--resume` alone: the picker opens once the screen is up.
        (Some(id), _) if id.is_empty() => None,
        (Some(id), _) => Some(id.clone()),
        (None, true) => match store.latest_in(&recipe.dirs.cwd) {
            Ok(latest) => latest,
            Err(e) => {
                tui::boot::note_error(state, format!("resume: {e}"));
                None
            }
        },
        (None, false) => None,
    };
    match recipe.start(&choice, cli.step, wanted.as_deref()) {
        Ok((handle, loaded)) => {
            if let Some(loaded) = loaded {
                tui::boot::replay(state, &loaded);
            }
            Some(handle)
        }
        Err(e) => {
            tui::boot::without_session(state, e.to_string());
            None
        }
    }
}

/// Asks about the folder's untrusted project files, full-screen, when there are any;
/// returns the lines the transcript shows about them. Quitting at the question
/// leaves switchboard (status 130) with nothing started.
fn ask_trust(loaded: &mut crate::trust::Loaded, theme: &Theme) -> Vec<String> {
    use crate::trust::{Answer, Decision, State};
    let to_ask = loaded.to_ask();
    if !to_ask.is_empty() {
        let mut prompt = tui::trust_prompt::TrustPrompt::new(&loaded.folder, &to_ask);
        let answer = match tui::trust_prompt::ask(&mut prompt, theme) {
            Ok(answer) => answer,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                std::process::exit(mcp_session::QUIT_AT_PROMPT)
            }
            // No terminal to ask on: left out, as a headless command would.
            Err(e) => {
                return vec![format!(
                    "the folder's config was not asked about ({e}) and is left out; review it with `switchboard trust`"
                )];
            }
        };
        if let Err(e) = loaded.answer(answer) {
            eprintln!("warning: the trust decision was not saved: {e}");
        }
        if answer == Answer::Once {
            let files: Vec<&str> = (loaded.files.iter())
                .filter(|f| f.applies && f.state.needs_asking())
                .map(|f| f.shown.as_str())
                .collect();
            return vec![format!(
                "{} trusted for this run only; the next start asks again",
                files.join(", ")
            )];
        }
    }
    loaded
        .files
        .iter()
        .filter(|f| f.state == State::Decided(Decision::Ignored))
        .map(|f| {
            format!(
                "{} is ignored (not trusted): its servers, hooks, providers and policy are left out; review it with `switchboard trust`",
                f.shown
            )
        })
        .collect()
}

/// The theme of the screen: a flag wins, then what the palette chose last time, then
/// the config; a theme that does not load falls back to the default, said later.
struct Looks {
    theme: Theme,
    themes: ThemeSet,
    /// The name shown (`default` when the chosen one failed).
    name: String,
    error: Option<String>,
    prefs: tui::prefs::UiPrefs,
    no_color: bool,
}

fn looks(cli: &Cli, dirs: &Dirs, config: &crate::config::Config) -> Looks {
    let no_color = cli.no_color || std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let themes = ThemeSet::new(Some(dirs.user_theme_dir()));
    let prefs = tui::prefs::load(&dirs.ui_prefs_file());
    let wanted = cli
        .theme
        .clone()
        .or_else(|| prefs.theme.clone())
        .or_else(|| config.ui.theme.clone())
        .unwrap_or_else(|| "default".into());
    let (theme, name, error) = match themes.load(&wanted) {
        Ok(theme) => (theme, wanted, None),
        Err(e) => (
            Theme::fallback_default(),
            "default".into(),
            Some(e.to_string()),
        ),
    };
    let theme = if no_color {
        theme.without_colors()
    } else {
        theme
    };
    Looks {
        theme,
        themes,
        name,
        error,
        prefs,
        no_color,
    }
}

/// Everything decided before the workbench starts, problems printed (and the process
/// ended) before the screen is used for anything but the questions.
struct Prepared {
    config: crate::config::Config,
    looks: Looks,
    state: tui::State,
    wire: Option<Arc<crate::mcp::WireLog>>,
    always_file: std::path::PathBuf,
}

/// Ends the process with `code` (its reason is already printed).
fn quit<T>(code: i32) -> T {
    std::process::exit(code)
}

fn prepare(cli: &Cli, dirs: &Dirs) -> Prepared {
    // The config layers first (the theme is in them); until the person answers, only
    // a project's cosmetic keys apply.
    let mut loaded = mcp_session::load_trust(cli, dirs).unwrap_or_else(quit);
    let looks = looks(
        cli,
        dirs,
        &mcp_session::config_of(&loaded).unwrap_or_else(quit),
    );
    // Nothing of a project's starts before the person has said whether to trust it.
    let trust_notes = ask_trust(&mut loaded, &looks.theme);
    let mut config = mcp_session::config_of(&loaded).unwrap_or_else(quit);
    // Capture is always on in the TUI (the Wire pane); `--trace` also writes it out.
    let wire = mcp_session::wire_log(cli, &config, true).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    // Then the servers of every --mcp-config file; `${input:…}` is asked for on screen.
    let mut ask = |path: &std::path::Path, specs: &[InputSpec]| match tui::input_prompt::ask(
        &path.display().to_string(),
        specs,
        &looks.theme,
    ) {
        Ok(Outcome::Done(answers)) => Asked::Answers(answers),
        Ok(Outcome::Quit) => Asked::Quit,
        Ok(Outcome::Skip | Outcome::Pending) | Err(_) => Asked::Skip,
    };
    let import_warnings = mcp_session::add_imports(cli, dirs, &mut config, Some(&mut ask), &loaded)
        .unwrap_or_else(quit);
    mcp_session::apply_protocol(cli, &mut config);
    mcp_session::named_ones_apply(&loaded, &config, None, cli.provider.as_deref())
        .unwrap_or_else(quit);
    let always_file = mcp_session::source_of(&loaded, dirs);
    let state = tui::boot::starting_state(tui::boot::Start {
        config: &config,
        // The loader has validated the bindings already.
        keymap: Keymap::with_overrides(&config.ui.keys).unwrap_or_default(),
        theme_name: looks.name.clone(),
        theme_names: looks.themes.names(),
        always_file: always_file.display().to_string(),
        mouse: looks.prefs.mouse,
        theme_error: looks.error.clone(),
        import_warnings: &import_warnings,
        trust_notes: &trust_notes,
    });
    Prepared {
        config,
        looks,
        state,
        wire,
        always_file,
    }
}

pub fn run(cli: &Cli) -> color_eyre::Result<()> {
    let started = std::time::Instant::now();
    let dirs = Dirs::from_env();
    let prepared = prepare(cli, &dirs);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run_screen(cli, dirs, prepared, started))
}

/// The workbench behind the screen, started once the person has answered every
/// question; the servers connect after the first frame.
async fn run_screen(
    cli: &Cli,
    dirs: Dirs,
    prepared: Prepared,
    started: std::time::Instant,
) -> color_eyre::Result<()> {
    let Prepared {
        config,
        looks,
        mut state,
        wire,
        always_file,
    } = prepared;
    // Servers' questions (elicitation, sampling) are answered on screen.
    let (asker, asks) = crate::mcp::ChannelAsker::new();
    let asker: Arc<dyn crate::mcp::Asker> = Arc::new(asker);
    let start_gate = crate::mcp::StartGate::default();
    let options = WorkbenchOptions {
        interactive: true,
        always_file: Some(always_file),
        asker: Some(Arc::clone(&asker)),
        wire,
        start: Some(start_gate.clone()),
        // A tool's app opens from its result card (in `$BROWSER`, or its URL shown).
        apps: true,
        ..WorkbenchOptions::default()
    };
    let workbench = Workbench::start(&config, &dirs, options)
        .await
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1);
        });
    let (recipe, memory_dir, read_cards) = boot(&mut state, &workbench, &config, &dirs);
    let session = start_session(cli, &recipe, &mut state);
    // "Add server…" writes the person's own file, never a project's.
    state.registry_place = Some(tui::registry::RegistryPlace {
        url: config.mcp.registry.clone(),
        cache_dir: dirs.registry_cache_dir(),
        user_config: dirs.user_config_file(),
    });
    let (serve, serve_stop) = match &cli.serve {
        Some(addr) => match start_serve(&workbench, addr).await {
            Ok((link, stop)) => {
                state.serve.url = Some(link.url.clone());
                (Some(link), Some(stop))
            }
            Err(e) => {
                eprintln!("--serve: {e}");
                std::process::exit(1);
            }
        },
        None => (None, None),
    };
    let result = tui::event_loop::run_async(TuiOptions {
        started,
        state,
        registry: Arc::clone(&workbench.registry),
        session,
        recipe: Some(recipe),
        hub: (!config.servers.is_empty()).then(|| workbench.hub.clone()),
        memory_dir,
        theme: looks.theme,
        themes: looks.themes,
        no_color: looks.no_color,
        log_file: cli
            .log_file
            .clone()
            .unwrap_or_else(|| dirs.default_log_file()),
        prefs_file: Some(dirs.ui_prefs_file()),
        startup: (cli.resume.as_deref() == Some(""))
            .then(|| tui::SessionCmd::OpenSessions.into())
            .into_iter()
            .chain(read_cards)
            .collect(),
        exit_after_first_frame: cli.exit_after_first_frame,
        debug_panic: cli.debug_panic,
        asks: Some(asks),
        serve,
        wire: Some(Arc::clone(&workbench.wire)),
        start_gate: Some(start_gate),
        app_asker: Some(asker),
    })
    .await;
    if let Some(stop) = serve_stop {
        stop.cancel();
    }
    workbench.shutdown().await;
    result
}

/// The tool world on screen once the workbench is up: the mode, built-ins and
/// catalog, the agents (remote cards read in the background); and how sessions are
/// made, where memories live, and the commands that read the cards.
fn boot(
    state: &mut tui::State,
    workbench: &Workbench,
    config: &crate::config::Config,
    dirs: &Dirs,
) -> (SessionRecipe, Option<std::path::PathBuf>, Option<tui::Cmd>) {
    let registry = &workbench.registry;
    let builtins_started = workbench.builtins.as_ref().map_err(ToString::to_string);
    tui::boot::with_tools(
        state,
        registry.mode().to_string(),
        builtins_started.as_ref().copied().map_err(String::as_str),
        config.skills.allow.as_deref(),
        &registry.specs(),
    );
    let agents: Vec<(String, String)> = (config.agents.iter())
        .map(|(name, def)| {
            let tool = crate::config::AgentDef::tool_name(name);
            (tool, crate::agents::describe(name, def))
        })
        .collect();
    tui::boot::describe_agents(state, &agents);
    let read_cards = tui::agent_cards::start(state, config);
    let builtins = workbench.builtins.as_ref().ok();
    let memory_dir = builtins.and_then(|summary| summary.memory_dir.clone());
    let recipe = SessionRecipe {
        config: config.clone(),
        dirs: dirs.clone(),
        registry: Arc::clone(registry),
        skills: builtins
            .map(|b| b.visible_skills(config.skills.allow.as_deref()))
            .unwrap_or_default(),
        readiness: Some(workbench.readiness()),
    };
    (recipe, memory_dir, read_cards)
}

/// `--serve ADDR`: the HTTP gateway on this workbench, its gate events and clients
/// for the TUI.
async fn start_serve(
    workbench: &Workbench,
    addr: &str,
) -> Result<
    (
        tui::serve_view::ServeLink,
        tokio_util::sync::CancellationToken,
    ),
    crate::serve::HttpError,
> {
    let (tx, gate_events) = tokio::sync::mpsc::unbounded_channel();
    let gateway = crate::serve::Gateway::new(workbench).with_observer(Arc::new(tx));
    let gateway = Arc::new(gateway);
    let server = crate::serve::HttpServer::bind(&gateway, addr).await?;
    let url = server.url().to_owned();
    let stop = tokio_util::sync::CancellationToken::new();
    tokio::spawn(server.serve(stop.clone()));
    let link = tui::serve_view::ServeLink {
        url,
        gate_events,
        clients: gateway.clients().subscribe(),
    };
    Ok((link, stop))
}
