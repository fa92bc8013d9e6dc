//! Whether a server runs sandboxed, and the policy it runs under: the read set (system
//! directories, `PATH`, the command's install tree, the workspace, `read`), the write
//! set (`write` and a private temporary directory) and a reduced environment.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path, PathBuf};

use super::policy::{ENV_BASE, SandboxPolicy};
use crate::config::{SandboxConfig, SandboxDefault, SandboxSetting, ServerConfig};

/// Read (and execute) for every sandboxed server; missing ones are skipped. `/proc`
/// and `/sys` are read-only like the rest; `/dev/tty` is left out.
pub const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/bin",
    "/sbin",
    "/etc",
    "/opt",
    "/proc",
    "/sys",
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
];

/// Writable for every sandboxed server.
pub const SYSTEM_WRITE: &[&str] = &["/dev/null"];

/// Whether a stdio server runs sandboxed: its own `sandbox` setting when it has one;
/// else `[mcp] sandbox = "on"`; else whether it comes from a project config.
pub fn wanted(server: &ServerConfig, default: SandboxDefault) -> bool {
    match &server.sandbox {
        Some(SandboxSetting::On(on)) => *on,
        Some(SandboxSetting::With(_)) => true,
        None => default == SandboxDefault::On || server.from_project,
    }
}

/// The settings a server runs under, `None` when it is not sandboxed.
pub fn settings(server: &ServerConfig, default: SandboxDefault) -> Option<SandboxConfig> {
    if !wanted(server, default) {
        return None;
    }
    Some(match &server.sandbox {
        Some(SandboxSetting::With(config)) => config.clone(),
        _ => SandboxConfig::default(),
    })
}

/// What resolution reads from the running process: its environment, directory and
/// temporary directory.
pub struct World<'a> {
    pub env: &'a dyn Fn(&str) -> Option<OsString>,
    pub cwd: PathBuf,
    pub temp: PathBuf,
}

/// A resolved launch: the policy, the environment the launcher starts with, and the
/// program to run (the `PATH` match when one was found).
#[derive(Debug)]
pub struct Launch {
    pub policy: SandboxPolicy,
    pub env: BTreeMap<OsString, OsString>,
    pub program: OsString,
}

/// The server as given by its endpoint.
pub struct Server<'a> {
    pub name: &'a str,
    pub program: &'a str,
    pub args: &'a [String],
    pub env: &'a BTreeMap<String, String>,
    pub cwd: Option<&'a Path>,
}

/// Resolves the policy of `server` under `settings`; creates its private temporary
/// directory.
pub fn plan(
    server: &Server<'_>,
    settings: &SandboxConfig,
    world: &World<'_>,
) -> std::io::Result<Launch> {
    let workspace = server
        .cwd
        .map_or_else(|| world.cwd.clone(), |c| world.cwd.join(c));
    let tmpdir = super::tempdir::private_dir(&world.temp, server.name, &workspace)?;
    let home = (world.env)("HOME").map(PathBuf::from);
    let mut env: BTreeMap<OsString, OsString> = ENV_BASE
        .iter()
        .filter_map(|name| (world.env)(name).map(|v| (OsString::from(name), v)))
        .collect();
    env.insert("TMPDIR".into(), tmpdir.clone().into_os_string());
    for (name, value) in server.env {
        env.insert(name.into(), value.into());
    }
    let path_var = env.get(OsStr::new("PATH")).cloned();
    let resolved = resolve_program(server.program, &workspace, path_var.as_deref());
    let expand = |p: &PathBuf| expand_path(p, &workspace, home.as_deref());
    let mut read: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
    read.extend(path_dirs(path_var.as_deref()));
    read.extend(install_tree(resolved.as_deref(), server.args, &workspace));
    read.push(workspace.clone());
    read.extend(settings.read.iter().map(expand));
    if settings.network
        && let Ok(resolv) = std::fs::canonicalize("/etc/resolv.conf")
    {
        read.push(resolv);
    }
    let mut write: Vec<PathBuf> = SYSTEM_WRITE.iter().map(PathBuf::from).collect();
    write.push(tmpdir);
    write.extend(settings.write.iter().map(expand));
    let policy = SandboxPolicy {
        read: dedup(read),
        write: dedup(write),
        network: settings.network,
        env: env
            .keys()
            .map(|k| k.to_string_lossy().into_owned())
            .collect(),
    };
    let program = resolved.map_or_else(|| server.program.into(), PathBuf::into_os_string);
    Ok(Launch {
        policy,
        env,
        program,
    })
}

/// Why a sandboxed server's launch could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot prepare the sandbox: no current directory: {0}")]
    NoCurrentDir(std::io::Error),
    #[error("cannot prepare the sandbox: {0}")]
    Plan(std::io::Error),
    #[error("cannot find the switchboard binary to launch the sandbox: {0}")]
    NoBinary(std::io::Error),
}

/// The command that starts `server` sandboxed: this binary's `__sandbox-exec` with
/// the policy, the environment cleared down to the launch's. The running binary
/// (`std::env::current_exe`) must be `switchboard`: a program that embeds the hub
/// and sandboxes servers needs the same hidden subcommand.
pub fn command(
    server: &Server<'_>,
    settings: &SandboxConfig,
) -> Result<std::process::Command, LaunchError> {
    let env = |name: &str| std::env::var_os(name);
    let world = World {
        env: &env,
        cwd: std::env::current_dir().map_err(LaunchError::NoCurrentDir)?,
        temp: std::env::temp_dir(),
    };
    let launch = plan(server, settings, &world).map_err(LaunchError::Plan)?;
    let exe = std::env::current_exe().map_err(LaunchError::NoBinary)?;
    let mut command = std::process::Command::new(exe);
    command
        .arg(super::SUBCOMMAND)
        .arg("--policy")
        .arg(launch.policy.to_json())
        .arg("--")
        .arg(&launch.program)
        .args(server.args)
        .env_clear()
        .envs(&launch.env);
    Ok(command)
}

/// `~` and `~/…` from `home`; relative paths from the workspace.
fn expand_path(path: &Path, workspace: &Path, home: Option<&Path>) -> PathBuf {
    let mut parts = path.components();
    if let (Some(Component::Normal(first)), Some(home)) = (parts.next(), home)
        && first == "~"
    {
        return home.join(parts.as_path());
    }
    workspace.join(path)
}

/// The absolute directories of `PATH` (relative entries are skipped).
fn path_dirs(path_var: Option<&OsStr>) -> Vec<PathBuf> {
    path_var
        .map(|p| {
            std::env::split_paths(p)
                .filter(|d| d.is_absolute())
                .collect()
        })
        .unwrap_or_default()
}

/// Where `program` is: a path (relative to the workspace) or the first executable of
/// that name on `PATH`.
pub fn resolve_program(
    program: &str,
    workspace: &Path,
    path_var: Option<&OsStr>,
) -> Option<PathBuf> {
    if program.contains('/') {
        let path = workspace.join(program);
        return path.is_file().then_some(path);
    }
    path_dirs(path_var)
        .into_iter()
        .map(|dir| dir.join(program))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The directories the command needs to read to run: the program's canonical parent,
/// the parent of each argument that is an existing file (`node x.js`, `python y.py`),
/// for files inside `node_modules` the directory holding it, and for a program in a
/// Python virtual environment's `bin` or a version manager's `shims` directory that
/// environment or manager.
pub fn install_tree(program: Option<&Path>, args: &[String], workspace: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(program) = program {
        out.extend(tree_of(program));
        let dir = program.parent();
        if let Some(root) = dir.and_then(Path::parent) {
            // A Python virtual environment's `bin`, or a version manager's `shims`
            // (pyenv, rbenv, asdf: the shim runs the manager from its root).
            let venv = root.join("pyvenv.cfg").is_file();
            if venv || dir.and_then(Path::file_name) == Some(OsStr::new("shims")) {
                out.push(root.to_path_buf());
            }
        }
    }
    for arg in args.iter().filter(|a| !a.starts_with('-')) {
        let path = workspace.join(arg);
        if path.is_file() {
            out.extend(tree_of(&path));
        }
    }
    out
}

fn tree_of(file: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(file).ok()?;
    let outermost = real
        .ancestors()
        .filter(|a| a.file_name() == Some(OsStr::new("node_modules")))
        .last();
    match outermost {
        Some(node_modules) => node_modules.parent().map(Path::to_path_buf),
        None => real.parent().map(Path::to_path_buf),
    }
}

fn dedup(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::with_capacity(paths.len());
    for p in paths {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
