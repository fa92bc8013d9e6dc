//! Where each pane goes, as a pure function of the terminal size, so that `update`
//! (mouse hit-testing, scroll limits) and `render` agree.

use ratatui::layout::{Constraint, Layout, Position, Rect};

use super::state::{Pane, State};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub servers: Rect,
    pub catalog: Rect,
    pub chat: Rect,
    pub composer: Rect,
    pub logs: Option<Rect>,
    pub status: Rect,
}

impl Areas {
    pub fn of(state: &State) -> Areas {
        let (w, h) = state.size;
        layout(
            Rect::new(0, 0, w, h),
            state.show_logs,
            state.composer.line_count(),
        )
    }

    /// The pane under a screen position.
    pub fn pane_at(&self, column: u16, row: u16) -> Option<Pane> {
        let p = Position::new(column, row);
        [
            (self.servers, Pane::Servers),
            (self.catalog, Pane::Catalog),
            (self.chat, Pane::Chat),
            (self.composer, Pane::Composer),
        ]
        .into_iter()
        .chain(self.logs.map(|r| (r, Pane::Logs)))
        .find(|(r, _)| r.contains(p))
        .map(|(_, pane)| pane)
    }

    pub fn rect(&self, pane: Pane) -> Rect {
        match pane {
            Pane::Servers => self.servers,
            Pane::Catalog => self.catalog,
            Pane::Chat => self.chat,
            Pane::Composer => self.composer,
            Pane::Logs => self.logs.unwrap_or_default(),
        }
    }
}

pub fn layout(area: Rect, show_logs: bool, composer_lines: usize) -> Areas {
    let [body, status] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
    let (body, logs) = if show_logs {
        let logs_h = (body.height / 3).clamp(3, 12);
        let [top, logs] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(logs_h)]).areas(body);
        (top, Some(logs))
    } else {
        (body, None)
    };
    let left_w = (body.width * 3 / 10).clamp(18.min(body.width), 40);
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_w), Constraint::Min(1)]).areas(body);
    let [servers, catalog] =
        Layout::vertical([Constraint::Percentage(35), Constraint::Percentage(65)]).areas(left);
    let composer_h = u16::try_from(composer_lines)
        .unwrap_or(u16::MAX)
        .saturating_add(2)
        .clamp(3, 8)
        .min(right.height / 2);
    let [chat, composer] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(composer_h)]).areas(right);
    Areas {
        servers,
        catalog,
        chat,
        composer,
        logs,
        status,
    }
}
