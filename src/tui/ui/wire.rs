//! The Wire view: a header line (shown / kept, the filter), the column names, one
//! row per message (time, peer, direction, kind, method, id, size, round trip, HTTP
//! status), errors in the error colour; or one message in full. Drawn over the panes,
//! above the status bar (which keeps the key hints and the notices).

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use unicode_width::{UnicodeWidthChar as _, UnicodeWidthStr as _};

use crate::mcp::wire::view::{clock, round_trip, size};
use crate::mcp::wire::{Direction, Kind, WireEntry};
use crate::sanitize::sanitize_line;
use crate::theme::{Role, Theme};
use crate::tui::state::State;
use crate::tui::style::{pane_block, style};
use crate::tui::wire::{WireDetail, WirePane, detail_height, list_height};

pub fn render(state: &State, theme: &Theme, frame: &mut Frame) {
    let area = frame.area();
    let rect = Rect {
        height: area.height.saturating_sub(1),
        ..area
    };
    frame.render_widget(Clear, rect);
    let pane = &state.wire;
    match &pane.detail {
        Some(d) => render_detail(d, theme, frame, rect, detail_height(state.size)),
        None => render_list(pane, theme, frame, rect, list_height(state.size)),
    }
}

/// Which columns fit, and how wide each is.
struct Columns {
    time: bool,
    kind: bool,
    peer: usize,
    method: usize,
    id: usize,
}

const SIZE_W: usize = 9;
const RTT_W: usize = 7;

impl Columns {
    fn fit(width: usize, rows: &[&WireEntry]) -> Self {
        let widest = |f: &dyn Fn(&WireEntry) -> usize, lo: usize, hi: usize| {
            rows.iter().map(|e| f(e)).max().unwrap_or(0).clamp(lo, hi)
        };
        let peer = widest(&|e| e.peer.width(), 4, if width < 80 { 10 } else { 14 });
        let id = widest(&|e| e.id.as_deref().map_or(0, str::width), 2, 8);
        // Marker, peer, arrow, id, size, round trip, HTTP status, with their gaps.
        let fixed = 1 + (peer + 1) + 2 + 1 + (id + 1) + (SIZE_W + 1) + (RTT_W + 1) + 4;
        let room = |time: bool, kind: bool| {
            width.saturating_sub(fixed + if time { 13 } else { 0 } + if kind { 6 } else { 0 })
        };
        let (time, kind) = if room(true, true) >= 16 {
            (true, true)
        } else if room(false, true) >= 12 {
            (false, true)
        } else {
            (false, false)
        };
        Self {
            time,
            kind,
            peer,
            method: room(time, kind).max(4),
            id,
        }
    }

    fn cells(&self, e: &WireEntry) -> String {
        let mut line = String::new();
        if self.time {
            line.push_str(&clock(e.at));
            line.push(' ');
        }
        push(&mut line, &sanitize_line(&e.peer), self.peer, false);
        line.push_str(match e.direction {
            Direction::Sent => "→ ",
            Direction::Received => "← ",
        });
        if self.kind {
            push(&mut line, kind_short(e.kind), 5, false);
        }
        let method = e.method.as_deref().map(sanitize_line).unwrap_or_default();
        push(&mut line, &method, self.method, false);
        let id = e.id.as_deref().map(sanitize_line).unwrap_or_default();
        push(&mut line, &id, self.id, false);
        push(&mut line, &size(e.bytes), SIZE_W, true);
        push(
            &mut line,
            &e.rtt.map(round_trip).unwrap_or_default(),
            RTT_W,
            true,
        );
        let status = e.http.as_ref().and_then(|h| h.status);
        let status = status.map(|s| s.to_string()).unwrap_or_default();
        let _ = write!(line, "{status:>4}");
        line
    }

    fn names(&self) -> String {
        let mut line = String::from(" ");
        if self.time {
            push(&mut line, "time (UTC)", 12, false);
        }
        push(&mut line, "peer", self.peer, false);
        line.push_str("  ");
        if self.kind {
            push(&mut line, "kind", 5, false);
        }
        push(&mut line, "method", self.method, false);
        push(&mut line, "id", self.id, false);
        push(&mut line, "size", SIZE_W, true);
        push(&mut line, "rtt", RTT_W, true);
        line.push_str("http");
        line
    }
}

fn kind_short(kind: Kind) -> &'static str {
    match kind {
        Kind::Request => "req",
        Kind::Notification => "note",
        Kind::Response => "resp",
        Kind::Error => "error",
        Kind::Other => "other",
    }
}

/// `text` in `width` columns (cut with `…`, padded), then a space.
fn push(line: &mut String, text: &str, width: usize, right: bool) {
    let mut cut = String::new();
    let mut used = 0;
    if text.width() <= width {
        cut.push_str(text);
        used = text.width();
    } else {
        for c in text.chars() {
            let w = c.width().unwrap_or(0);
            if used + w + 1 > width {
                break;
            }
            used += w;
            cut.push(c);
        }
        cut.push('…');
        used += 1;
    }
    let pad = " ".repeat(width.saturating_sub(used));
    if right {
        line.push_str(&pad);
        line.push_str(&cut);
    } else {
        line.push_str(&cut);
        line.push_str(&pad);
    }
    line.push(' ');
}

fn render_list(pane: &WirePane, theme: &Theme, frame: &mut Frame, rect: Rect, height: usize) {
    let dim = style(theme, Role::Dim);
    let title = if pane.sel > 0 {
        format!("Wire ↑{}", pane.sel)
    } else {
        "Wire".to_string()
    };
    let block = pane_block(theme, &title, true);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    // The view: `height` rows ending `scroll` rows before the newest, holding `sel`.
    let n = pane.shown.len();
    let scroll = pane
        .scroll
        .clamp(pane.sel.saturating_sub(height - 1), pane.sel);
    let end = n.saturating_sub(scroll);
    let start = end.saturating_sub(height);
    let rows: Vec<&WireEntry> = pane.shown.range(start..end).map(AsRef::as_ref).collect();
    let columns = Columns::fit(usize::from(inner.width), &rows);
    let mut lines = vec![header(pane, theme), Line::styled(columns.names(), dim)];
    if rows.is_empty() {
        let text = if pane.rows.is_empty() {
            "Nothing captured yet: messages with MCP servers and serve clients show here."
        } else {
            "No message matches the filter."
        };
        lines.push(Line::styled(text, dim));
    }
    let selected = n.checked_sub(pane.sel + 1);
    for (i, e) in rows.iter().enumerate() {
        let is_sel = Some(start + i) == selected;
        let mut role_style = if e.is_error() {
            style(theme, Role::Error)
        } else {
            style(theme, Role::Text)
        };
        if is_sel {
            role_style = role_style.patch(style(theme, Role::Selection));
        }
        let marker = if is_sel { "›" } else { " " };
        lines.push(Line::from(vec![
            Span::styled(marker, style(theme, Role::Selection)),
            Span::styled(columns.cells(e), role_style),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// `8 shown / 12 kept · filter: …` (with a cursor while it is typed).
fn header<'a>(pane: &WirePane, theme: &Theme) -> Line<'a> {
    let dim = style(theme, Role::Dim);
    let counts = format!("{} shown / {} kept · ", pane.shown.len(), pane.rows.len());
    let filter = sanitize_line(&pane.query);
    let mut spans = vec![Span::styled(counts, style(theme, Role::Title))];
    if pane.editing {
        spans.push(Span::styled(
            format!("filter: {filter}▏"),
            style(theme, Role::Text),
        ));
    } else if filter.is_empty() {
        spans.push(Span::styled(
            "no filter (/: server:NAME method:PREFIX error, words)",
            dim,
        ));
    } else {
        spans.push(Span::styled(
            format!("filter: {filter}"),
            style(theme, Role::Text),
        ));
    }
    Line::from(spans)
}

fn render_detail(d: &WireDetail, theme: &Theme, frame: &mut Frame, rect: Rect, height: usize) {
    let title = format!("Wire · message {}", d.entry.seq);
    let block = pane_block(theme, &title, true);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let label_w = d.facts.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    let facts = d.facts.iter().map(|(k, v)| {
        let role = if k == "HTTP status" && d.entry.is_error() {
            Role::Error
        } else {
            Role::Text
        };
        Line::from(vec![
            Span::styled(format!("{k:<label_w$}  "), style(theme, Role::Dim)),
            Span::styled(v.clone(), style(theme, role)),
        ])
    });
    let json = d
        .json
        .iter()
        .map(|l| Line::styled(l.clone(), style(theme, Role::Text)));
    let lines: Vec<Line> = facts
        .chain([Line::default()])
        .chain(json)
        .skip(d.scroll)
        .take(height)
        .collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
