//! What is known about a server's login without asking it: the stored issuer, the
//! granted scopes and when the access token expires. Never the tokens themselves.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::StoredCredentials;

use super::store::{FileCredentialStore, StoreError};

/// A stored login, without secrets.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LoginSummary {
    pub issuer: Option<String>,
    pub scopes: Vec<String>,
    /// Seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// A refresh token is stored.
    pub refreshable: bool,
}

impl LoginSummary {
    /// `expires in 59 min`, `expired 3 min ago`, or `no expiry given`.
    pub fn expiry_text(&self, now: SystemTime) -> String {
        let Some(at) = self.expires_at else {
            return "no expiry given".into();
        };
        let now = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        let when = httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(at));
        if at >= now {
            format!("expires {when} (in {})", human(at - now))
        } else {
            format!("expired {when} ({} ago)", human(now - at))
        }
    }
}

impl LoginSummary {
    /// The granted scopes, space-separated (`none` when there are none).
    pub fn scopes_text(&self) -> String {
        if self.scopes.is_empty() {
            "none".to_owned()
        } else {
            self.scopes.join(" ")
        }
    }

    /// The issuer, or `unknown` when the credentials do not say.
    pub fn issuer_text(&self) -> &str {
        self.issuer.as_deref().unwrap_or("unknown")
    }
}

impl fmt::Display for LoginSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "logged in (issuer {}, scopes {}, {}{})",
            self.issuer_text(),
            self.scopes_text(),
            self.expiry_text(SystemTime::now()),
            if self.refreshable {
                ", refreshable"
            } else {
                ""
            }
        )
    }
}

fn human(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..7200 => format!("{} min", secs / 60),
        7200..172_800 => format!("{} h", secs / 3600),
        _ => format!("{} days", secs / 86_400),
    }
}

/// The summary of stored credentials (read through their JSON form, so no token
/// value is ever copied out).
pub fn summary_of(stored: &StoredCredentials) -> LoginSummary {
    let token = stored
        .token_response
        .as_ref()
        .and_then(|t| serde_json::to_value(t).ok())
        .unwrap_or_default();
    let expires_at = token
        .get("expires_in")
        .and_then(serde_json::Value::as_u64)
        .zip(stored.token_received_at)
        .map(|(expires_in, at)| at.saturating_add(expires_in));
    LoginSummary {
        issuer: stored.issuer.clone(),
        scopes: stored.granted_scopes.clone(),
        expires_at,
        refreshable: token.get("refresh_token").is_some_and(|v| !v.is_null()),
    }
}

/// The stored login of the server at `url`, if it has tokens.
pub fn stored_login(url: &str) -> Result<Option<LoginSummary>, StoreError> {
    let stored = FileCredentialStore::for_server(url).read()?;
    Ok(stored
        .filter(|s| s.token_response.is_some())
        .map(|s| summary_of(&s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_and_scopes_read_without_the_token() {
        let token: rmcp::transport::auth::OAuthTokenResponse = serde_json::from_value(
            serde_json::json!({"access_token": "SECRET-A", "token_type": "Bearer",
                "expires_in": 3600, "refresh_token": "SECRET-R"}),
        )
        .unwrap();
        let stored =
            StoredCredentials::new("c".into(), Some(token), vec!["read".into()], Some(1_000))
                .with_issuer(Some("https://as.example".into()));
        let summary = summary_of(&stored);
        assert_eq!(summary.expires_at, Some(4_600));
        assert!(summary.refreshable);
        let at = |s| UNIX_EPOCH + Duration::from_secs(s);
        assert!(summary.expiry_text(at(1_000)).ends_with("(in 60 min)"));
        assert!(summary.expiry_text(at(4_700)).ends_with("(1 min ago)"));
        let shown = summary.to_string();
        assert!(
            shown.contains("issuer https://as.example, scopes read"),
            "{shown}"
        );
        assert!(!shown.contains("SECRET"), "{shown}");
    }
}
