//! Permission modes switched live: Shift+Tab cycles read-only → ask → auto-edit →
//! full-auto; `/mode NAME` and the palette choose any of them, plan too. The status
//! bar shows the mode, each switch leaves a note in the transcript, and the gate
//! hears it as `GateCmd::SetMode` (calls decided from then on; plan's read-only scope
//! and note start with the next turn).

use crate::config::suggest;
use crate::policy::Mode;

use super::msg::{Cmd, GateCmd};
use super::state::{ChatEntry, ChatKind, State};

/// The mode in force, as the status bar shows it (`ask` if it names none).
pub fn current(state: &State) -> Mode {
    state.status.policy_mode.parse().unwrap_or_default()
}

/// Shift+Tab: the next mode of the cycle.
pub fn cycle(state: &mut State) -> Vec<Cmd> {
    let next = current(state).next();
    set(state, next)
}

/// Switches to `mode`: the status bar, a note, and the gate.
pub fn set(state: &mut State, mode: Mode) -> Vec<Cmd> {
    state.status.policy_mode = mode.to_string();
    state.chat.show(ChatEntry::new(ChatKind::Note, note(mode)));
    vec![GateCmd::SetMode(mode).into()]
}

fn note(mode: Mode) -> String {
    format!("Permission mode {mode}: {}.", mode.describe())
}

/// `/mode` says which mode is in force; `/mode NAME` switches.
pub fn command(state: &mut State, rest: &str) -> Result<Vec<Cmd>, String> {
    let names: Vec<&str> = Mode::ALL.iter().map(|m| m.as_str()).collect();
    if rest.is_empty() {
        let text = format!(
            "{} Switch with /mode NAME ({}); Shift+Tab cycles the first four.",
            note(current(state)),
            names.join(", ")
        );
        state.chat.push(ChatEntry::new(ChatKind::Note, text));
        return Ok(Vec::new());
    }
    if let Ok(mode) = rest.parse::<Mode>() {
        return Ok(set(state, mode));
    }
    let hint = suggest::hint(rest, &names, "modes").unwrap_or_default();
    Err(format!("/mode: unknown mode {rest}; {hint}"))
}
