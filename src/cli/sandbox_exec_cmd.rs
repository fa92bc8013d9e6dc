//! `switchboard __sandbox-exec --policy JSON -- PROGRAM ARGS…` (hidden): the launcher
//! of a sandboxed stdio server. It restricts itself with the policy and becomes the
//! server ([`crate::sandbox::exec`]); it never runs the program unsandboxed. Errors go
//! to stderr, which switchboard reads as the server's, with exit status 125 (no
//! sandbox) or 127 (the program cannot be run).

use std::ffi::OsString;

use crate::sandbox::{EXIT_NOT_ENFORCED, SandboxPolicy};

#[derive(Debug, clap::Args)]
pub struct SandboxExecArgs {
    /// The policy as JSON (read and write paths, network, the environment kept).
    #[arg(long, value_name = "JSON")]
    pub policy: String,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

pub fn run(args: &SandboxExecArgs) -> ! {
    let policy = match SandboxPolicy::from_json(&args.policy) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("switchboard sandbox: the policy is not valid: {e}");
            std::process::exit(EXIT_NOT_ENFORCED);
        }
    };
    let Some((program, rest)) = args.command.split_first() else {
        eprintln!("switchboard sandbox: no command");
        std::process::exit(EXIT_NOT_ENFORCED);
    };
    let error = crate::sandbox::exec(&policy, program, rest, &mut |note| eprintln!("{note}"));
    eprintln!("switchboard sandbox: {error}");
    std::process::exit(error.exit_code());
}
