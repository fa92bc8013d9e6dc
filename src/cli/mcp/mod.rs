//! `switchboard mcp …`: log in and out of servers that ask (`login`), list and show
//! the configured servers (`list`), and add, remove, enable or disable them in a
//! config file (`manage`), and find and install servers from the MCP Registry
//! (`registry_cmd`).

mod list;
mod login;
mod manage;
mod registry_cmd;

use clap::Subcommand;

use super::Cli;
use super::mcp_session::{exit, load_config_naming, run_to_exit};
use crate::paths::Dirs;

pub use login::{headless_login, headless_login_without_paste};
pub use manage::target;

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Log in to an HTTP server that asks for OAuth (opens the browser; over SSH,
    /// paste the final redirect URL or the code).
    Login {
        /// The `[servers.NAME]` key.
        name: String,
    },
    /// Forget a server's stored OAuth tokens.
    Logout { name: String },
    /// Per server: not needed, logged in (issuer, scopes, expiry) or needs login.
    AuthStatus,
    /// Search the MCP Registry by name, title and description.
    Search(registry_cmd::SearchArgs),
    /// Add a server from the MCP Registry: asks for what it needs, shows what it
    /// writes, and writes `[servers.NAME]` like `mcp add`.
    Install(registry_cmd::InstallArgs),
    #[command(flatten)]
    Manage(manage::ManageCommand),
}

pub fn run(cli: &Cli, command: &McpCommand) -> color_eyre::Result<()> {
    if let McpCommand::Manage(manage) = command {
        manage::run(cli, manage);
        return Ok(());
    }
    if let McpCommand::Search(args) = command {
        return run_to_exit(registry_cmd::search(cli, args));
    }
    if let McpCommand::Install(args) = command {
        return run_to_exit(registry_cmd::install(cli, args));
    }
    run_to_exit(async {
        let named = match command {
            McpCommand::Login { name } | McpCommand::Logout { name } => Some(name.as_str()),
            _ => None,
        };
        let (config, _) = match load_config_naming(cli, &Dirs::from_env(), named, None) {
            Ok(c) => c,
            Err(code) => return code,
        };
        match command {
            McpCommand::Login { name } => login::login(&config, name).await,
            McpCommand::Logout { name } => login::logout(&config, name),
            McpCommand::AuthStatus => login::auth_status(&config).await,
            McpCommand::Manage(_) | McpCommand::Search(_) | McpCommand::Install(_) => exit::OK,
        }
    })
}
