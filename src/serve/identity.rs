//! Who a serve client is. The name in `clientInfo` is the client's to choose, so it is
//! only a label: a client's `[serve.clients.NAME]` mode and budget apply only to a
//! connection that proves the name — over HTTP by sending the bearer token of that
//! client's `token_env`, over stdio by being started as `serve --stdio --client NAME`.
//!
//! [`Tokens`] holds the tokens read when the HTTP gateway starts and decides, per
//! request, whether it is let in and which client (if any) it proved to be.

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::HeaderMap;

use super::http::HttpError;
use crate::config::ServeConfig;

/// The client a request proved to be; put in the HTTP request's extensions (rmcp
/// hands them to the handler), never taken from the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Proven(pub Arc<str>);

/// The bearer tokens of one HTTP gateway.
pub(super) struct Tokens {
    /// `[serve] token_env`: access without a name.
    global: Option<Box<str>>,
    /// `[serve.clients.NAME] token_env`: access as NAME.
    clients: Vec<(Arc<str>, Box<str>)>,
    /// Whether a request without an accepted token is refused (401).
    required: bool,
}

/// What a request's `Authorization` header earned it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Admission {
    /// In, as the client the token belongs to.
    Proven(Arc<str>),
    /// In, with no proven name (the global token, or no token needed).
    Anonymous,
    /// 401.
    Refused,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.clients.iter().map(|(n, _)| &**n).collect();
        f.debug_struct("Tokens")
            .field("global", &self.global.is_some())
            .field("clients", &names)
            .field("required", &self.required)
            .finish()
    }
}

impl Tokens {
    /// Reads every configured token from the environment. A token is required for
    /// every request when `[serve] token_env` is set or the bind is not on loopback;
    /// such a bind with no token at all refuses to start.
    pub(super) fn from_env(config: &ServeConfig, addr: SocketAddr) -> Result<Self, HttpError> {
        let read = |var: &str| {
            std::env::var(var)
                .ok()
                .filter(|t| !t.trim().is_empty())
                .map(String::into_boxed_str)
        };
        let global = match &config.token_env {
            Some(var) => Some(read(var).ok_or_else(|| HttpError::TokenUnset(var.clone()))?),
            None => None,
        };
        let mut clients = Vec::new();
        for (name, client) in &config.clients {
            if let Some(var) = &client.token_env {
                let token = read(var).ok_or_else(|| HttpError::ClientTokenUnset {
                    client: name.clone(),
                    var: var.clone(),
                })?;
                clients.push((Arc::from(name.as_str()), token));
            }
        }
        Self::new(global, clients, addr)
    }

    fn new(
        global: Option<Box<str>>,
        clients: Vec<(Arc<str>, Box<str>)>,
        addr: SocketAddr,
    ) -> Result<Self, HttpError> {
        let loopback = addr.ip().is_loopback();
        if !loopback && global.is_none() && clients.is_empty() {
            return Err(HttpError::NeedsToken { addr });
        }
        // One token, one identity: a shared token would make its holders the same client.
        let keys = |(name, _): &(Arc<str>, Box<str>)| format!("[serve.clients.{name}] token_env");
        let mut named: Vec<(String, &str)> = clients.iter().map(|c| (keys(c), &*c.1)).collect();
        if let Some(token) = &global {
            named.push(("[serve] token_env".to_owned(), token));
        }
        for (i, (a, token)) in named.iter().enumerate() {
            if let Some((b, _)) = named[i + 1..].iter().find(|(_, t)| *t == *token) {
                return Err(HttpError::SharedToken(a.clone(), b.clone()));
            }
        }
        Ok(Self {
            required: global.is_some() || !loopback,
            global,
            clients,
        })
    }

    /// Lets a request in, as a client when its bearer token is that client's.
    pub(super) fn admit(&self, headers: &HeaderMap) -> Admission {
        let given = bearer(headers).map(str::as_bytes);
        if let Some(given) = given {
            // Every token is compared, so the time taken does not tell which matched.
            let mut proven = None;
            for (name, token) in &self.clients {
                if constant_time_eq(given, token.as_bytes()) {
                    proven = Some(Arc::clone(name));
                }
            }
            if let Some(name) = proven {
                return Admission::Proven(name);
            }
            if let Some(global) = &self.global
                && constant_time_eq(given, global.as_bytes())
            {
                return Admission::Anonymous;
            }
        }
        if self.required {
            Admission::Refused
        } else {
            Admission::Anonymous
        }
    }
}

/// The token of `Authorization: Bearer TOKEN` (RFC 6750), trimmed.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(hyper::header::AUTHORIZATION)?.to_str().ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))?;
    Some(token.trim())
}

/// Whether `a` and `b` are equal, taking the same time whatever the first differing
/// byte (only the length may show).
pub(super) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOOPBACK: &str = "127.0.0.1:7331";
    const ANY: &str = "0.0.0.0:7331";

    fn with(auth: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(a) = auth {
            headers.insert(hyper::header::AUTHORIZATION, a.parse().unwrap());
        }
        headers
    }

    fn tokens(global: Option<&str>, clients: &[(&str, &str)], loopback: bool) -> Tokens {
        let clients = clients
            .iter()
            .map(|(n, t)| (Arc::from(*n), Box::from(*t)))
            .collect();
        let addr = if loopback { LOOPBACK } else { ANY };
        Tokens::new(global.map(Box::from), clients, addr.parse().unwrap()).unwrap()
    }

    #[test]
    fn constant_time_eq_is_plain_equality() {
        assert!(constant_time_eq(b"s3cret", b"s3cret"));
        assert!(constant_time_eq(b"", b""));
        assert!(!constant_time_eq(b"s3cret", b"s3creT"));
        assert!(!constant_time_eq(b"s3cre", b"s3cret"));
        assert!(!constant_time_eq(b"s3cret", b""));
    }

    #[test]
    fn a_client_token_proves_its_client_and_nothing_else_does() {
        let t = tokens(None, &[("ci", "ci-token"), ("desk", "desk-token")], true);
        let ci = Admission::Proven(Arc::from("ci"));
        assert_eq!(t.admit(&with(Some("Bearer ci-token"))), ci);
        assert_eq!(t.admit(&with(Some("bearer  ci-token "))), ci);
        assert_eq!(
            t.admit(&with(Some("Bearer desk-token"))),
            Admission::Proven(Arc::from("desk"))
        );
        // On loopback without [serve] token_env anyone is let in, unproven.
        assert_eq!(t.admit(&with(Some("Bearer ci-tok"))), Admission::Anonymous);
        assert_eq!(t.admit(&with(Some("Basic ci-token"))), Admission::Anonymous);
        assert_eq!(t.admit(&with(None)), Admission::Anonymous);
    }

    #[test]
    fn with_a_global_token_or_off_loopback_only_tokens_get_in() {
        let t = tokens(Some("all"), &[("ci", "ci-token")], true);
        assert_eq!(t.admit(&with(Some("Bearer all"))), Admission::Anonymous);
        assert_eq!(
            t.admit(&with(Some("Bearer ci-token"))),
            Admission::Proven(Arc::from("ci"))
        );
        assert_eq!(t.admit(&with(Some("Bearer wrong"))), Admission::Refused);
        assert_eq!(t.admit(&with(None)), Admission::Refused);

        let off = tokens(None, &[("ci", "ci-token")], false);
        assert_eq!(off.admit(&with(None)), Admission::Refused);
        assert_eq!(
            off.admit(&with(Some("Bearer ci-token"))),
            Admission::Proven(Arc::from("ci"))
        );
    }

    #[test]
    fn no_token_off_loopback_and_shared_tokens_refuse_to_start() {
        assert!(matches!(
            Tokens::new(None, Vec::new(), ANY.parse().unwrap()),
            Err(HttpError::NeedsToken { .. })
        ));
        let shared = vec![(Arc::from("ci"), Box::from("sh4red"))];
        let err =
            Tokens::new(Some(Box::from("sh4red")), shared, LOOPBACK.parse().unwrap()).unwrap_err();
        let said = err.to_string();
        assert!(
            said.contains("[serve.clients.ci] token_env")
                && said.contains("[serve] token_env")
                && !said.contains("sh4red"),
            "{said}"
        );
    }

    #[test]
    fn debug_never_shows_a_token() {
        let t = tokens(Some("g-secret"), &[("ci", "c-secret")], true);
        let shown = format!("{t:?}");
        assert!(!shown.contains("secret") && shown.contains("ci"), "{shown}");
    }
}
