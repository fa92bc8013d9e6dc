//! What to say when a server publishes no OAuth metadata and its 2025-03-26 default
//! endpoints fail too: which metadata URLs were asked and what each answered.
//!
//! rmcp asks the same URLs, in this order, but keeps their answers to itself: the
//! protected resource metadata (RFC 9728 §3.1; path-aware, path-appended, root), then
//! the authorization server's (RFC 8414 §3.1, OpenID Connect Discovery 1.0 §4; the
//! order of <https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization>
//! "Authorization Server Metadata Discovery"). They are asked again only on this
//! failure path, so a working login pays nothing for the report.

use std::time::Duration;

use reqwest::Url;

use crate::mcp::error::untrusted;

/// How long one probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The metadata URLs discovery asks for a server at `resource`, in order.
pub fn metadata_urls(resource: &Url) -> Vec<Url> {
    let trimmed = resource.path().trim_matches('/');
    let mut paths = Vec::new();
    let mut push = |p: String| {
        if !paths.contains(&p) {
            paths.push(p);
        }
    };
    if !trimmed.is_empty() {
        push(format!("/.well-known/oauth-protected-resource/{trimmed}"));
        push(format!("/{trimmed}/.well-known/oauth-protected-resource"));
    }
    push("/.well-known/oauth-protected-resource".into());
    if trimmed.is_empty() {
        push("/.well-known/oauth-authorization-server".into());
        push("/.well-known/openid-configuration".into());
    } else {
        push(format!("/.well-known/oauth-authorization-server/{trimmed}"));
        push(format!("/.well-known/openid-configuration/{trimmed}"));
        push(format!("/{trimmed}/.well-known/openid-configuration"));
        push("/.well-known/oauth-authorization-server".into());
    }
    paths
        .into_iter()
        .map(|p| {
            let mut url = resource.clone();
            url.set_query(None);
            url.set_fragment(None);
            url.set_path(&p);
            url
        })
        .collect()
}

/// Each URL with what a GET of it answered: a status code, or why there was none.
pub async fn probe(urls: &[Url]) -> Vec<(Url, String)> {
    let client = match crate::tls::client_builder().timeout(PROBE_TIMEOUT).build() {
        Ok(c) => c,
        Err(e) => {
            let why = crate::tls::error_chain(&e);
            return urls.iter().map(|u| (u.clone(), why.clone())).collect();
        }
    };
    let answers = urls.iter().map(|url| {
        let client = client.clone();
        async move {
            let answer = match client.get(url.clone()).send().await {
                Ok(r) => r.status().as_u16().to_string(),
                Err(e) if e.is_timeout() => "no answer".to_string(),
                Err(e) => crate::tls::error_chain(&e),
            };
            (url.clone(), answer)
        }
    });
    futures::future::join_all(answers).await
}

/// The sentence for a login that fell back to the default endpoints and failed there.
pub fn sentence(answers: &[(Url, String)], registration: &Url, failure: &str) -> String {
    let asked = answers
        .iter()
        .map(|(url, answer)| {
            format!(
                "{} → {}",
                untrusted(url.as_str(), 200),
                untrusted(answer, 100)
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "the server publishes no OAuth metadata ({asked}), so the 2025-03-26 default \
         endpoints were tried, and client registration at {} failed: {}",
        untrusted(registration.as_str(), 200),
        untrusted(&http_status(failure), 300)
    )
}

/// rmcp's registration failure (`Dynamic registration failed: Registration failed:
/// HTTP 404 Not Found: <body>`) as the status and the start of the body.
fn http_status(failure: &str) -> String {
    let Some(at) = failure.find("HTTP ") else {
        return failure.to_owned();
    };
    let (status, body) = failure[at..]
        .split_once(':')
        .unwrap_or((&failure[at..], ""));
    let body = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if body.is_empty() {
        status.to_owned()
    } else {
        format!("{status} ({})", untrusted(&body, 80))
    }
}

/// The default registration endpoint of the 2025-03-26 fallback: `/register` at the
/// server's origin.
pub fn default_registration(resource: &Url) -> Url {
    let mut url = resource.clone();
    url.set_query(None);
    url.set_fragment(None);
    url.set_path("/register");
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(url: &str) -> Vec<String> {
        let url = Url::parse(url).unwrap();
        metadata_urls(&url)
            .iter()
            .map(|u| u.path().to_owned())
            .collect()
    }

    #[test]
    fn a_root_server_has_three_urls_a_path_seven() {
        assert_eq!(
            paths("https://h.example/?x=1"),
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-authorization-server",
                "/.well-known/openid-configuration",
            ]
        );
        assert_eq!(paths("https://h.example/a/mcp/").len(), 7);
        assert_eq!(
            paths("https://h.example/a/mcp")[0],
            "/.well-known/oauth-protected-resource/a/mcp"
        );
    }

    #[test]
    fn the_sentence_names_every_url_and_answer() {
        let url = Url::parse("https://h.example/mcp").unwrap();
        let answers: Vec<(Url, String)> = metadata_urls(&url)
            .into_iter()
            .map(|u| (u, "404".to_string()))
            .collect();
        let text = sentence(
            &answers,
            &default_registration(&url),
            "Registration failed: HTTP 404 Not Found: ",
        );
        assert!(
            text.starts_with(
                "the server publishes no OAuth metadata (https://h.example/.well-known/oauth-protected-resource/mcp → 404, "
            ),
            "{text}"
        );
        assert!(
            text.ends_with(
                "client registration at https://h.example/register failed: HTTP 404 Not Found"
            ),
            "{text}"
        );
    }

    #[test]
    fn rmcps_registration_failure_is_cut_to_its_status_and_the_start_of_the_body() {
        assert_eq!(
            http_status("Dynamic registration failed: Registration failed: HTTP 404 Not Found: "),
            "HTTP 404 Not Found"
        );
        let html = format!(
            "Registration failed: HTTP 501 Not Implemented: <html>\n  <p>{}</p>",
            "x".repeat(200)
        );
        let cut = http_status(&html);
        assert!(
            cut.starts_with("HTTP 501 Not Implemented (<html> <p>xxx"),
            "{cut}"
        );
        assert!(cut.ends_with("… [truncated])"), "{cut}");
        assert_eq!(http_status("connection reset"), "connection reset");
    }
}
