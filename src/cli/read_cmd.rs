//! `switchboard read SERVER URI`: read one resource.

use clap::Args;

use super::Cli;
use super::mcp_session::{
    exit, exit_code, json, open, print, ready_server, render_blocks, run_to_exit, safe,
};

#[derive(Debug, Args)]
pub struct ReadArgs {
    pub server: String,
    pub uri: String,
    /// Print the contents as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Cli, args: &ReadArgs) -> color_eyre::Result<()> {
    run_to_exit(async {
        let workbench = match open(cli, None).await {
            Ok(w) => w,
            Err(code) => return code,
        };
        let code = match ready_server(&workbench, &args.server).await {
            Err(code) => code,
            Ok(()) => match workbench.hub.read_resource(&args.server, &args.uri).await {
                Ok(read) => {
                    print(&if args.json {
                        json(&read)
                    } else {
                        render_blocks(&read.contents)
                    });
                    exit::OK
                }
                Err(e) => {
                    eprintln!("{}", safe(&e.to_string()));
                    exit_code(&e)
                }
            },
        };
        workbench.shutdown().await;
        code
    })
}
