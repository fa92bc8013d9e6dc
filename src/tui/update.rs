//! `update(&mut State, Msg) -> Vec<Cmd>`: the whole UI behaviour, pure and
//! synchronous. It never awaits and never does IO; the runtime executes the `Cmd`s.

use crate::agent::Op;
use crate::keymap::{Action, Key, Layer};

use super::approvals;
use super::layout::Areas;
use super::msg::{Cmd, Mouse, MouseKind, Msg};
use super::overlays;
use super::panes;
use super::state::{ChatEntry, ChatKind, LOG_CAPACITY, NoticeLevel, Overlay, Pane, State};
use super::typing;

pub fn update(state: &mut State, msg: Msg) -> Vec<Cmd> {
    let cmds = dispatch(state, msg);
    // Every call, read or prompt the person starts answers with one `CallDone`.
    state.manual_running += cmds
        .iter()
        .filter(|c| {
            matches!(
                c,
                Cmd::CallTool { .. } | Cmd::ReadResource { .. } | Cmd::GetPrompt { .. }
            )
        })
        .count();
    cmds
}

fn dispatch(state: &mut State, msg: Msg) -> Vec<Cmd> {
    match msg {
        Msg::Key(key) => on_key(state, key),
        Msg::Paste(text) => {
            typing::paste(state, &text);
            Vec::new()
        }
        Msg::Mouse(mouse) => on_mouse(state, mouse),
        Msg::Resize(w, h) => {
            state.size = (w, h);
            panes::clamp_scrolls(state);
            Vec::new()
        }
        Msg::Log(line) => {
            state.logs.push_back(line);
            if state.logs.len() > LOG_CAPACITY {
                state.logs.pop_front();
            } else if state.logs_scroll.0 > 0 {
                // Keep the lines the reader is looking at in place.
                state.logs_scroll.0 += 1;
            }
            Vec::new()
        }
        Msg::Agent(event) => {
            super::events::on_agent_event(state, *event);
            Vec::new()
        }
        Msg::Grants(grants) => {
            state.grants = grants;
            Vec::new()
        }
        Msg::CallDone {
            tool,
            text,
            is_error,
        } => {
            state.manual_running = state.manual_running.saturating_sub(1);
            super::events::on_call_done(state, &tool, &text, is_error);
            Vec::new()
        }
        Msg::Edited(result) => {
            if let Some(Overlay::Form(form)) = &mut state.overlay {
                form.edited(result);
            }
            Vec::new()
        }
        Msg::Contents(last) => {
            state.last_contents = Some(*last);
            Vec::new()
        }
        Msg::Saved(result) => {
            let (kind, text) = match result {
                Ok(text) => (ChatKind::Note, text),
                Err(e) => (ChatKind::Error, format!("save: {e}")),
            };
            state.chat.push(ChatEntry::new(kind, text));
            state.chat_scroll = super::state::TailScroll(0);
            Vec::new()
        }
        Msg::Servers { rows, catalog } => {
            state.servers = rows;
            state.server_sel = state.server_sel.min(state.servers.len().saturating_sub(1));
            state.catalog = catalog;
            state.catalog_sel = state
                .catalog_sel
                .min(state.visible_catalog().len().saturating_sub(1));
            Vec::new()
        }
        Msg::Completions {
            argument,
            value,
            values,
        } => {
            if let Some(Overlay::Form(form)) = &mut state.overlay
                && let Some(field) = form.fields.iter_mut().find(|f| f.name == argument)
                && field.value == value
            {
                field.suggestions = values;
            }
            Vec::new()
        }
        Msg::Progress {
            server,
            progress,
            total,
            message,
        } => {
            state.notice(
                NoticeLevel::Info,
                super::events::progress_text(&server, progress, total, message.as_deref()),
            );
            Vec::new()
        }
        Msg::MemoryFiles(files) => {
            state.library.memory_files = files;
            Vec::new()
        }
        Msg::MemoryFile { path, text } => {
            state.library.memory_open = Some((path, text));
            Vec::new()
        }
        Msg::ThemeApplied { name, error } => {
            match error {
                None => {
                    state.notice(NoticeLevel::Info, format!("theme: {name}"));
                    state.theme_name = name;
                }
                Some(error) => state.notice(NoticeLevel::Error, error),
            }
            Vec::new()
        }
    }
}

fn on_key(state: &mut State, key: Key) -> Vec<Cmd> {
    let layer = state.layer();
    let action = state.keymap.lookup(layer, key);
    if action != Some(Action::Interrupt) {
        state.interrupt_armed = false;
    }
    // A notice is read by the next key press.
    state.status.notice = None;
    match layer {
        Layer::Composer => typing::composer_key(state, key, action),
        Layer::Filter => typing::filter_key(state, key, action),
        Layer::Palette => typing::palette_key(state, key, action),
        Layer::Help => overlays::help_key(state, action),
        Layer::Detail => overlays::detail_key(state, action),
        Layer::Browse => super::browse::browse_key(state, action),
        Layer::Form => typing::form_key(state, key, action),
        Layer::Step => match action {
            Some(Action::StepNext) => step(state, Op::StepNext),
            Some(Action::StepContinue) => step(state, Op::StepContinue),
            Some(other) => normal_action(state, other),
            None => Vec::new(),
        },
        Layer::Approval => approvals::approval_key(state, key, action),
        Layer::Normal | Layer::Global => match action {
            Some(action) => normal_action(state, action),
            None => Vec::new(),
        },
    }
}

/// Actions that work the same in every layer.
pub fn global_action(state: &mut State, action: Action) -> Vec<Cmd> {
    match action {
        Action::Interrupt => {
            if state.layer() == Layer::Composer && !state.interrupt_armed {
                state.interrupt_armed = true;
                let text = if state.composer.is_blank() {
                    "press Ctrl+C again to quit"
                } else {
                    state.composer.take();
                    "input cleared; press Ctrl+C again to quit"
                };
                state.notice(NoticeLevel::Warn, text);
                Vec::new()
            } else {
                quit(state)
            }
        }
        Action::Quit => quit(state),
        Action::FocusNext => {
            cycle_focus(state, 1);
            Vec::new()
        }
        Action::FocusPrev => {
            cycle_focus(state, -1);
            Vec::new()
        }
        Action::Palette => {
            state.overlay = match state.overlay {
                Some(Overlay::Palette(_)) => None,
                _ => Some(Overlay::Palette(super::palette::PaletteState::default())),
            };
            Vec::new()
        }
        Action::Help => {
            state.overlay = match state.overlay {
                Some(Overlay::Help { .. }) => None,
                _ => Some(Overlay::Help { scroll: 0 }),
            };
            Vec::new()
        }
        Action::ToggleLogs => {
            toggle_logs(state);
            Vec::new()
        }
        Action::ToggleStepMode => vec![Cmd::Op(Op::ToggleStepMode)],
        Action::CancelTurn => cancel_turn(state),
        Action::ShowSkills => super::browse::open(state, super::browse::BrowseKind::Skills),
        Action::ShowMemory => super::browse::open(state, super::browse::BrowseKind::Memory),
        _ => Vec::new(),
    }
}

/// Interrupt the running turn: its stream stops, its tools are cancelled and its
/// pending approvals abort.
pub fn cancel_turn(state: &mut State) -> Vec<Cmd> {
    let Some(run_id) = state.turn.clone() else {
        return if state.manual_running > 0 {
            vec![Cmd::CancelManual]
        } else {
            Vec::new()
        };
    };
    state.step_pause = None;
    state.approvals.retain(|p| p.request.run_id != run_id);
    vec![
        Cmd::Op(Op::Interrupt {
            run_id: run_id.clone(),
        }),
        Cmd::AbortRun(run_id),
    ]
}

fn step(state: &mut State, op: Op) -> Vec<Cmd> {
    state.step_pause = None;
    vec![Cmd::Op(op)]
}

pub fn quit(state: &mut State) -> Vec<Cmd> {
    state.quit = true;
    vec![Cmd::Quit]
}

pub fn toggle_logs(state: &mut State) {
    state.show_logs = !state.show_logs;
    if !state.show_logs && state.focus == Pane::Logs {
        state.focus = Pane::Chat;
    }
}

pub fn cycle_focus(state: &mut State, delta: isize) {
    state.filter.editing = false;
    state.overlay = None;
    let order = state.focus_order();
    let n = order.len().cast_signed();
    let current = order
        .iter()
        .position(|p| *p == state.focus)
        .unwrap_or(0)
        .cast_signed();
    state.focus = order[(current + delta).rem_euclid(n).cast_unsigned()];
}

fn normal_action(state: &mut State, action: Action) -> Vec<Cmd> {
    match action {
        Action::FocusComposer => {
            state.focus = Pane::Composer;
            Vec::new()
        }
        Action::LogLevel if state.focus == Pane::Logs => {
            use super::state::LogLevel as L;
            let (level, wire) = match state.log_level {
                L::Trace | L::Debug => (L::Info, "info"),
                L::Info => (L::Warn, "warning"),
                L::Warn => (L::Error, "error"),
                L::Error => (L::Trace, "debug"),
            };
            state.log_level = level;
            state.logs_scroll = super::state::TailScroll(0);
            // Servers that offer logging send only what is shown (logging/setLevel).
            vec![Cmd::SetServerLogLevel(wire.into())]
        }
        Action::ExpandCards => {
            state.cards_expanded = !state.cards_expanded;
            super::panes::clamp_scrolls(state);
            Vec::new()
        }
        Action::ToggleServer if state.focus == Pane::Servers => state
            .servers
            .get(state.server_sel)
            .filter(|s| s.status != super::state::ServerStatus::Builtin)
            .map(|s| {
                if s.status == super::state::ServerStatus::Disabled {
                    vec![Cmd::Reconnect(s.name.clone())]
                } else {
                    vec![Cmd::Disable(s.name.clone())]
                }
            })
            .unwrap_or_default(),
        Action::Reconnect if state.focus == Pane::Servers => state
            .servers
            .get(state.server_sel)
            .filter(|s| s.status != super::state::ServerStatus::Builtin)
            .map(|s| vec![Cmd::Reconnect(s.name.clone())])
            .unwrap_or_default(),
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom
        | Action::NextTab
        | Action::PrevTab
        | Action::Filter
        | Action::Activate => {
            panes::pane_action(state, state.focus, action);
            Vec::new()
        }
        other => global_action(state, other),
    }
}

fn on_mouse(state: &mut State, mouse: Mouse) -> Vec<Cmd> {
    if state.overlay.is_some() {
        return Vec::new();
    }
    let Some(pane) = Areas::of(state).pane_at(mouse.column, mouse.row) else {
        return Vec::new();
    };
    match mouse.kind {
        MouseKind::Click => {
            state.filter.editing = false;
            state.focus = pane;
        }
        MouseKind::ScrollUp | MouseKind::ScrollDown => {
            let action = if mouse.kind == MouseKind::ScrollUp {
                Action::Up
            } else {
                Action::Down
            };
            for _ in 0..3 {
                panes::pane_action(state, pane, action);
            }
        }
    }
    Vec::new()
}
