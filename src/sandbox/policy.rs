//! [`SandboxPolicy`]: what a sandboxed server may touch, as it travels to the launcher
//! (JSON on its command line: paths and names only, never an environment value).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The environment variables a sandboxed server gets from switchboard's own
/// environment (when set); everything else is dropped. `TMPDIR` is set to the
/// server's private temporary directory, and the server's `env` from the config is
/// added on top.
pub const ENV_BASE: &[&str] = &[
    "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "USER", "LOGNAME", "SHELL",
];

/// What the launcher enforces.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxPolicy {
    /// Trees (or files) it may read and execute.
    pub read: Vec<PathBuf>,
    /// Trees (or files) it may read, write, create in, remove from and execute.
    pub write: Vec<PathBuf>,
    /// TCP (and, where the kernel can, UDP) connect and bind; false blocks them all.
    pub network: bool,
    /// The names of the variables the launcher keeps from its own environment (the
    /// caller already reduced it); every other variable is cleared before `exec`.
    pub env: Vec<String>,
}

impl SandboxPolicy {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_round_trips_through_json() {
        let policy = SandboxPolicy {
            read: vec!["/usr".into()],
            write: vec!["/tmp/x y".into()],
            network: true,
            env: vec!["PATH".into()],
        };
        assert_eq!(SandboxPolicy::from_json(&policy.to_json()).unwrap(), policy);
        assert!(
            SandboxPolicy::from_json(r#"{"read":[],"write":[],"network":false,"env":[],"x":1}"#)
                .is_err()
        );
    }
}
