//! `switchboard` with no subcommand: load the configuration, then start the TUI.
//! Configuration errors are printed before the screen is touched.

use super::Cli;
use crate::config::{self, ConfigError};
use crate::keymap::Keymap;
use crate::paths::Dirs;
use crate::theme::{Theme, ThemeSet};
use crate::tui::{self, TuiOptions, boot::initial_state, state::NoticeLevel};

/// Print a configuration error plainly and exit 1.
fn fail(error: &ConfigError) -> ! {
    eprintln!("{error}");
    std::process::exit(1)
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
    let mut state = initial_state(&loaded.config, keymap, shown_name, themes.names());
    if let Some(e) = theme_error {
        state.notice(NoticeLevel::Error, format!("{e}; using the default theme"));
    }
    tui::run(TuiOptions {
        state,
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
}
