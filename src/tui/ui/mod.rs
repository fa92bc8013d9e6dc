//! Drawing: `render(&State, &Theme, &mut Frame)`, one pane per file.

mod agent_card;
pub mod approval;
mod ask;
mod catalog;
mod chat;
mod composer;
mod detail;
mod form;
mod help;
pub mod input_prompt;
mod library;
mod login;
mod logs;
mod palette;
mod registry;
mod servers;
mod sessions;
mod status;
mod tasks;
pub mod trust_prompt;
mod wire;

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::widgets::Clear;

use crate::theme::Theme;

use super::layout::layout;
use super::state::{Overlay, State};

/// Below this size the panes cannot be drawn usefully.
pub const MIN_SIZE: (u16, u16) = (40, 12);

pub fn render(state: &State, theme: &Theme, frame: &mut Frame) {
    let area = frame.area();
    frame
        .buffer_mut()
        .set_style(area, super::style::style(theme, crate::theme::Role::Text));
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        too_small(theme, frame, area);
        return;
    }
    let areas = layout(frame.area(), state.show_logs, state.composer.line_count());
    servers::render(state, theme, frame, areas.servers);
    catalog::render(state, theme, frame, areas.catalog);
    chat::render(state, theme, frame, areas.chat);
    composer::render(state, theme, frame, areas.composer);
    if let Some(rect) = areas.logs {
        logs::render(state, theme, frame, rect);
    }
    status::render(state, theme, frame, areas.status);
    composer::render_popup(state, theme, frame, areas.composer, areas.chat.y);
    approval::render(state, theme, frame);
    // The overlays bottom first: the top one is drawn last, over the others.
    for overlay in &state.overlays {
        draw_overlay(state, theme, frame, overlay);
    }
    // A server waits for the person: its question is drawn over everything.
    ask::render(state, theme, frame);
}

fn draw_overlay(state: &State, theme: &Theme, frame: &mut Frame, overlay: &Overlay) {
    match overlay {
        Overlay::Help { scroll } => help::render(state, theme, frame, *scroll),
        Overlay::Palette(p) => palette::render(state, theme, frame, p),
        Overlay::Detail { scroll, raw } => detail::render(state, theme, frame, *scroll, *raw),
        Overlay::Form(f) => form::render(state, theme, frame, f),
        Overlay::Server { scroll } => detail::render_server(state, theme, frame, *scroll),
        Overlay::Sessions(picker) => sessions::render(state, theme, frame, picker),
        Overlay::Tasks { sel } => tasks::render(state, theme, frame, *sel),
        Overlay::Wire => wire::render(state, theme, frame),
        Overlay::Browse { kind, sel, scroll } => {
            library::render(state, theme, frame, *kind, *sel, *scroll);
        }
        Overlay::Login(view) => login::render(state, theme, frame, view),
        Overlay::Registry(view) => registry::render(state, theme, frame, view),
    }
}

/// Only a notice: the terminal is smaller than [`MIN_SIZE`].
fn too_small(theme: &Theme, frame: &mut Frame, area: Rect) {
    let text = format!(
        "Terminal too small: {}×{}. switchboard needs at least {}×{}; Ctrl+C quits.",
        area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
    );
    let [row] = Layout::vertical([Constraint::Length(3)])
        .flex(Flex::Center)
        .areas(area);
    frame.render_widget(
        ratatui::widgets::Paragraph::new(text)
            .style(super::style::style(theme, crate::theme::Role::Warning))
            .alignment(ratatui::layout::Alignment::Center)
            .wrap(ratatui::widgets::Wrap { trim: true }),
        row,
    );
}

/// A centred rectangle of at most `width`×`height`, cleared for an overlay.
fn popup(frame: &mut Frame, width: u16, height: u16) -> Rect {
    let area = frame.area();
    let [row] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [rect] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(row);
    frame.render_widget(Clear, rect);
    rect
}
