//! Masking secrets at capture time: header values that carry credentials, JSON
//! members whose names say they hold one, and credentials inside URLs (userinfo,
//! and query parameters such as `access_token`, RFC 6750 §2.3).

use serde_json::{Map, Value};

use super::HttpFacts;

/// What a masked value becomes.
pub const MASK: &str = "***";

/// `true` when a header or member called `name` holds a credential.
pub fn is_secret_name(name: &str) -> bool {
    const EXACT: [&str; 9] = [
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "token",
        "bearer",
        "code_verifier",
        "assertion",
    ];
    const ENDINGS: [&str; 8] = [
        "_token", "-token", "secret", "password", "passwd", "apikey", "api_key", "api-key",
    ];
    let lower = name.to_ascii_lowercase();
    EXACT.contains(&lower.as_str()) || ENDINGS.iter().any(|end| lower.ends_with(end))
}

/// A copy of a JSON-RPC message with secrets masked. Error codes (`"code": -32602`)
/// are numbers and kept; only string values are masked.
pub fn message(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut out = Map::with_capacity(object.len());
            for (key, member) in object {
                let masked = match member {
                    Value::String(_) if is_secret_name(key) => Value::String(MASK.to_owned()),
                    other => message(other),
                };
                out.insert(key.clone(), masked);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(message).collect()),
        Value::String(text) => Value::String(url(text)),
        other => other.clone(),
    }
}

/// `text` with credentials in a URL masked: the password of `user:password@`, and
/// query parameters with secret names. Text that is not a URL comes back as it is.
pub fn url(text: &str) -> String {
    let Some(scheme_end) = text.find("://") else {
        return text.to_owned();
    };
    if text.len() > 8_192 || text[..scheme_end].contains(char::is_whitespace) {
        return text.to_owned();
    }
    let rest = &text[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..scheme_end + 3]);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            match userinfo.split_once(':') {
                Some((user, _)) => {
                    out.push_str(user);
                    out.push(':');
                    out.push_str(MASK);
                }
                None => out.push_str(userinfo),
            }
            out.push('@');
            out.push_str(host);
        }
        None => out.push_str(authority),
    }
    let tail = &rest[authority_end..];
    let Some(q) = tail.find('?') else {
        out.push_str(tail);
        return out;
    };
    out.push_str(&tail[..=q]);
    let query = &tail[q + 1..];
    let (query, fragment) = match query.find('#') {
        Some(h) => (&query[..h], &query[h..]),
        None => (query, ""),
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            // `code`: an OAuth authorization code (RFC 6749 §4.1.2).
            Some((name, _)) if is_secret_name(name) || name == "code" => {
                format!("{name}={MASK}")
            }
            _ => pair.to_owned(),
        })
        .collect();
    out.push_str(&pairs.join("&"));
    out.push_str(fragment);
    out
}

/// Header facts with credential values masked (`Bearer ***` keeps the scheme).
pub fn http(facts: HttpFacts) -> HttpFacts {
    let headers = facts
        .headers
        .into_iter()
        .map(|(name, value)| {
            let masked = if is_secret_name(&name) {
                match value.split_once(' ') {
                    Some((scheme, _)) if name.to_ascii_lowercase().contains("authorization") => {
                        format!("{scheme} {MASK}")
                    }
                    _ => MASK.to_owned(),
                }
            } else {
                url(&value)
            };
            (name, masked)
        })
        .collect();
    HttpFacts {
        status: facts.status,
        headers,
    }
}
