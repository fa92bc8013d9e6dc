//! The launcher: restrict this process with the policy, then become the server.
//!
//! The ruleset handles every filesystem access right and, with `network = false`,
//! TCP bind and connect (UDP too on kernels with Landlock ABI 10); it scopes abstract
//! unix sockets and signals (ABI 6). It asks for the newest ABI the `landlock` crate
//! knows, best effort: what the running kernel lacks is dropped and said once on
//! stderr. A kernel without Landlock (or with it disabled) leaves the ruleset not
//! enforced, and then the server is not started at all.

use std::ffi::OsString;

use super::policy::SandboxPolicy;

/// Exit status when the sandbox cannot be set up (nothing was started).
pub const EXIT_NOT_ENFORCED: i32 = 125;
/// Exit status when the sandbox is in place but the program cannot be run.
pub const EXIT_EXEC_FAILED: i32 = 127;

/// Why the launcher did not become the server.
#[derive(Debug, thiserror::Error)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub enum SandboxError {
    #[error("Landlock is unavailable: {0}; refusing to start {1:?} without its sandbox")]
    Unavailable(String, OsString),
    #[error("the Landlock ruleset could not be built: {0}")]
    Ruleset(String),
    #[error("sandboxing is not supported on this OS (Landlock is Linux only)")]
    Unsupported,
    #[error("cannot run {0:?} in the sandbox: {1}")]
    Exec(OsString, std::io::Error),
}

impl SandboxError {
    /// The launcher's exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Exec(..) => EXIT_EXEC_FAILED,
            _ => EXIT_NOT_ENFORCED,
        }
    }
}

/// Restricts the calling process with `policy` and replaces it with `program`; returns
/// only on failure. `note` receives the one line said when the kernel enforces only
/// part of the ruleset.
#[cfg(target_os = "linux")]
pub fn exec(
    policy: &SandboxPolicy,
    program: &OsString,
    args: &[OsString],
    note: &mut dyn FnMut(&str),
) -> SandboxError {
    use std::os::unix::process::CommandExt as _;

    match restrict(policy, program) {
        Ok(Some(partial)) => note(&partial),
        Ok(None) => {}
        Err(e) => return e,
    }
    let mut command = std::process::Command::new(program);
    command.args(args).env_clear();
    for name in &policy.env {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    SandboxError::Exec(program.clone(), command.exec())
}

/// Landlock is Linux only.
#[cfg(not(target_os = "linux"))]
pub fn exec(
    _policy: &SandboxPolicy,
    _program: &OsString,
    _args: &[OsString],
    _note: &mut dyn FnMut(&str),
) -> SandboxError {
    SandboxError::Unsupported
}

/// Builds and enforces the ruleset; `Some(what)` when only part of it is enforced.
#[cfg(target_os = "linux")]
fn restrict(policy: &SandboxPolicy, program: &OsString) -> Result<Option<String>, SandboxError> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, Scope, path_beneath_rules,
    };

    let abi = ABI::V10;
    let fail = |e: landlock::RulesetError| SandboxError::Ruleset(e.to_string());
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(fail)?;
    if !policy.network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(fail)?;
    }
    let status = ruleset
        .scope(Scope::from_all(abi))
        .map_err(fail)?
        .create()
        .map_err(fail)?
        .add_rules(path_beneath_rules(&policy.read, AccessFs::from_read(abi)))
        .map_err(fail)?
        .add_rules(path_beneath_rules(&policy.write, AccessFs::from_all(abi)))
        .map_err(fail)?
        .restrict_self()
        .map_err(fail)?;
    let effective = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi as i32,
        LandlockStatus::NotEnabled => {
            return Err(SandboxError::Unavailable(
                "the kernel has it but it is not enabled (see the `lsm=` boot parameter)".into(),
                program.clone(),
            ));
        }
        LandlockStatus::NotImplemented => {
            return Err(SandboxError::Unavailable(
                "the kernel is built without it".into(),
                program.clone(),
            ));
        }
    };
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(None),
        RulesetStatus::PartiallyEnforced => Ok(Some(gaps(effective, policy.network))),
        RulesetStatus::NotEnforced => Err(SandboxError::Unavailable(
            format!("the ruleset was not enforced (kernel Landlock ABI {effective})"),
            program.clone(),
        )),
    }
}

/// What a kernel with Landlock ABI `abi` leaves uncovered, for the one stderr line
/// (ABI history: the kernel's Documentation/userspace-api/landlock.rst).
pub fn gaps(abi: i32, network: bool) -> String {
    let mut missing = Vec::new();
    if abi < 2 {
        missing.push("renaming and linking across directories (ABI 2)");
    }
    if abi < 3 {
        missing.push("truncate (ABI 3)");
    }
    if abi < 4 && !network {
        missing.push("TCP connect and bind (ABI 4)");
    }
    if abi < 5 {
        missing.push("device ioctl (ABI 5)");
    }
    if abi < 6 {
        missing.push("abstract unix sockets and signals (ABI 6)");
    }
    if abi < 9 {
        missing.push("connecting to pathname unix sockets (ABI 9)");
    }
    if abi < 10 && !network {
        missing.push("UDP (ABI 10)");
    }
    format!(
        "switchboard sandbox: partially enforced (kernel Landlock ABI {abi}); not restricted: {}",
        missing.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partial_note_names_what_the_kernel_lacks() {
        let note = gaps(7, false);
        assert!(note.contains("ABI 7"), "{note}");
        assert!(
            note.contains("UDP") && note.contains("pathname unix"),
            "{note}"
        );
        assert!(
            !note.contains("TCP") && !note.contains("truncate"),
            "{note}"
        );
        assert!(gaps(3, false).contains("TCP connect"));
        assert!(!gaps(3, true).contains("TCP") && !gaps(3, true).contains("UDP"));
    }
}
