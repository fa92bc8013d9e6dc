//! The terminal UI. The only module that may use ratatui and crossterm.
//!
//! Shape: `State` is plain data; `update(&mut State, Msg) -> Vec<Cmd>` is pure;
//! `render(&State, &Theme, &mut Frame)` draws; `app` is the runtime that executes
//! commands and turns terminal events into messages.

pub mod app;
pub mod approvals;
pub mod boot;
pub mod browse;
pub mod cards;
pub mod catalog;
pub mod composer;
pub mod editor;
pub mod events;
pub mod form;
pub mod hub_view;
pub mod input;
pub mod input_prompt;
pub mod layout;
pub mod markdown;
pub mod msg;
pub mod overlays;
pub mod palette;
pub mod panes;
pub mod result_view;
pub mod runtime;
mod runtime_mcp;
pub mod state;
pub mod style;
pub mod term;
pub mod transcript;
pub mod typing;
pub mod ui;
pub mod update;
pub mod uri_template;

pub use app::{TuiOptions, run_async};
pub use msg::{Cmd, Msg};
pub use state::State;
pub use update::update;
