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
    /// Also append this prompt get, with what came back as its expectation, to a
    /// collection of cases (see `switchboard test`).
    #[arg(long, value_name = "FILE")]
    pub save_case: Option<std::path::PathBuf>,
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
        let saved_args = prompt_args.clone();
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
                    match &args.save_case {
                        Some(file) => {
                            let target = crate::cases::Target::Prompt {
                                name: args.name.clone(),
                                args: saved_args.clone(),
                            };
                            let observed =
                                crate::cases::Observed::from_text(true, &prompt.to_text());
                            super::test_cmd::save_case(file, &args.server, &target, &observed)
                        }
                        None => exit::OK,
                    }
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
