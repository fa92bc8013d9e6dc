//! `update(&mut State, Msg) -> Vec<Cmd>`: the whole UI behaviour, pure and
//! synchronous. It never awaits and never does IO; the executor does the `Cmd`s, in
//! the order returned.
//!
//! Keys go to the handler of the layer that takes them (one file per pane or
//! overlay); what a handler leaves unhandled falls back to the global actions here.
//! Session events go to `events`.

use crate::agent::Op;
use crate::keymap::{Action, Key, Layer};

use super::layout::Areas;
use super::msg::{CallCmd, Cmd, Handled, Mouse, MouseKind, Msg, ServerCmd, SessionCmd, UiCmd};
use super::state::{ChatEntry, ChatKind, NoticeLevel, Overlay, Pane, State, TurnView};
use super::{approval, catalog, composer, detail, form, help, library, logs, palette, servers};

pub fn update(state: &mut State, msg: Msg) -> Vec<Cmd> {
    match msg {
        Msg::Key(key) => on_key(state, key),
        Msg::Mouse(mouse) => on_mouse(state, mouse),
        Msg::Agent(event) => super::events::on_agent_event(state, *event),
        Msg::Asked { id, ask } => super::ask::arrived(state, id, *ask),
        Msg::Login(msg) => super::login::on_msg(state, msg),
        Msg::Registry(msg) => super::registry::on_msg(state, msg),
        Msg::Paste(text) if matches!(state.overlays.top(), Some(Overlay::Registry(_))) => {
            super::registry::paste(state, &text)
        }
        Msg::Wire(entries) => super::wire::arrived(state, entries),
        Msg::WireExported(result) => super::wire::exported(state, result),
        Msg::HubChanged => vec![ServerCmd::Refresh.into()],
        Msg::Servers {
            rows,
            catalog,
            snapshot,
        } => servers_arrived(state, rows, catalog, &snapshot),
        Msg::AppOpened { app, result } => super::apps::opened(state, &app, result),
        Msg::ThemeApplied { name, error } => match error {
            None => {
                state.notice(NoticeLevel::Info, format!("theme: {name}"));
                state.theme_name = name;
                vec![UiCmd::RememberUi.into()]
            }
            Some(error) => {
                state.notice(NoticeLevel::Error, error);
                Vec::new()
            }
        },
        other => {
            absorb(state, other);
            Vec::new()
        }
    }
}

/// The messages that only change the state: the screen's own (paste, size, logs,
/// lists arriving, an edit done) here, what servers and tasks report in
/// [`absorb_reports`].
fn absorb(state: &mut State, msg: Msg) {
    match msg {
        Msg::Paste(text) => composer::paste(state, &text),
        Msg::Resize(w, h) => {
            state.size = (w, h);
            super::scroll::clamp_scrolls(state);
        }
        Msg::Log(line) => state.logs.push(line),
        Msg::Grants(grants) => state.grants = grants,
        Msg::SessionList(rows) => super::sessions::listed(state, rows),
        Msg::Resumed(loaded) => super::boot::replay(state, &loaded),
        Msg::Tick(ms) => state.clock_ms = ms,
        Msg::Edited(result) if state.layer() == Layer::Ask => super::ask::edited(state, result),
        Msg::Edited(result) => {
            if let Some(Overlay::Form(form)) = state.overlays.top_mut() {
                form.edited(result);
            }
        }
        Msg::Contents(last) => state.last_contents = Some(*last),
        Msg::CaseSource(last) => state.last_case = Some(last),
        Msg::Failed(message) => state.chat.push(ChatEntry::new(ChatKind::Error, message)),
        Msg::Note(text) => state.chat.push(ChatEntry::new(ChatKind::Note, text)),
        Msg::Saved(result) => {
            let (kind, text) = match result {
                Ok(text) => (ChatKind::Note, text),
                Err(e) => (ChatKind::Error, format!("save: {e}")),
            };
            state.chat.show(ChatEntry::new(kind, text));
        }
        Msg::ServeClients(lines) => state.serve.clients = lines,
        Msg::HaystacksMade(made) => state.catalog.items.fill(made),
        Msg::Completions {
            argument,
            value,
            values,
        } => {
            if let Some(Overlay::Form(form)) = state.overlays.top_mut()
                && let Some(field) = form.fields.iter_mut().find(|f| f.name == argument)
                && field.value == value
            {
                field.suggestions = values;
            }
        }
        other => absorb_reports(state, other),
    }
}

/// New server rows and catalog. The filter's haystacks of the entries that are new
/// or changed are made on a worker thread (back as `Msg::HaystacksMade`), so the
/// next keystroke finds them made; a keystroke that comes first makes its own.
fn servers_arrived(
    state: &mut State,
    rows: Vec<crate::tui::state::ServerRow>,
    catalog: crate::tui::state::Catalog,
    snapshot: &crate::mcp::HubSnapshot,
) -> Vec<Cmd> {
    for line in state.servers.catalogs_seen(snapshot) {
        state.chat.push(ChatEntry::new(ChatKind::Note, line));
    }
    state.servers.rows = rows;
    state.servers.sel = state
        .servers
        .sel
        .min(state.servers.rows.len().saturating_sub(1));
    let mut unmade = state.catalog.items.refresh(catalog);
    state.catalog.sel = state
        .catalog
        .sel
        .min(state.catalog.visible().len().saturating_sub(1));
    // With a query typed, the filter above has made the tab's own.
    unmade.retain(|u| state.catalog.items.is_unmade(u));
    if unmade.is_empty() {
        return Vec::new();
    }
    vec![UiCmd::MakeHaystacks(unmade).into()]
}

/// What servers, tasks, memories and remote agents report.
fn absorb_reports(state: &mut State, msg: Msg) {
    match msg {
        Msg::Progress {
            server,
            call_id,
            progress,
            total,
            message,
        } => {
            let text = super::events::progress_text(&server, progress, total, message.as_deref());
            if let Some(card) = call_id.and_then(|id| super::events::card(state, &id)) {
                card.progress = Some(text.clone());
            }
            state.notice(NoticeLevel::Info, text);
        }
        Msg::MemoryFiles(files) => state.library.memory_files = files,
        Msg::MemoryFile { path, text } => state.library.memory_open = Some((path, text)),
        Msg::Subscribed {
            server,
            uri,
            on,
            result,
        } => super::subs::answered(state, server, uri, on, result),
        Msg::ResourceUpdated { server, uri } => super::subs::updated(state, server, uri),
        Msg::SubscriptionLost {
            server,
            uri,
            reason,
        } => super::subs::lost(state, server, uri, &reason),
        Msg::PagesRequired {
            server,
            request,
            pages,
        } => super::ask::pages_required(state, &server, &request, &pages),
        Msg::TaskSeen { tool, view } => super::tasks::seen(state, Some(&tool), &view),
        Msg::TaskAnswer { view, text } => super::tasks::answered(state, view.as_deref(), text),
        Msg::AgentCard { tool, card } => super::agent_cards::arrived(state, tool, card),
        Msg::AskGone(id) => super::ask::gone(state, id),
        Msg::Sampled { id, result } => super::ask::sampled(state, id, result),
        Msg::App(note) => super::apps::note(state, note),
        // Taken by `update` and `absorb` before they get here; listed so a new
        // message cannot be forgotten silently.
        Msg::Key(_)
        | Msg::Mouse(_)
        | Msg::Agent(_)
        | Msg::Asked { .. }
        | Msg::Login(_)
        | Msg::Registry(_)
        | Msg::Wire(_)
        | Msg::WireExported(_)
        | Msg::HubChanged
        | Msg::AppOpened { .. }
        | Msg::ThemeApplied { .. }
        | Msg::Paste(_)
        | Msg::Resize(..)
        | Msg::Log(_)
        | Msg::Grants(_)
        | Msg::SessionList(_)
        | Msg::Resumed(_)
        | Msg::Tick(_)
        | Msg::Edited(_)
        | Msg::Contents(_)
        | Msg::CaseSource(_)
        | Msg::Failed(_)
        | Msg::Note(_)
        | Msg::Saved(_)
        | Msg::ServeClients(_)
        | Msg::HaystacksMade(_)
        | Msg::Servers { .. }
        | Msg::Completions { .. } => {}
    }
}

fn on_key(state: &mut State, key: Key) -> Vec<Cmd> {
    let layer = key_layer(state, key);
    let action = state.keymap.lookup(layer, key);
    if action != Some(Action::Interrupt) {
        state.interrupt_armed = false;
    }
    // A notice is read by the next key press.
    state.status.notice = None;
    let handled = match layer {
        Layer::Composer => composer::key(state, key, action),
        Layer::Filter if matches!(state.overlays.top(), Some(Overlay::Wire)) => {
            super::wire::filter_key(state, key, action)
        }
        Layer::Filter if state.focus == Pane::Chat => super::chat_search::key(state, key, action),
        Layer::Filter => catalog::filter_key(&mut state.catalog, key, action),
        Layer::Palette => palette::key(state, key, action),
        Layer::Registry => super::registry::key(state, key, action),
        Layer::Help => help::key(state, action),
        Layer::Detail => detail::key(state, action),
        Layer::Browse if matches!(state.overlays.top(), Some(Overlay::Sessions(_))) => {
            super::sessions::key(state, action)
        }
        Layer::Browse => library::key(state, action),
        Layer::Form if matches!(state.overlays.top(), Some(Overlay::Login(_))) => {
            super::login::key(state, key, action)
        }
        Layer::Form => form::key(state, key, action),
        Layer::Approval => approval::key(state, key, action),
        Layer::Ask => super::ask::key(state, key, action),
        Layer::Tasks => super::tasks::key(state, action),
        Layer::Wire => super::wire::key(state, action),
        Layer::Step => match action {
            Some(Action::StepNext) => step(&mut state.turn, Op::StepNext).into(),
            Some(Action::StepContinue) => step(&mut state.turn, Op::StepContinue).into(),
            Some(other) => Handled::Unhandled(other),
            None => Handled::nothing(),
        },
        Layer::Normal | Layer::Global => match action {
            Some(action) => normal_action(state, action).into(),
            None => Handled::nothing(),
        },
    };
    match handled {
        Handled::Done(cmds) => cmds,
        Handled::Unhandled(action) if layer == Layer::Step => normal_action(state, action),
        Handled::Unhandled(action) => global_action(state, action),
    }
}

/// The layer a key goes to: the top one, except that a step pause does not take
/// what is typed into the composer. A key the pause has no use for is typed (it was
/// dropped before), and so are the pause's own keys while the composer holds text:
/// the message is sent or cleared first, then `n` / `c` step (the status bar says
/// so). The pause's other keys (Esc interrupts) keep working.
fn key_layer(state: &State, key: Key) -> Layer {
    let layer = state.layer();
    if layer == Layer::Step && state.focus == Pane::Composer {
        let typed = match state.keymap.lookup(Layer::Step, key) {
            None => true,
            Some(Action::StepNext | Action::StepContinue) => !state.composer.is_blank(),
            Some(_) => false,
        };
        if typed {
            return Layer::Composer;
        }
    }
    layer
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
            state
                .overlays
                .toggle(Overlay::Palette(super::palette::PaletteState::default()));
            Vec::new()
        }
        Action::Help => {
            state.overlays.toggle(Overlay::Help { scroll: 0 });
            Vec::new()
        }
        Action::ToggleLogs => {
            toggle_logs(state);
            Vec::new()
        }
        Action::ToggleStepMode => vec![SessionCmd::Op(Op::ToggleStepMode).into()],
        Action::CycleMode => super::modes::cycle(state),
        Action::CancelTurn => cancel_turn(state),
        Action::ShowSkills => library::open(state, library::BrowseKind::Skills),
        Action::ShowMemory => library::open(state, library::BrowseKind::Memory),
        Action::ShowTasks => {
            super::tasks::open(state);
            Vec::new()
        }
        Action::ShowWire => super::wire::open(state),
        _ => Vec::new(),
    }
}

/// Interrupt the running turn (its stream stops, its tool is cancelled, its pending
/// approval aborts); without one, cancel the calls the person made.
pub fn cancel_turn(state: &mut State) -> Vec<Cmd> {
    let Some(run_id) = state.turn.run.clone() else {
        let open = state.open_manual_calls();
        return if open.is_empty() {
            Vec::new()
        } else {
            vec![CallCmd::CancelCalls(open).into()]
        };
    };
    if state.turn.waiting_for_servers {
        state.turn.waiting_for_servers = false;
        return vec![SessionCmd::Op(Op::SkipWait).into()];
    }
    state.turn.step_pause = None;
    vec![SessionCmd::Op(Op::Interrupt { run_id }).into()]
}

fn step(turn: &mut TurnView, op: Op) -> Vec<Cmd> {
    turn.step_pause = None;
    vec![SessionCmd::Op(op).into()]
}

pub fn quit(state: &mut State) -> Vec<Cmd> {
    state.quit = true;
    vec![UiCmd::Quit.into()]
}

pub fn toggle_logs(state: &mut State) {
    state.show_logs = !state.show_logs;
    if !state.show_logs && state.focus == Pane::Logs {
        state.focus = Pane::Chat;
    }
}

pub fn cycle_focus(state: &mut State, delta: isize) {
    state.catalog.filter.editing = false;
    state.overlays.clear();
    let order = state.focus_order();
    let n = order.len().cast_signed();
    let current = order
        .iter()
        .position(|p| *p == state.focus)
        .unwrap_or(0)
        .cast_signed();
    state.focus = order[(current + delta).rem_euclid(n).cast_unsigned()];
}

/// An action in the Normal layer: the focused pane's, else a global one.
fn normal_action(state: &mut State, action: Action) -> Vec<Cmd> {
    match action {
        Action::FocusComposer => {
            state.focus = Pane::Composer;
            Vec::new()
        }
        Action::LogLevel if state.focus == Pane::Logs => logs::cycle_level(&mut state.logs),
        Action::ExpandCards => {
            state.chat.cards_expanded = !state.chat.cards_expanded;
            super::scroll::clamp_scrolls(state);
            Vec::new()
        }
        Action::CopyEntry if state.focus == Pane::Chat => super::chat_copy::copy(state),
        Action::OpenApp if state.focus == Pane::Chat => super::apps::open(state),
        Action::Filter if state.focus == Pane::Chat => {
            state.chat.search = super::state::ChatSearch {
                editing: true,
                ..Default::default()
            };
            Vec::new()
        }
        Action::SearchNext if state.focus == Pane::Chat => super::chat_search::step(state, true),
        Action::SearchPrev if state.focus == Pane::Chat => super::chat_search::step(state, false),
        Action::SaveCase => super::slash::save_case(state, None),
        Action::CallTool if state.focus == Pane::Catalog => super::detail::use_selected(state),
        Action::Login if state.focus == Pane::Servers => super::login::login_selected(state),
        Action::Subscribe if state.focus == Pane::Catalog => super::subs::toggle(state),
        Action::Reconnect if state.focus == Pane::Catalog => super::subs::reread(state),
        Action::ToggleServer | Action::Reconnect if state.focus == Pane::Servers => {
            servers::server_action(&state.servers, action)
        }
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
            pane_nav(state, state.focus, action);
            Vec::new()
        }
        other => global_action(state, other),
    }
}

/// Moving or scrolling inside one pane.
fn pane_nav(state: &mut State, pane: Pane, action: Action) {
    let page = super::scroll::page(state, pane);
    let opened = match pane {
        Pane::Servers => servers::nav(&mut state.servers, action, page),
        Pane::Catalog => catalog::nav(&mut state.catalog, action, page),
        Pane::Chat => {
            super::scroll::chat_nav(state, action);
            None
        }
        Pane::Logs => {
            let max = super::scroll::logs_max_scroll(state);
            logs::nav(&mut state.logs, action, page, max);
            None
        }
        Pane::Composer => None,
    };
    if let Some(overlay) = opened {
        state.overlays.push(overlay);
    }
}

fn on_mouse(state: &mut State, mouse: Mouse) -> Vec<Cmd> {
    if !state.overlays.is_empty() {
        return Vec::new();
    }
    let Some(pane) = Areas::of(state).pane_at(mouse.column, mouse.row) else {
        return Vec::new();
    };
    match mouse.kind {
        MouseKind::Click => {
            state.catalog.filter.editing = false;
            state.focus = pane;
        }
        MouseKind::ScrollUp | MouseKind::ScrollDown => {
            let action = if mouse.kind == MouseKind::ScrollUp {
                Action::Up
            } else {
                Action::Down
            };
            for _ in 0..3 {
                pane_nav(state, pane, action);
            }
        }
    }
    Vec::new()
}
