//! Typed MCP errors. The message of each kind starts with the name users and tests
//! search for: `mcp_handshake_failed`, `mcp_remote_error`, `mcp_call_failed`.

use std::fmt;

/// Which configured limit a server went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitKind {
    Pages,
    Items,
    ContentBlocks,
    ResultChars,
}

impl LimitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pages => "max_pages",
            Self::Items => "max_items",
            Self::ContentBlocks => "max_content_blocks",
            Self::ResultChars => "max_result_chars",
        }
    }
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything that can go wrong talking to an MCP server. Server-provided text in
/// these messages is sanitised and truncated when the error is built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum McpError {
    /// Spawning, connecting or `initialize` failed (or timed out).
    #[error("mcp_handshake_failed: {reason} (server {server})")]
    Handshake { server: String, reason: String },
    /// The server answered a request with a JSON-RPC error.
    #[error("mcp_remote_error: {message} (server {server}, code {code})")]
    Remote {
        server: String,
        code: i32,
        message: String,
    },
    /// The request itself broke: timeout, transport closed, cancelled.
    #[error("mcp_call_failed: {reason} (server {server})")]
    CallFailed { server: String, reason: String },
    /// The server sent more than a configured limit allows.
    #[error("mcp_call_failed: limit {limit} ({max}) exceeded by server {server}: {detail}")]
    Limit {
        server: String,
        limit: LimitKind,
        max: usize,
        detail: String,
    },
    /// The caller used a catalog from an earlier connection.
    #[error(
        "mcp_call_failed: catalog is stale, refreshed: server {server} reconnected (the call used catalog generation {used}, the current one is {current}); look the tool up again"
    )]
    Stale {
        server: String,
        used: u64,
        current: u64,
    },
    /// The server is not connected right now.
    #[error("mcp_handshake_failed: server {server} is not connected ({status})")]
    NotConnected { server: String, status: String },
    #[error("no MCP server named {0:?}")]
    UnknownServer(String),
    /// The server's configuration cannot be used (bad command, bad URL, missing token).
    #[error("server {server}: {message}")]
    Config { server: String, message: String },
    /// The server wants an OAuth login (or more scopes) that no stored or refreshed
    /// token gives. `challenge` is its `WWW-Authenticate` value, kept for the login
    /// and never shown.
    #[error("needs login: run `switchboard mcp login {server}` ({reason})")]
    NeedsLogin {
        server: String,
        reason: String,
        challenge: Option<String>,
        /// The scope a 403 `insufficient_scope` asked for (a step-up).
        insufficient_scope: Option<String>,
    },
}

impl McpError {
    /// A server refused before it starts because its config cannot be used (a shell
    /// metacharacter in `command`, a URL that is not http(s), an unset
    /// `bearer_token_env_var`): a failure to start like any other, so
    /// `mcp_handshake_failed` with the same exit status.
    pub fn refused(server: impl Into<String>, message: impl fmt::Display) -> Self {
        Self::Handshake {
            server: server.into(),
            reason: format!("refused before start: {message}"),
        }
    }

    /// The server the error is about, when there is one.
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::Handshake { server, .. }
            | Self::Remote { server, .. }
            | Self::CallFailed { server, .. }
            | Self::Limit { server, .. }
            | Self::Stale { server, .. }
            | Self::NotConnected { server, .. }
            | Self::Config { server, .. }
            | Self::NeedsLogin { server, .. } => Some(server),
            Self::UnknownServer(_) => None,
        }
    }

    /// The stable kind name (`mcp_handshake_failed`, …, or `config`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Handshake { .. } | Self::NotConnected { .. } => "mcp_handshake_failed",
            Self::Remote { .. } => "mcp_remote_error",
            Self::CallFailed { .. } | Self::Limit { .. } | Self::Stale { .. } => "mcp_call_failed",
            Self::UnknownServer(_) | Self::Config { .. } => "config",
            Self::NeedsLogin { .. } => "needs_login",
        }
    }
}

/// The login an rmcp request error asks for, if a 401/403 challenge is why it failed.
pub fn needs_login(server: &str, challenge: &str) -> McpError {
    let base = reqwest::Url::parse("http://localhost/").ok();
    let params = base
        .as_ref()
        .map(|b| rmcp::transport::WWWAuthenticateParams::parse(challenge, b));
    let insufficient = params
        .as_ref()
        .filter(|p| p.is_insufficient_scope())
        .map(|p| p.scope.clone().unwrap_or_default());
    let reason = match (&insufficient, params.as_ref().and_then(|p| p.error.clone())) {
        (Some(scope), _) => format!("the server wants scope {}", untrusted(scope, 200)),
        (None, Some(error)) => format!("the server answered 401 {}", untrusted(&error, 100)),
        (None, None) => "the server answered 401 (authorization required)".into(),
    };
    McpError::NeedsLogin {
        server: server.to_owned(),
        reason,
        challenge: Some(challenge.to_owned()),
        insufficient_scope: insufficient,
    }
}

/// Remote text made safe to show: one line, control characters removed, at most
/// `max` characters (with a visible marker when cut).
pub fn untrusted(text: &str, max: usize) -> String {
    let line = crate::sanitize::sanitize_line(text);
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}… [truncated]", &line[..cut]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_start_with_the_kind() {
        let e = McpError::CallFailed {
            server: "s".into(),
            reason: "timeout: no response for 1s".into(),
        };
        assert!(e.to_string().starts_with("mcp_call_failed: timeout"));
        assert_eq!(e.kind(), "mcp_call_failed");
        let e = McpError::Limit {
            server: "s".into(),
            limit: LimitKind::ResultChars,
            max: 10,
            detail: "11 characters".into(),
        };
        assert!(e.to_string().contains("max_result_chars (10)"), "{e}");
        assert!(e.to_string().contains("server s"), "{e}");
    }

    #[test]
    fn untrusted_text_is_one_sanitised_line() {
        assert_eq!(untrusted("a\x1b[31mb\nc", 100), "ab c");
        assert_eq!(untrusted("abcdef", 3), "abc… [truncated]");
    }
}
