//! Helpers shared by the test modules, compiled once.

pub mod a2a_server;
pub mod builtin;
pub mod gate;
pub mod llm;
pub mod mcp;
pub mod oauth;
pub mod pty;
pub mod serve;
pub mod tui;
