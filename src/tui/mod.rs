//! The terminal UI. The only module that may use ratatui and crossterm.
//!
//! Shape: `State` is plain data, one struct per pane and a stack of overlays, all
//! under `state/` (which imports no handler); `update(&mut State, Msg) -> Vec<Cmd>`
//! is pure and hands keys to the handler of the top key layer;
//! `render(&State, &Theme, &mut Frame)` draws; `inbox` forwards every background
//! source (session, hub, logs, asks, serve, wire) into one channel of messages;
//! `event_loop` reads the terminal, the inbox and a timer; `executor` does the
//! commands `update` returns, one file per command group.

pub mod agent_cards;
pub mod approval;
pub mod apps;
pub mod ask;
pub mod boot;
pub mod cards;
pub mod catalog;
pub mod chat_copy;
pub mod chat_search;
pub mod completion;
pub mod composer;
pub mod detail;
pub mod editor;
pub mod event_loop;
pub mod events;
pub mod executor;
pub mod field;
pub mod form;
pub mod help;
pub mod hub_view;
pub mod inbox;
pub mod input;
pub mod input_prompt;
pub mod layout;
pub mod library;
pub mod login;
pub mod logs;
pub mod markdown;
pub mod modes;
pub mod msg;
pub mod palette;
pub mod prefs;
pub mod registry;
pub mod result_view;
pub mod scroll;
pub mod serve_view;
pub mod servers;
pub mod sessions;
pub mod slash;
pub mod slash_agents;
pub mod state;
pub mod style;
pub mod subs;
pub mod tasks;
pub mod term;
pub mod trust_prompt;
pub mod ui;
pub mod update;
pub mod uri_template;
pub mod wire;
pub mod words;

pub use state::{frame_cache, nested, transcript};

pub use event_loop::{TuiOptions, run_async};
pub use msg::{
    AppCmd, AppOpen, AskCmd, CallCmd, Cmd, FileCmd, GateCmd, LoginCmd, Msg, RegistryCmd, ServerCmd,
    SessionCmd, UiCmd,
};
pub use state::State;
pub use update::update;
