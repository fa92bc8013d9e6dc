//! `switchboard trust [DIR]`: what a folder's config would do, and the person's
//! decision about it; `--list` and `--revoke`.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::PathBuf;

use super::Cli;
use super::mcp_session::{exit, print, safe};
use crate::paths::Dirs;
use crate::trust::{Answer, Loaded, TrustStore};

#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// The folder (default: the working directory).
    pub dir: Option<PathBuf>,
    /// Trust without asking (scripts).
    #[arg(long, conflicts_with_all = ["list", "revoke"])]
    pub yes: bool,
    /// List every decision recorded, in every folder.
    #[arg(long, conflicts_with = "revoke")]
    pub list: bool,
    /// Forget the decisions about the folder's files: the next start asks again.
    #[arg(long)]
    pub revoke: bool,
}

/// Exit statuses: 0 trusted (or listed, revoked), 1 not trusted or a usage error.
pub fn run(cli: &Cli, args: &TrustArgs) {
    let code = run_code(cli, args);
    if code != exit::OK {
        std::process::exit(code);
    }
}

fn run_code(cli: &Cli, args: &TrustArgs) -> i32 {
    let mut dirs = Dirs::from_env();
    if let Some(dir) = &args.dir {
        match std::fs::canonicalize(dirs.cwd.join(dir)) {
            Ok(dir) => dirs.cwd = dir,
            Err(e) => {
                eprintln!("{}: {e}", safe(&dir.display().to_string()));
                return exit::USAGE;
            }
        }
    }
    if args.list {
        print(&list(&TrustStore::open(crate::trust::store_path(&dirs))));
        return exit::OK;
    }
    if args.revoke {
        let mut store = TrustStore::open(crate::trust::store_path(&dirs));
        return match store.revoke(&dirs.cwd) {
            Ok(n) => {
                print(&format!(
                    "forgot {n} decision{} about {}\n",
                    if n == 1 { "" } else { "s" },
                    safe(&dirs.cwd.display().to_string())
                ));
                exit::OK
            }
            Err(e) => {
                eprintln!("{}: {e}", store.path().display());
                exit::USAGE
            }
        };
    }
    // `--config` names a file the person chose; only the folder's own files are asked
    // about here.
    let mut loaded = match Loaded::read(&dirs, None, &cli.mcp_config) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("{e}");
            return exit::USAGE;
        }
    };
    if loaded.files.is_empty() {
        print(&format!(
            "{}: no project config ({}) to trust\n",
            safe(&dirs.cwd.display().to_string()),
            crate::paths::PROJECT_CONFIG_FILE
        ));
        return exit::OK;
    }
    print(&review(&loaded));
    if loaded.to_ask().is_empty() {
        return exit::OK;
    }
    let yes = args.yes || ask_yes_no();
    if !yes {
        print("not trusted: nothing of it applies until you trust it\n");
        return exit::USAGE;
    }
    match loaded.answer(Answer::Trust) {
        Ok(()) => {
            print("trusted until a file changes\n");
            exit::OK
        }
        Err(e) => {
            eprintln!("the decision was not saved: {e}");
            exit::USAGE
        }
    }
}

/// Each project file, its state, and what it would do.
fn review(loaded: &Loaded) -> String {
    let mut out = format!("{}\n", safe(&loaded.folder.display().to_string()));
    for file in &loaded.files {
        let _ = writeln!(out, "  {} ({})", safe(&file.shown), file.state.label());
        if file.items.is_empty() {
            let _ = writeln!(out, "    nothing but cosmetic keys");
        }
        for item in &file.items {
            let _ = writeln!(out, "    {:<8} {}", item.effect.label(), item.text);
        }
    }
    out
}

/// `Trust this folder's config? [y/N]` on a terminal; no terminal is a no.
fn ask_yes_no() -> bool {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        eprintln!("no terminal to ask on: run `switchboard trust --yes` to trust");
        return false;
    }
    let answer = super::mcp_session::ask("Trust this folder's config? [y/N] ");
    matches!(answer.as_deref(), Some("y" | "Y" | "yes" | "Yes"))
}

/// `--list`: every recorded decision, and whether its file still matches.
fn list(store: &TrustStore) -> String {
    if let Some(problem) = &store.problem {
        eprintln!("warning: {}", safe(problem));
    }
    if store.records().is_empty() {
        return "no decisions recorded\n".into();
    }
    let mut out = String::new();
    for record in store.records() {
        let now = match std::fs::read(&record.file) {
            Ok(bytes) if crate::trust::store::fingerprint(&bytes) == record.sha256 => "unchanged",
            Ok(_) => "changed since: asks again",
            Err(_) => "file gone",
        };
        let decision = match record.decision {
            crate::trust::Decision::Trusted => "trusted",
            crate::trust::Decision::Ignored => "ignored",
        };
        let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(record.at);
        let _ = writeln!(
            out,
            "{decision:<8} {}  sha256:{}  {}  ({now})",
            safe(&record.file.display().to_string()),
            record.sha256.get(..12).unwrap_or_default(),
            httpdate::fmt_http_date(when)
        );
    }
    out
}
