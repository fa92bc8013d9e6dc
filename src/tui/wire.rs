//! The Wire view (F7, `/wire`, the palette's "Wire view"): every JSON-RPC message
//! between switchboard and its MCP peers, newest at the bottom, following the tail
//! unless the person moved up. `/` filters (`server:NAME`, `method:PREFIX`, `error`,
//! words in the message), Enter shows a message in full, `x` exports the shown
//! messages, `c` copies the command that repeats a request.
//!
//! The rows are the pane's own bounded copy of the capture: the inbox's forwarder
//! hands over only what is new (`WireLog::entries_after` its last message) as
//! `Msg::Wire`.

pub use super::state::{WireDetail, WirePane};
use std::sync::Arc;

use crate::keymap::{Action, Key, KeyCode};
use crate::mcp::wire::view::{WireFilter, clock, round_trip, size};
use crate::mcp::wire::{Direction, Kind, Side, WireEntry, command};
use crate::sanitize::{sanitize, sanitize_line};

use super::msg::{Cmd, FileCmd, Handled, UiCmd};
use super::state::{NoticeLevel, Overlay, State};

/// Messages the pane keeps (the newest), whatever the capture keeps per peer.
pub const WIRE_ROWS: usize = crate::mcp::wire::DEFAULT_CAPACITY;

/// Rows of messages the list shows at this screen size (below the title, the header
/// line and the column names; above the status bar).
pub fn list_height(size: (u16, u16)) -> usize {
    usize::from(size.1.saturating_sub(5)).max(1)
}

/// Lines the details view shows at this screen size.
pub fn detail_height(size: (u16, u16)) -> usize {
    usize::from(size.1.saturating_sub(3)).max(1)
}

pub fn open(state: &mut State) -> Vec<Cmd> {
    state.wire.detail = None;
    state.wire.editing = false;
    state.overlays.push(Overlay::Wire);
    Vec::new()
}

/// New messages from the capture (`seq` above `last_seq`, oldest first).
pub fn arrived(state: &mut State, entries: Vec<Arc<WireEntry>>) -> Vec<Cmd> {
    let pane = &mut state.wire;
    let skip = entries.len().saturating_sub(WIRE_ROWS);
    for entry in entries.into_iter().skip(skip) {
        if entry.seq <= pane.last_seq {
            continue;
        }
        pane.last_seq = entry.seq;
        if pane.filter.matches(&entry) {
            pane.shown.push_back(Arc::clone(&entry));
            // Moved up: the same rows stay in view; else the view follows.
            if pane.sel > 0 {
                pane.sel += 1;
                pane.scroll += 1;
            }
        }
        pane.rows.push_back(entry);
        if pane.rows.len() > WIRE_ROWS
            && let Some(old) = pane.rows.pop_front()
            && pane.shown.front().is_some_and(|s| s.seq == old.seq)
        {
            pane.shown.pop_front();
        }
    }
    let last = pane.shown.len().saturating_sub(1);
    pane.sel = pane.sel.min(last);
    pane.scroll = pane.scroll.min(pane.sel);
    Vec::new()
}

/// Keys of the list and of the details view.
pub fn key(state: &mut State, action: Option<Action>) -> Handled {
    if state.wire.detail.is_some() {
        return detail_key(state, action);
    }
    match action {
        Some(Action::Filter) => state.wire.editing = true,
        Some(Action::Activate) => {
            if let Some(entry) = state.wire.selected() {
                state.wire.detail = Some(detail(entry));
            }
        }
        Some(Action::ExportWire) => return export(state).into(),
        Some(Action::CopyCommand) => {
            let Some(entry) = state.wire.selected().cloned() else {
                return Handled::nothing();
            };
            return copy(state, &entry).into();
        }
        Some(Action::Close | Action::ShowWire) => {
            state.overlays.pop();
        }
        Some(a) if is_move(a) => nav(state, a),
        Some(other) => return Handled::Unhandled(other),
        None => {}
    }
    Handled::nothing()
}

/// The filter line: typing narrows at once, Enter keeps it, Esc clears it.
pub fn filter_key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    let pane = &mut state.wire;
    match action {
        Some(Action::Close) => {
            pane.query.clear();
            pane.editing = false;
        }
        Some(Action::Activate) => {
            pane.editing = false;
            return Handled::nothing();
        }
        Some(a @ (Action::Up | Action::Down)) => {
            nav(state, a);
            return Handled::nothing();
        }
        Some(other) => return Handled::Unhandled(other),
        None => match key.typed_char() {
            Some(c) => pane.query.push(c),
            None if key.code == KeyCode::Backspace => {
                pane.query.pop();
            }
            None => return Handled::nothing(),
        },
    }
    refilter(pane);
    Handled::nothing()
}

fn refilter(pane: &mut WirePane) {
    pane.filter = WireFilter::parse(&pane.query);
    let filter = &pane.filter;
    pane.shown = pane
        .rows
        .iter()
        .filter(|e| filter.matches(e))
        .cloned()
        .collect();
    pane.sel = 0;
    pane.scroll = 0;
}

fn is_move(action: Action) -> bool {
    matches!(
        action,
        Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
    )
}

/// Moving the selection (Up goes back in time); the view keeps it in sight.
fn nav(state: &mut State, action: Action) {
    let page = list_height(state.size);
    let pane = &mut state.wire;
    let last = pane.shown.len().saturating_sub(1);
    pane.sel = match action {
        Action::Up => pane.sel + 1,
        Action::Down => pane.sel.saturating_sub(1),
        Action::PageUp => pane.sel + page,
        Action::PageDown => pane.sel.saturating_sub(page),
        Action::Top => last,
        _ => 0,
    }
    .min(last);
    if pane.sel < pane.scroll {
        pane.scroll = pane.sel;
    } else if pane.sel >= pane.scroll + page {
        pane.scroll = pane.sel + 1 - page;
    }
}

fn detail_key(state: &mut State, action: Option<Action>) -> Handled {
    let page = detail_height(state.size);
    let Some(d) = &mut state.wire.detail else {
        return Handled::nothing();
    };
    // Long lines wrap: scrolling goes on until the last line is at the top.
    let max = (d.facts.len() + d.json.len()).max(1);
    match action {
        Some(Action::Up) => d.scroll = d.scroll.saturating_sub(1),
        Some(Action::Down) => d.scroll = (d.scroll + 1).min(max),
        Some(Action::PageUp) => d.scroll = d.scroll.saturating_sub(page),
        Some(Action::PageDown) => d.scroll = (d.scroll + page).min(max),
        Some(Action::Top) => d.scroll = 0,
        Some(Action::Bottom) => d.scroll = max,
        Some(Action::CopyCommand) => {
            let entry = Arc::clone(&d.entry);
            return copy(state, &entry).into();
        }
        Some(Action::Close) => state.wire.detail = None,
        Some(Action::ShowWire) => {
            state.overlays.pop();
        }
        Some(Action::Filter | Action::ExportWire | Action::Activate) | None => {}
        Some(other) => return Handled::Unhandled(other),
    }
    Handled::nothing()
}

/// The facts of `entry` and its JSON, for the details view.
fn detail(entry: &Arc<WireEntry>) -> WireDetail {
    let mut facts = vec![("time".to_string(), format!("{} UTC", clock(entry.at)))];
    let side = match entry.side {
        Side::Upstream => "server",
        Side::Downstream => "serve client",
    };
    facts.push((
        "peer".into(),
        format!("{} ({side})", sanitize_line(&entry.peer)),
    ));
    let direction = match entry.direction {
        Direction::Sent => "→ sent",
        Direction::Received => "← received",
    };
    facts.push(("direction".into(), direction.into()));
    facts.push(("kind".into(), kind_label(entry.kind).into()));
    if let Some(method) = &entry.method {
        facts.push(("method".into(), sanitize_line(method)));
    }
    if let Some(id) = &entry.id {
        facts.push(("id".into(), sanitize_line(id)));
    }
    facts.push(("size".into(), size(entry.bytes)));
    if let Some(rtt) = entry.rtt {
        facts.push(("round trip".into(), round_trip(rtt)));
    }
    if let Some(http) = &entry.http {
        if let Some(status) = http.status {
            facts.push(("HTTP status".into(), status.to_string()));
        }
        for (name, value) in &http.headers {
            facts.push((sanitize_line(name), sanitize_line(value)));
        }
    }
    let pretty = serde_json::to_string_pretty(&*entry.message).unwrap_or_default();
    let json = sanitize(&pretty).lines().map(str::to_owned).collect();
    WireDetail {
        entry: Arc::clone(entry),
        facts,
        json,
        scroll: 0,
    }
}

pub fn kind_label(kind: Kind) -> &'static str {
    match kind {
        Kind::Request => "request",
        Kind::Notification => "notification",
        Kind::Response => "response",
        Kind::Error => "error",
        Kind::Other => "other",
    }
}

/// `x`: the shown messages to a JSONL file (the executor names it and answers
/// `Msg::WireExported`).
fn export(state: &mut State) -> Vec<Cmd> {
    if state.wire.shown.is_empty() {
        state.notice(NoticeLevel::Warn, "no messages shown: nothing to export");
        return Vec::new();
    }
    vec![FileCmd::ExportWire(state.wire.shown.iter().cloned().collect()).into()]
}

/// What the export wrote (how many messages, where) or why it did not.
pub fn exported(state: &mut State, result: Result<(usize, String), String>) -> Vec<Cmd> {
    match result {
        Ok((n, path)) => state.notice(
            NoticeLevel::Info,
            format!("exported {n} messages to {}", sanitize_line(&path)),
        ),
        Err(e) => state.notice(NoticeLevel::Error, format!("export: {e}")),
    }
    Vec::new()
}

/// `c`: the command that repeats the request (a response's own request, looked up
/// among the kept rows) to the clipboard and the notice; else why there is none.
fn copy(state: &mut State, entry: &Arc<WireEntry>) -> Vec<Cmd> {
    let request = if matches!(entry.kind, Kind::Response | Kind::Error) {
        let Some(request) = command::request_of(entry, state.wire.rows.iter()) else {
            state.notice(
                NoticeLevel::Warn,
                "its request is no longer kept: no command to copy",
            );
            return Vec::new();
        };
        Arc::clone(request)
    } else {
        Arc::clone(entry)
    };
    match command::repeat(&request) {
        Ok(line) => {
            // Secrets were masked at capture: the command holds the mask, not them.
            let masked = if line.contains(crate::mcp::wire::mask::MASK) {
                " (masked values are ***: fill them in)"
            } else {
                ""
            };
            let text = format!("copied: {}{masked}", sanitize_line(&line));
            state.notice(NoticeLevel::Info, text);
            vec![UiCmd::CopyText(line).into()]
        }
        Err(why) => {
            state.notice(NoticeLevel::Warn, sanitize_line(&why.to_string()));
            Vec::new()
        }
    }
}
