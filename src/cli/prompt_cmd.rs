//! `switchboard prompt SERVER NAME [-a key=value …]`: get one prompt.

use clap::Args;

use super::Cli;
use super::mcp_session::{
    exit, exit_code, json, key_values, print, run_to_exit, safe, with_ready_server,
};

#[derive(Debug, Args)]
pub struct PromptArgs {
    pub server: String,
    pub name: String,
    /// One argument (repeatable).
    #[arg(short = 'a', long = "arg", value_name = "KEY=VALUE")]
    pub arg: Vec<String>,
    /// Print the prompt as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Cli, args: &PromptArgs) -> color_eyre::Result<()> {
    run_to_exit(async {
        let prompt_args = match key_values(&args.arg) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("{e}");
                return exit::USAGE;
            }
        };
        with_ready_server(cli, &args.server, async |workbench| {
            match workbench
                .hub
                .get_prompt(&args.server, &args.name, prompt_args)
                .await
            {
                Ok(prompt) => {
                    if args.json {
                        print(&json(&prompt));
                    } else {
                        print(&prompt.to_text());
                    }
                    exit::OK
                }
                Err(e) => {
                    eprintln!("{}", safe(&e.to_string()));
                    exit_code(&e)
                }
            }
        })
        .await
    })
}
