//! `switchboard config …`

use clap::Subcommand;

use super::Cli;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate a config file and say where it was found.
    Check {
        /// The file to check; default: the search order.
        path: Option<std::path::PathBuf>,
    },
    /// Print the config search order.
    Path,
}

pub fn run(_cli: &Cli, _cmd: &ConfigCommand) -> color_eyre::Result<()> {
    color_eyre::eyre::bail!("not yet implemented")
}
