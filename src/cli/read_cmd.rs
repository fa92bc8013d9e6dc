//! `switchboard read SERVER URI`: read one resource.

use clap::Args;

use super::Cli;
use super::mcp_session::{
    exit, exit_code, json, print, render_blocks, run_to_exit, safe, with_ready_server,
};

#[derive(Debug, Args)]
pub struct ReadArgs {
    pub server: String,
    pub uri: String,
    /// Print the contents as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write the contents to FILE instead (blobs decoded, byte for byte).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Which item to write when the resource has several (1-based).
    #[arg(long, default_value_t = 1, requires = "output")]
    pub item: usize,
    /// Replace FILE if it exists.
    #[arg(long, requires = "output")]
    pub force: bool,
    /// Also append this read, with what came back as its expectation, to a collection
    /// of cases (see `switchboard test`).
    #[arg(long, value_name = "FILE")]
    pub save_case: Option<std::path::PathBuf>,
}

pub fn run(cli: &Cli, args: &ReadArgs) -> color_eyre::Result<()> {
    run_to_exit(with_ready_server(
        cli,
        &args.server,
        async |workbench| match workbench.hub.read_resource(&args.server, &args.uri).await {
            Ok(read) if args.save_case.is_some() && save_case(args, &read).is_err() => exit::USAGE,
            Ok(read) if args.output.is_some() => save(&read, args),
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
    ))
}

fn save(read: &crate::mcp::ResourceRead, args: &ReadArgs) -> i32 {
    let Some(path) = &args.output else {
        return exit::USAGE;
    };
    match crate::mcp::save::save_content(&read.contents, args.item, path, args.force) {
        Ok(saved) => {
            eprintln!("{saved}");
            exit::OK
        }
        Err(e @ crate::mcp::save::SaveError::Exists(_)) => {
            eprintln!("{e}; --force replaces it");
            exit::USAGE
        }
        Err(e) => {
            eprintln!("{}", safe(&e.to_string()));
            exit::USAGE
        }
    }
}

/// `--save-case FILE`: appends this read as a case expecting what it returned.
fn save_case(args: &ReadArgs, read: &crate::mcp::ResourceRead) -> Result<(), ()> {
    let Some(file) = &args.save_case else {
        return Ok(());
    };
    let target = crate::cases::Target::Read {
        uri: args.uri.clone(),
    };
    let observed = crate::cases::Observed::from_text(true, &render_blocks(&read.contents));
    match super::test_cmd::save_case(file, &args.server, &target, &observed) {
        exit::OK => Ok(()),
        _ => Err(()),
    }
}
