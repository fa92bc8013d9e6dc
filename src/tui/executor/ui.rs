//! The executor's terminal and desktop side: themes, mouse capture, the remembered
//! UI choices, the external editor (run by the event loop), the browser and the
//! clipboard.

use super::super::msg::{Msg, UiCmd};
use super::super::state::{LogLevel, LogLine};
use super::super::{prefs, term};
use super::Executor;
use crate::tui::state::Unmade;

impl Executor {
    pub(super) fn execute_ui(&mut self, cmd: UiCmd) -> Option<Msg> {
        match cmd {
            // `update` has set `State::quit`; the event loop leaves.
            UiCmd::Quit => None,
            UiCmd::LoadTheme(name) => Some(self.load_theme(name)),
            UiCmd::SetMouseCapture(on) => {
                if let Err(e) = term::set_mouse_capture(on) {
                    tracing::warn!("mouse capture: {e}");
                }
                None
            }
            UiCmd::RememberUi => {
                self.remember_ui();
                None
            }
            UiCmd::EditExternally { text, suffix } => {
                self.editor = Some((text, suffix));
                None
            }
            UiCmd::OpenUrl(url) => {
                let inbox = self.inbox.clone();
                tokio::spawn(async move {
                    if let Err(e) = crate::mcp::oauth::browser::open(&url).await {
                        let line = LogLine {
                            level: LogLevel::Warn,
                            target: "switchboard::tui".into(),
                            message: format!("could not open the page: {e}; copy it with c"),
                        };
                        let _ = inbox.send(Msg::Log(line));
                    }
                });
                None
            }
            UiCmd::MakeHaystacks(unmade) => {
                // Off the UI thread: a relist of thousands of tools would otherwise
                // make the next keystroke wait for their haystacks.
                let inbox = self.inbox.clone();
                tokio::task::spawn_blocking(move || {
                    let made = unmade.into_iter().map(Unmade::make).collect();
                    let _ = inbox.send(Msg::HaystacksMade(made));
                });
                None
            }
            UiCmd::CopyText(text) => {
                // OSC 52: the terminal (also over SSH) puts it on the clipboard.
                if let Err(e) = term::copy_to_clipboard(&text) {
                    tracing::warn!("copy to the clipboard: {e}");
                }
                None
            }
        }
    }

    fn remember_ui(&self) {
        let Some(path) = &self.prefs_file else {
            return;
        };
        let prefs = prefs::UiPrefs {
            theme: Some(self.state.theme_name.clone()),
            mouse: Some(self.state.mouse),
        };
        if let Err(e) = prefs::save(path, &prefs) {
            tracing::warn!(
                "could not remember the UI choices in {}: {e}",
                path.display()
            );
        }
    }

    fn load_theme(&mut self, name: String) -> Msg {
        match self.themes.load(&name) {
            Ok(theme) => {
                self.theme = if self.no_color {
                    theme.without_colors()
                } else {
                    theme
                };
                Msg::ThemeApplied { name, error: None }
            }
            Err(e) => Msg::ThemeApplied {
                name,
                error: Some(e.to_string()),
            },
        }
    }
}
