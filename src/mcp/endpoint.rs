//! Where a server lives and how to reach it, checked before anything is spawned or
//! fetched: stdio commands are argv (never a shell), HTTP URLs are http(s) with a host.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use crate::config::{SandboxDefault, ServerConfig};

/// Characters that mean a shell was expected; refused in a command string.
pub const SHELL_METACHARACTERS: &[char] = &['|', '>', '<', '&', ';', '$', '`', '\n', '\r'];

/// The transport of a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Legacy HTTP+SSE.
    Sse,
}

impl TransportKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stdio => "stdio",
            Self::Http => "http",
            Self::Sse => "sse",
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A validated way to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Stdio {
        program: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
        /// Run under Landlock with these settings ([`Endpoint::sandboxed`]); `None`:
        /// unsandboxed.
        sandbox: Option<crate::config::SandboxConfig>,
    },
    /// Streamable HTTP (`Http`) or legacy SSE (`Sse`).
    Remote {
        kind: TransportKind,
        url: String,
        headers: BTreeMap<String, String>,
        /// The environment variable holding a bearer token (read at connect time).
        bearer_token_env_var: Option<String>,
        /// `[servers.NAME.oauth]`: the client identity for an OAuth login.
        oauth: crate::config::OAuthClientSettings,
    },
}

/// Why a server's configuration cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("set one of `command` (stdio) or `url` (HTTP)")]
    Nothing,
    #[error("set only one of `command` or `url`")]
    Both,
    #[error("`command` is empty")]
    EmptyCommand,
    #[error(
        "`command` {0:?} contains a shell metacharacter (| > < & ; $ ` or a newline); commands run without a shell: put the program in `command` and each argument in `args`"
    )]
    ShellCommand(String),
    #[error("`command` {0:?} has unbalanced quotes")]
    Unsplittable(String),
    #[error("`url` {0:?} is not a valid URL")]
    BadUrl(String),
    #[error("`url` {0:?} must use http or https")]
    BadScheme(String),
    #[error("`url` {0:?} has no host")]
    NoHost(String),
    #[error("`type` {0:?} does not fit: {1}")]
    TypeMismatch(String, &'static str),
    #[error("unknown `type` {0:?}: expected stdio, http or sse")]
    UnknownType(String),
    /// A `${VAR}` reference in `env` or `headers` that cannot be expanded.
    #[error("`{0}`: {1}")]
    Reference(&'static str, String),
}

impl Endpoint {
    /// Validates a `[servers.NAME]` table. The transport is `type` when given, else
    /// inferred: `command` → stdio; a `url` whose path ends in `/sse` → legacy SSE;
    /// any other `url` → Streamable HTTP.
    pub fn from_config(config: &ServerConfig) -> Result<Self, EndpointError> {
        match (&config.command, &config.url) {
            (None, None) => Err(EndpointError::Nothing),
            (Some(_), Some(_)) => Err(EndpointError::Both),
            (Some(command), None) => {
                if let Some(t) = config.transport.as_deref().filter(|t| *t != "stdio") {
                    return Err(EndpointError::TypeMismatch(
                        t.into(),
                        "`command` needs stdio",
                    ));
                }
                let (program, mut args) = split_command(command, !config.args.is_empty())?;
                args.extend(config.args.iter().cloned());
                Ok(Self::Stdio {
                    program,
                    args,
                    env: expand_references("env", &config.env)?,
                    cwd: config.cwd.clone(),
                    sandbox: None,
                })
            }
            (None, Some(url)) => {
                check_url(url)?;
                let kind = match config.transport.as_deref() {
                    Some("http") => TransportKind::Http,
                    Some("sse") => TransportKind::Sse,
                    Some("stdio") => {
                        return Err(EndpointError::TypeMismatch(
                            "stdio".into(),
                            "`url` needs http or sse",
                        ));
                    }
                    Some(other) => return Err(EndpointError::UnknownType(other.into())),
                    None if looks_like_sse(url) => TransportKind::Sse,
                    None => TransportKind::Http,
                };
                Ok(Self::Remote {
                    kind,
                    url: url.clone(),
                    headers: expand_references("headers", &config.headers)?,
                    bearer_token_env_var: config.bearer_token_env_var.clone(),
                    oauth: config.oauth.clone().unwrap_or_default(),
                })
            }
        }
    }

    /// A stdio endpoint sandboxed when [`crate::sandbox::wanted`] says so for this
    /// server under the `[mcp] sandbox` default; others unchanged.
    pub fn sandboxed(mut self, config: &ServerConfig, default: SandboxDefault) -> Self {
        if let Self::Stdio { sandbox, .. } = &mut self {
            *sandbox = crate::sandbox::settings(config, default);
        }
        self
    }

    /// Whether the server runs sandboxed.
    pub fn is_sandboxed(&self) -> bool {
        matches!(
            self,
            Self::Stdio {
                sandbox: Some(_),
                ..
            }
        )
    }

    pub fn kind(&self) -> TransportKind {
        match self {
            Self::Stdio { .. } => TransportKind::Stdio,
            Self::Remote { kind, .. } => *kind,
        }
    }

    /// What to show for it: the command line or the URL.
    pub fn target(&self) -> String {
        match self {
            Self::Stdio { program, args, .. } => {
                let mut parts = vec![program.as_str()];
                parts.extend(args.iter().map(String::as_str));
                shlex::try_join(parts).unwrap_or_else(|_| program.clone())
            }
            Self::Remote { url, .. } => url.clone(),
        }
    }
}

impl EndpointError {
    /// The `[servers.NAME]` key at fault.
    pub fn key(&self) -> &'static str {
        match self {
            Self::Nothing | Self::EmptyCommand | Self::ShellCommand(_) | Self::Unsplittable(_) => {
                "command"
            }
            Self::Both | Self::BadUrl(_) | Self::BadScheme(_) | Self::NoHost(_) => "url",
            Self::TypeMismatch(..) | Self::UnknownType(_) => "type",
            Self::Reference(key, _) => key,
        }
    }
}

/// `${VAR}` and `${VAR:-default}` in `env` and `headers` values expand from the
/// environment when the server starts (so a config can name a secret without holding
/// it); an unset variable without a default refuses the server, naming it.
fn expand_references(
    key: &'static str,
    values: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, EndpointError> {
    use crate::config::import::{Expander, Headless};
    let env = |name: &str| std::env::var(name).ok();
    let expander = Expander {
        env: &env,
        inputs: &[],
        resolver: &Headless,
        keep_env: false,
    };
    values
        .iter()
        .map(|(name, value)| {
            if !value.contains("${") {
                return Ok((name.clone(), value.clone()));
            }
            expander
                .expand(value)
                .map(|v| (name.clone(), v))
                .map_err(|e| EndpointError::Reference(key, format!("{name}: {e}")))
        })
        .collect()
}

/// Why switchboard would refuse to start this server before spawning or connecting
/// anything: the `[servers.NAME]` key at fault and the reason. `env` reads the
/// environment (for `bearer_token_env_var`).
pub fn refusal(
    config: &ServerConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<(&'static str, String)> {
    if config.enabled == Some(false) {
        return None;
    }
    if let Err(e) = Endpoint::from_config(config) {
        return Some((e.key(), e.to_string()));
    }
    if let Some(var) = &config.bearer_token_env_var
        && env(var).is_none()
    {
        return Some((
            "bearer_token_env_var",
            format!("the environment variable {var} is not set"),
        ));
    }
    for (name, value) in &config.headers {
        let bad_name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err();
        if bad_name || reqwest::header::HeaderValue::from_str(value).is_err() {
            let what = if bad_name { "name" } else { "value" };
            return Some(("headers", format!("header {name:?}: invalid {what}")));
        }
    }
    None
}

/// Splits `command` into program and leading arguments without a shell. With explicit
/// `args` the command is one program name (spaces allowed); metacharacters are refused
/// either way.
pub fn split_command(
    command: &str,
    has_args: bool,
) -> Result<(String, Vec<String>), EndpointError> {
    if command.trim().is_empty() {
        return Err(EndpointError::EmptyCommand);
    }
    if command.contains(SHELL_METACHARACTERS) {
        return Err(EndpointError::ShellCommand(command.to_owned()));
    }
    if has_args || !command.trim().contains(char::is_whitespace) {
        return Ok((command.trim().to_owned(), Vec::new()));
    }
    let mut words = shlex::split(command)
        .ok_or_else(|| EndpointError::Unsplittable(command.to_owned()))?
        .into_iter();
    let program = words.next().ok_or(EndpointError::EmptyCommand)?;
    Ok((program, words.collect()))
}

/// http or https with a host.
pub fn check_url(url: &str) -> Result<reqwest::Url, EndpointError> {
    let parsed = reqwest::Url::parse(url).map_err(|_| EndpointError::BadUrl(url.to_owned()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(EndpointError::BadScheme(url.to_owned()));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(EndpointError::NoHost(url.to_owned()));
    }
    Ok(parsed)
}

fn looks_like_sse(url: &str) -> bool {
    reqwest::Url::parse(url).is_ok_and(|u| u.path().trim_end_matches('/').ends_with("/sse"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(command: &str, args: &[&str]) -> Result<Endpoint, EndpointError> {
        Endpoint::from_config(&ServerConfig {
            command: Some(command.into()),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            ..ServerConfig::default()
        })
    }

    fn remote(url: &str) -> Result<Endpoint, EndpointError> {
        Endpoint::from_config(&ServerConfig {
            url: Some(url.into()),
            ..ServerConfig::default()
        })
    }

    #[test]
    fn a_command_string_is_split_without_a_shell() {
        let Endpoint::Stdio { program, args, .. } =
            stdio("npx -y 'my server' --flag", &[]).unwrap()
        else {
            panic!("not stdio")
        };
        assert_eq!(program, "npx");
        assert_eq!(args, ["-y", "my server", "--flag"]);
        let Endpoint::Stdio { program, args, .. } = stdio("/opt/my tool", &["a"]).unwrap() else {
            panic!("not stdio")
        };
        assert_eq!((program.as_str(), args.len()), ("/opt/my tool", 1));
    }

    #[test]
    fn shell_metacharacters_are_refused() {
        for bad in [
            "a | b",
            "a > f",
            "a < f",
            "a & b",
            "a; b",
            "echo $HOME",
            "echo `id`",
            "a\nb",
        ] {
            assert!(
                matches!(stdio(bad, &[]), Err(EndpointError::ShellCommand(_))),
                "{bad:?}"
            );
        }
        // Arguments are argv: they may hold anything.
        assert!(stdio("echo", &["a | b; $x"]).is_ok());
        assert!(matches!(stdio("  ", &[]), Err(EndpointError::EmptyCommand)));
        assert!(matches!(
            stdio("a 'b", &[]),
            Err(EndpointError::Unsplittable(_))
        ));
    }

    #[test]
    fn urls_must_be_http_with_a_host() {
        assert!(matches!(
            remote("file:///etc/passwd"),
            Err(EndpointError::BadScheme(_))
        ));
        assert!(matches!(
            remote("ftp://x.io/mcp"),
            Err(EndpointError::BadScheme(_))
        ));
        assert!(matches!(remote("not a url"), Err(EndpointError::BadUrl(_))));
        assert!(remote("http://").is_err());
        assert!(remote("mailto:someone@x.io").is_err());
        assert_eq!(
            remote("https://x.io/mcp").unwrap().kind(),
            TransportKind::Http
        );
        assert_eq!(
            remote("http://x.io/sse").unwrap().kind(),
            TransportKind::Sse
        );
    }

    #[test]
    fn env_and_header_references_expand_at_start() {
        let home = std::env::var("HOME").unwrap_or_default();
        let config = ServerConfig {
            command: Some("srv".into()),
            env: [("DIR".to_owned(), "${HOME}/x".to_owned())].into(),
            ..ServerConfig::default()
        };
        let Endpoint::Stdio { env, .. } = Endpoint::from_config(&config).unwrap() else {
            panic!("not stdio")
        };
        assert_eq!(env["DIR"], format!("{home}/x"));
        let config = ServerConfig {
            url: Some("https://x.io/mcp".into()),
            headers: [("X-Key".to_owned(), "${SB_SURELY_UNSET_9}".to_owned())].into(),
            ..ServerConfig::default()
        };
        let e = Endpoint::from_config(&config).unwrap_err();
        assert_eq!(e.key(), "headers");
        assert!(
            e.to_string().contains("SB_SURELY_UNSET_9 is not set"),
            "{e}"
        );
    }
}
