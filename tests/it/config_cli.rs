//! `switchboard config check` and `switchboard config path` against the real binary.
//!
//! Each test gets its own HOME, XDG_CONFIG_HOME and working directory, set on the
//! child process only.

// Test helpers (outside #[test] fns) unwrap too: a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::PathBuf;

use crate::support::write;
use assert_cmd::Command;
use tempfile::TempDir;

struct Sandbox {
    root: TempDir,
}

impl Sandbox {
    fn new() -> Self {
        let sb = Self {
            root: TempDir::new().unwrap(),
        };
        fs::create_dir_all(sb.cwd()).unwrap();
        sb
    }

    fn cwd(&self) -> PathBuf {
        self.root.path().join("project")
    }

    fn config_home(&self) -> PathBuf {
        self.root.path().join("xdg-config")
    }

    fn project_file(&self) -> PathBuf {
        self.cwd().join("switchboard.toml")
    }

    fn user_file(&self) -> PathBuf {
        self.config_home().join("switchboard/config.toml")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::cargo_bin("switchboard").unwrap();
        cmd.args(args)
            .current_dir(self.cwd())
            .env("HOME", self.root.path())
            .env("XDG_CONFIG_HOME", self.config_home())
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_DATA_HOME")
            .env("NO_COLOR", "1");
        cmd
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.cmd(args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }
}

const GOOD: &str = "[servers.a]\ncommand = \"a\"\n[servers.b]\nurl = \"http://b\"\n\
    [servers.c]\ncommand = \"c\"\n[providers.p]\nkind = \"openai\"\n[policy]\nmode = \"ask\"\n";

#[test]
fn check_ok_from_project_file() {
    let sb = Sandbox::new();
    write(&sb.project_file(), GOOD);
    let (code, stdout, stderr) = sb.run(&["config", "check"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(
        stdout,
        format!(
            "ok: {} (found via ./switchboard.toml)\n3 servers, 1 provider, policy mode ask\n\
             note: ./switchboard.toml is not trusted: until `switchboard trust`, only its cosmetic keys apply\n",
            sb.project_file().display()
        )
    );
}

#[test]
fn check_ok_from_user_file() {
    let sb = Sandbox::new();
    write(&sb.user_file(), "");
    let (code, stdout, _) = sb.run(&["config", "check"]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        format!(
            "ok: {} (found via $XDG_CONFIG_HOME/switchboard/config.toml)\n\
             0 servers, 0 providers, policy mode ask (default)\n",
            sb.user_file().display()
        )
    );
}

#[test]
fn check_global_config_flag_is_explicit() {
    let sb = Sandbox::new();
    write(&sb.project_file(), "this is not toml");
    let other = sb.cwd().join("other.toml");
    write(&other, GOOD);
    let (code, stdout, _) = sb.run(&["--config", "other.toml", "config", "check"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with(&format!("ok: {} (found via --config)\n", other.display())),
        "{stdout}"
    );
}

#[test]
fn check_path_argument() {
    let sb = Sandbox::new();
    let other = sb.cwd().join("other.toml");
    write(&other, GOOD);
    let (code, stdout, _) = sb.run(&["config", "check", "other.toml"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with(&format!(
            "ok: {} (given on the command line)\n",
            other.display()
        )),
        "{stdout}"
    );
}

#[test]
fn check_without_any_file_uses_defaults() {
    let sb = Sandbox::new();
    let (code, stdout, stderr) = sb.run(&["config", "check"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(
        stdout,
        format!(
            "ok: no config file found; using the offline defaults\n\
             config search order:\n\
             \x20 1. {} (./switchboard.toml) (missing)\n\
             \x20 2. {} ($XDG_CONFIG_HOME/switchboard/config.toml) (missing)\n\
             using: none (offline defaults)\n",
            sb.project_file().display(),
            sb.user_file().display()
        )
    );
}

#[test]
fn check_error_exits_1_with_located_message() {
    let sb = Sandbox::new();
    write(
        &sb.project_file(),
        "[servers.weather]\ncommand = \"x\"\ncomand = \"y\"\n",
    );
    let (code, stdout, stderr) = sb.run(&["config", "check"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert_eq!(
        stderr,
        format!(
            "{}:3:1: unknown key `comand` in [servers.weather]\n  hint: did you mean `command`?\n",
            sb.project_file().display()
        )
    );
}

#[test]
fn check_missing_explicit_file_exits_1() {
    let sb = Sandbox::new();
    let (code, _, stderr) = sb.run(&["config", "check", "nope.toml"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!(
            "{}: cannot read config: No such file or directory (os error 2)\n",
            sb.cwd().join("nope.toml").display()
        )
    );
}

#[test]
fn path_lists_search_order_and_the_file_used() {
    let sb = Sandbox::new();
    write(&sb.user_file(), "");
    let (code, stdout, _) = sb.run(&["--config", "x.toml", "config", "path"]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        format!(
            "config search order:\n\
             \x20 1. {} (--config) (missing)\n\
             \x20 2. {} (./switchboard.toml) (missing)\n\
             \x20 3. {} ($XDG_CONFIG_HOME/switchboard/config.toml) (found)\n\
             using: none: the --config file {} does not exist\n",
            sb.cwd().join("x.toml").display(),
            sb.project_file().display(),
            sb.user_file().display(),
            sb.cwd().join("x.toml").display(),
        )
    );

    let (code, stdout, _) = sb.run(&["config", "path"]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        format!(
            "config layers, lowest first:\n\
             \x20 1. {} ($XDG_CONFIG_HOME/switchboard/config.toml) (found)\n\
             \x20 2. {} (./switchboard.toml) (missing)\n\
             using: {}\n",
            sb.user_file().display(),
            sb.project_file().display(),
            sb.user_file().display()
        )
    );
    // A project file: its trust state, what it would do, and that it is not used.
    write(&sb.project_file(), "[servers.x]\ncommand = \"x\"\n");
    let (_, stdout, _) = sb.run(&["config", "path"]);
    assert!(
        stdout.contains(&format!(
            "  2. {} (./switchboard.toml) (found, not trusted)\n\
             \x20    would apply once trusted:\n\
             \x20      runs     start server x: x (sandboxed)\n",
            sb.project_file().display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(
            "not used: ./switchboard.toml (not trusted): review it with `switchboard trust`\n"
        ),
        "{stdout}"
    );
}
