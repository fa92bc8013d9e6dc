//! The real `switchboard` binary in a sandbox of its own: HOME, the XDG homes and the
//! working directory in a temporary folder, so no test reads or writes the person's.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::PathBuf;

use assert_cmd::Command;
use tempfile::TempDir;

pub struct Sandbox {
    pub root: TempDir,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    pub fn new() -> Self {
        let sb = Self {
            root: TempDir::new().unwrap(),
        };
        fs::create_dir_all(sb.cwd()).unwrap();
        sb
    }

    pub fn cwd(&self) -> PathBuf {
        self.root.path().join("project")
    }

    pub fn project_file(&self) -> PathBuf {
        self.cwd().join("switchboard.toml")
    }

    pub fn user_file(&self) -> PathBuf {
        self.root.path().join("xdg-config/switchboard/config.toml")
    }

    /// `$XDG_CACHE_HOME`.
    pub fn cache_home(&self) -> PathBuf {
        self.root.path().join("xdg-cache")
    }

    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.run_env(args, &[])
    }

    pub fn run_env(&self, args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
        let out = Command::cargo_bin("switchboard")
            .unwrap()
            .args(args)
            .envs(envs.iter().copied())
            .current_dir(self.cwd())
            .env("HOME", self.root.path())
            .env("XDG_CONFIG_HOME", self.root.path().join("xdg-config"))
            .env("XDG_STATE_HOME", self.root.path().join("xdg-state"))
            .env("XDG_DATA_HOME", self.root.path().join("xdg-data"))
            .env("XDG_CACHE_HOME", self.cache_home())
            .env_remove("SWITCHBOARD_TEST_TOKEN")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let (code, stdout, stderr) = self.run(args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        stdout
    }
}

/// `switchboard` run in `home`, which is both its working directory and `$HOME` (the
/// XDG homes unset, so they fall under it), with a 120 s deadline: for tests whose
/// folder is a trusted project of its own.
pub fn switchboard_in(home: &std::path::Path) -> Command {
    let mut cmd = Command::cargo_bin("switchboard").unwrap();
    cmd.current_dir(home)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .timeout(std::time::Duration::from_secs(120));
    cmd
}
