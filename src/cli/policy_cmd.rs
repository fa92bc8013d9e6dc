//! `switchboard policy …`

use clap::Subcommand;

use super::Cli;

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Print the decision for a tool call and the rule or mode that made it.
    Explain {
        /// Qualified tool name, e.g. `fs` or `everything__echo`.
        tool: String,
        /// Arguments as a JSON object.
        #[arg(default_value = "{}")]
        args: String,
    },
}

pub fn run(_cli: &Cli, _cmd: &PolicyCommand) -> color_eyre::Result<()> {
    color_eyre::eyre::bail!("not yet implemented")
}
