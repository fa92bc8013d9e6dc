//! switchboard: a terminal workbench for AI agents, MCP servers and LLM providers.
//!
//! Everything outside `tui` is UI-free core: it never imports ratatui or crossterm.

pub mod a2a;
pub mod agent;
pub mod agents;
pub mod apps;
pub mod cases;
pub mod catalog_filter;
pub mod cli;
pub mod config;
pub mod config_write;
pub mod gate;
pub mod hooks;
pub mod keymap;
pub mod llm;
pub mod logging;
pub mod mcp;
pub mod paths;
pub mod policy;
pub mod registry;
pub mod replay;
pub mod sandbox;
pub mod sanitize;
pub mod serve;
pub mod settings;
pub mod skills;
pub mod sse;
pub mod theme;
pub mod tls;
pub mod tools;
pub mod trust;
pub mod tui;
pub mod workbench;
