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
            tui::boot::without_session(state, e);
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

pub fn run(cli: &Cli) -> color_eyre::Result<()> {
    let started = std::time::Instant::now();
    let dirs = Dirs::from_env();
    // The config layers first (the theme is in them), problems printed before the
    // screen is touched; until the person answers, only a project's cosmetic keys
    // apply.
    let mut loaded =
        mcp_session::load_trust(cli, &dirs).unwrap_or_else(|code| std::process::exit(code));
    let config = mcp_session::config_of(&loaded).unwrap_or_else(|code| std::process::exit(code));
    let no_color = cli.no_color || std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let themes = ThemeSet::new(Some(dirs.user_theme_dir()));
    // A flag wins, then what the palette chose last time, then the config.
    let prefs = tui::prefs::load(&dirs.ui_prefs_file());
    let theme_name = cli
        .theme
        .clone()
        .or_else(|| prefs.theme.clone())
        .or_else(|| config.ui.theme.clone())
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
    // Nothing of a project's starts before the person has said whether to trust it.
    let trust_notes = ask_trust(&mut loaded, &theme);
    let mut config =
        mcp_session::config_of(&loaded).unwrap_or_else(|code| std::process::exit(code));
    // Capture is always on in the TUI (the Wire pane); `--trace` also writes it out.
    let wire = mcp_session::wire_log(cli, &config, true).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    // The loader has validated the bindings already.
    let keymap = Keymap::with_overrides(&config.ui.keys).unwrap_or_default();
    // Then the servers of every --mcp-config file; `${input:…}` is asked for on screen.
    let mut ask = |path: &std::path::Path, specs: &[InputSpec]| match tui::input_prompt::ask(
        &path.display().to_string(),
        specs,
        &theme,
    ) {
        Ok(Outcome::Done(answers)) => Asked::Answers(answers),
        Ok(Outcome::Quit) => Asked::Quit,
        Ok(Outcome::Skip | Outcome::Pending) | Err(_) => Asked::Skip,
    };
    let import_warnings =
        mcp_session::add_imports(cli, &dirs, &mut config, Some(&mut ask), &loaded)
            .unwrap_or_else(|code| std::process::exit(code));
    mcp_session::apply_protocol(cli, &mut config);
    mcp_session::named_ones_apply(&loaded, &config, None, cli.provider.as_deref())
        .unwrap_or_else(|code| std::process::exit(code));
    let always_file = mcp_session::source_of(&loaded, &dirs);
    let shown_name = if theme_error.is_some() {
        "default".to_string()
    } else {
        theme_name
    };
    let mut state = tui::boot::starting_state(tui::boot::Start {
        config: &config,
        keymap,
        theme_name: shown_name,
        theme_names: themes.names(),
        always_file: always_file.display().to_string(),
        mouse: prefs.mouse,
        theme_error: theme_error.map(|e| e.to_string()),
        import_warnings: &import_warnings,
        trust_notes: &trust_notes,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        // Servers' questions (elicitation, sampling) are answered on screen.
        let (asker, asks) = crate::mcp::ChannelAsker::new();
        // The servers start connecting once the first frame is drawn.
        let start_gate = crate::mcp::StartGate::default();
        let options = WorkbenchOptions {
            interactive: true,
            always_file: Some(always_file),
            asker: Some(Arc::new(asker)),
            wire,
            start: Some(start_gate.clone()),
            ..WorkbenchOptions::default()
        };
        let workbench = match Workbench::start(&config, &dirs, options).await {
            Ok(workbench) => workbench,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let registry = Arc::clone(&workbench.registry);
        tui::boot::with_tools(
            &mut state,
            registry.mode().to_string(),
            workbench.builtins.as_ref().map_err(String::as_str),
            config.skills.allow.as_deref(),
            &registry.specs(),
        );
        let agents: Vec<(String, String)> = (config.agents.iter())
            .map(|(name, def)| {
                let tool = crate::config::AgentDef::tool_name(name);
                (tool, crate::agents::describe(name, def))
            })
            .collect();
        tui::boot::describe_agents(&mut state, &agents);
        // Remote agents' cards are read in the background once the screen is up.
        let read_cards = tui::agent_cards::start(&mut state, &config);
        let memory_dir = workbench
            .builtins
            .as_ref()
            .ok()
            .and_then(|summary| summary.memory_dir.clone());
        let skills = workbench
            .builtins
            .as_ref()
            .map(|b| b.visible_skills(config.skills.allow.as_deref()))
            .unwrap_or_default();
        let recipe = SessionRecipe {
            config: config.clone(),
            dirs: dirs.clone(),
            registry: Arc::clone(&registry),
            skills,
            readiness: Some(workbench.readiness()),
        };
        let session = start_session(cli, &recipe, &mut state);
        let hub = (!config.servers.is_empty()).then(|| workbench.hub.clone());
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
            registry,
            session,
            recipe: Some(recipe),
            hub,
            memory_dir,
            theme,
            themes,
            no_color,
            log_file: cli
                .log_file
                .clone()
                .unwrap_or_else(|| dirs.default_log_file()),
            prefs_file: Some(dirs.ui_prefs_file()),
            startup: (cli.resume.as_deref() == Some(""))
                .then_some(tui::Cmd::OpenSessions)
                .into_iter()
                .chain(read_cards)
                .collect(),
            exit_after_first_frame: cli.exit_after_first_frame,
            debug_panic: cli.debug_panic,
            asks: Some(asks),
            serve,
            wire: Some(Arc::clone(&workbench.wire)),
            start_gate: Some(start_gate),
        })
        .await;
        if let Some(stop) = serve_stop {
            stop.cancel();
        }
        workbench.shutdown().await;
        result
    })
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
