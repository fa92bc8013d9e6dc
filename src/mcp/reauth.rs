//! Logging in when a server asks: at connect time (401), while listing the catalog,
//! or on a call (403 `insufficient_scope`: a step-up that asks for the union of the
//! granted and the challenged scopes). Only a hub started with a login prompt does
//! this by itself; otherwise the server waits in `NeedsLogin` for `mcp login`, the
//! TUI, or a reconnect after one.

use serde_json::{Map, Value};

use super::calls::CallContext;
use super::error::McpError;
use super::oauth::{self, LoginTarget, OAuthError, StoreError};
use super::server::ServerHandle;
use super::snapshot::{ServerSnapshot, ServerStatus};
use crate::tools::ToolResult;

/// Logins in a row without a successful request in between before giving up: one
/// login and two step-ups. A server that keeps refusing then stays in `NeedsLogin`
/// with the reason instead of sending the person through the browser in a loop.
pub const MAX_LOGIN_ROUNDS: u32 = 3;

/// Why a server that needs a login got none (the text becomes the server's
/// `NeedsLogin` reason).
#[derive(Debug, thiserror::Error)]
pub enum LoginFailure {
    /// The error was not a login request.
    #[error(transparent)]
    NotALogin(Box<McpError>),
    /// Nobody can log in here; the server's own reason stands.
    #[error("{reason}")]
    NoPrompt { reason: String },
    #[error("{reason}; gave up after {} logins in a row", MAX_LOGIN_ROUNDS)]
    GaveUp { reason: String },
    #[error("server {server} is not an HTTP server")]
    NotHttp { server: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    OAuth(#[from] OAuthError),
}

/// Logins since the last success.
#[derive(Debug, Default)]
pub struct LoginRounds(u32);

impl ServerHandle {
    /// Calls a tool. `generation` is the catalog generation the caller looked the tool
    /// up in; a different current generation fails as stale. When the server asks for
    /// a login or more scopes and this hub can log in, it does and calls again (the
    /// connection's OAuth client reads the new tokens from the store).
    pub async fn call_tool(
        &self,
        tool: &str,
        args: Map<String, Value>,
        generation: Option<u64>,
        ctx: CallContext,
    ) -> Result<ToolResult, McpError> {
        let mut rounds = LoginRounds::default();
        loop {
            let result = self
                .call_tool_once(tool, &args, generation, ctx.clone())
                .await;
            match result {
                Err(error @ McpError::NeedsLogin { .. }) if self.login.is_some() => {
                    // Boxed: a login's state stays out of every call's future.
                    if let Err(reason) = Box::pin(self.try_login(&error, &mut rounds)).await {
                        return Err(with_reason(error, reason.to_string()));
                    }
                }
                other => return other,
            }
        }
    }

    /// Runs a login for `error` when this hub may (and the cap allows): true when new
    /// tokens are stored. Otherwise `snap` becomes `NeedsLogin` with the reason.
    pub(super) async fn login_for(
        &self,
        error: &McpError,
        rounds: &mut LoginRounds,
        snap: &mut ServerSnapshot,
    ) -> bool {
        match self.try_login(error, rounds).await {
            Ok(()) => true,
            Err(reason) => {
                let reason = reason.to_string();
                tracing::warn!(server = self.name, "needs login: {reason}");
                snap.status = ServerStatus::NeedsLogin {
                    reason: reason.clone(),
                };
                snap.last_error = Some(with_reason(error.clone(), reason));
                snap.login = self.stored_login();
                false
            }
        }
    }

    async fn try_login(
        &self,
        error: &McpError,
        rounds: &mut LoginRounds,
    ) -> Result<(), LoginFailure> {
        let McpError::NeedsLogin {
            reason,
            challenge,
            insufficient_scope,
            ..
        } = error
        else {
            return Err(LoginFailure::NotALogin(Box::new(error.clone())));
        };
        let Some(prompt) = &self.login else {
            return Err(LoginFailure::NoPrompt {
                reason: reason.clone(),
            });
        };
        if rounds.0 >= MAX_LOGIN_ROUNDS {
            return Err(LoginFailure::GaveUp {
                reason: reason.clone(),
            });
        }
        rounds.0 += 1;
        let target = self.login_target(challenge.clone(), insufficient_scope.as_deref())?;
        oauth::login(&target, prompt.as_ref())
            .await
            .map(|summary| tracing::info!(server = self.name, "{summary}"))
            .map_err(LoginFailure::from)
    }

    /// The stored login of this HTTP server, if there is one (a store that cannot
    /// be read counts as none; the next login replaces it).
    pub fn stored_login(&self) -> Option<oauth::LoginSummary> {
        let url = self.config.url.as_deref()?;
        oauth::stored_login(url).ok().flatten()
    }

    /// The challenge of the last `NeedsLogin` error, for a login started by hand.
    pub fn last_challenge(snap: &ServerSnapshot) -> Option<String> {
        match &snap.last_error {
            Some(McpError::NeedsLogin { challenge, .. }) => challenge.clone(),
            _ => None,
        }
    }

    /// What a login to this server asks for; a step-up asks for the granted scopes
    /// plus `insufficient_scope`.
    pub fn login_target(
        &self,
        challenge: Option<String>,
        insufficient_scope: Option<&str>,
    ) -> Result<LoginTarget, LoginFailure> {
        let url = self
            .config
            .url
            .clone()
            .ok_or_else(|| LoginFailure::NotHttp {
                server: self.name.clone(),
            })?;
        let scopes = match insufficient_scope {
            Some(required) => {
                let granted = oauth::stored_login(&url)?
                    .map(|s| s.scopes)
                    .unwrap_or_default();
                step_up_scopes(&granted, required)
            }
            None => Vec::new(),
        };
        Ok(LoginTarget {
            server: self.name.clone(),
            url,
            settings: self.config.oauth.clone().unwrap_or_default(),
            challenge,
            scopes,
        })
    }
}

/// The granted scopes, then the required ones not yet among them.
pub fn step_up_scopes(granted: &[String], required: &str) -> Vec<String> {
    let mut scopes: Vec<String> = granted.to_vec();
    for scope in required.split_whitespace() {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    }
    scopes
}

fn with_reason(error: McpError, reason: String) -> McpError {
    match error {
        McpError::NeedsLogin {
            server,
            challenge,
            insufficient_scope,
            ..
        } => McpError::NeedsLogin {
            server,
            reason,
            challenge,
            insufficient_scope,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_up_asks_for_the_union_in_order() {
        let granted = vec!["mcp:basic".to_owned(), "offline_access".to_owned()];
        assert_eq!(
            step_up_scopes(&granted, "mcp:write mcp:basic"),
            ["mcp:basic", "offline_access", "mcp:write"]
        );
        assert_eq!(step_up_scopes(&[], "a  b"), ["a", "b"]);
    }
}
