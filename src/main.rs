//! The `switchboard` binary: parse the command line and dispatch.

fn main() -> color_eyre::Result<()> {
    switchboard::cli::main()
}
