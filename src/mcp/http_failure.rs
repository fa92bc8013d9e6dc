//! Saying why a Streamable HTTP server could not be reached in terms a person can act
//! on: the HTTP status, the server's own error text and a hint (401 → it needs
//! authorization; connection refused → the URL), instead of the transport library's
//! internal type names. rmcp drops the status and body of a failed `initialize`, so
//! on failure the same request is sent once more here to read them.

use std::time::Duration;

use reqwest::header::{ACCEPT, HeaderMap};
use serde_json::json;

use super::error::untrusted;

/// How long the diagnostic request may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// Bytes of the server's error body read, at most.
const BODY_BYTES: usize = 4096;

/// Why connecting to `url` failed; `rmcp_error` is what the transport said.
pub async fn describe(url: &str, headers: HeaderMap, rmcp_error: &str) -> String {
    let fallback = without_type_names(rmcp_error);
    let Ok(client) = crate::tls::client_builder().timeout(PROBE_TIMEOUT).build() else {
        return fallback;
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "switchboard", "version": env!("CARGO_PKG_VERSION")}}});
    let sent = client
        .post(url)
        .headers(headers)
        .header(ACCEPT, "application/json, text/event-stream")
        .json(&initialize)
        .send()
        .await;
    let mut response = match sent {
        Err(e) if e.is_connect() => {
            return format!(
                "cannot connect to {}: connection refused or host unreachable; check the URL and that the server is running",
                untrusted(url, 200)
            );
        }
        Err(e) if e.is_timeout() => {
            return format!(
                "no answer from {} within {}s",
                untrusted(url, 200),
                PROBE_TIMEOUT.as_secs()
            );
        }
        Err(_) => return fallback,
        Ok(r) => r,
    };
    let status = response.status();
    if status.is_success() {
        return fallback;
    }
    let mut body = Vec::new();
    while body.len() < BODY_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(BODY_BYTES);
    let text = untrusted(&String::from_utf8_lossy(&body), 300);
    let mut out = format!("HTTP {status}");
    if !text.is_empty() {
        out.push_str(": ");
        out.push_str(&text);
    }
    if let Some(hint) = hint(status.as_u16()) {
        out.push_str(" (");
        out.push_str(hint);
        out.push(')');
    }
    out
}

fn hint(status: u16) -> Option<&'static str> {
    Some(match status {
        401 => {
            "the server needs authorization: set `bearer_token_env_var` or an Authorization header for it"
        }
        403 => "the server refused these credentials",
        404 => "no MCP endpoint at this URL: check the path (often /mcp)",
        405 => {
            "this URL does not accept MCP requests: check the path, or `type = \"sse\"` for a legacy server"
        }
        429 => "rate limited: try again later",
        500..=599 => "the server failed",
        _ => return None,
    })
}

/// rmcp's message without the Rust type names it carries
/// (`Transport [rmcp::transport::worker::WorkerTransport<…>] error: …`).
pub fn without_type_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("[rmcp::") {
        out.push_str(rest[..start].trim_end());
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, c) in rest[start..].char_indices() {
            match c {
                '[' | '<' => depth += 1,
                ']' | '>' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = start + i + c.len_utf8();
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    untrusted(&out, 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmcp_type_names_are_dropped() {
        let text = "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::transport::streamable_http_client::StreamableHttpClientWorker<reqwest::async_impl::client::Client>>] error: Auth required, when send initialize request";
        assert_eq!(
            without_type_names(text),
            "Send message error Transport error: Auth required, when send initialize request"
        );
        assert_eq!(without_type_names("plain"), "plain");
    }
}
