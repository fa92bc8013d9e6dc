//! `switchboard completions SHELL`

use clap::CommandFactory;

use super::Cli;

pub fn run(shell: clap_complete::Shell) {
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "switchboard", &mut std::io::stdout());
}
