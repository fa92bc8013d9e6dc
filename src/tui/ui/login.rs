//! The login overlay: the authorization URL (wrapped, whole, so it can be selected
//! or copied), the listener's port, what opened the page, and the paste field.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::keymap::{Action, Layer};
use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::login::{LoginPhase, LoginView};
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame, view: &LoginView) {
    let dim = style(theme, Role::Dim);
    let text = style(theme, Role::Text);
    let key = style(theme, Role::KeyHint);
    let mut lines = Vec::new();
    match &view.phase {
        LoginPhase::Starting => {
            lines.push(Line::styled(
                "Finding the authorization server and registering…",
                dim,
            ));
        }
        LoginPhase::Waiting { url, port, opened } => {
            let opened = match opened {
                Ok(program) => format!("Opened in {}. ", sanitize_line(program)),
                Err(why) => format!("No browser opened ({}). ", sanitize_line(why)),
            };
            lines.push(Line::styled(
                format!("{opened}Open this page anywhere and approve:"),
                text,
            ));
            lines.push(Line::styled(sanitize_line(url), style(theme, Role::Code)));
            lines.push(Line::default());
            lines.push(Line::styled(
                format!(
                    "Waiting on 127.0.0.1:{port} for the redirect. Where the browser cannot reach this machine, paste the final redirect URL (or the code):"
                ),
                dim,
            ));
            lines.push(Line::from(vec![
                Span::styled("> ", key),
                Span::styled(format!("{}▏", sanitize_line(&view.pasted)), text),
            ]));
        }
        LoginPhase::Exchanging => {
            lines.push(Line::styled("Exchanging the code for tokens…", dim));
        }
        LoginPhase::Failed(reason) => {
            lines.push(Line::styled(
                sanitize_line(reason),
                style(theme, Role::Error),
            ));
        }
    }
    lines.push(Line::default());
    let km = &state.keymap;
    let form = |action| km.hint(Layer::Form, action);
    let hints = match view.phase {
        LoginPhase::Waiting { .. } => format!(
            "{} send · {} copy URL · {} cancel",
            form(Action::Activate),
            form(Action::CopyUrl),
            form(Action::Close)
        ),
        LoginPhase::Failed(_) => format!(
            "{} close (then {} tries again)",
            form(Action::Close),
            km.hint(Layer::Normal, Action::Login)
        ),
        _ => format!("{} cancel", form(Action::Close)),
    };
    lines.push(Line::styled(hints, key));
    let width = 76;
    let inner = width - 2;
    let rows: usize = lines
        .iter()
        .map(|l| l.width().max(1).div_ceil(usize::from(inner)))
        .sum();
    let height = u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(2);
    let area = super::popup(frame, width, height);
    let title = format!("Log in to {}", sanitize_line(&view.server));
    let block = pane_block(theme, &title, true);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}
