//! `switchboard` with no subcommand: start the TUI.

use super::Cli;

pub fn run(_cli: &Cli) -> color_eyre::Result<()> {
    Ok(())
}
