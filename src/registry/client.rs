//! The HTTP side: one page of `GET /v0.1/servers` and `GET
//! /v0.1/servers/{name}/versions/latest`, with errors that name the registry.

use std::time::Duration;

use reqwest::Url;
use serde::de::DeserializeOwned;

use super::RegistryError;
use super::types::{ListResponse, ServerResponse};

/// The most servers one page may hold (the API's upper bound).
pub const PAGE_LIMIT: u32 = 100;

/// What one list request asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageQuery<'a> {
    pub cursor: Option<&'a str>,
    /// Names containing this (the registry matches names only).
    pub search: Option<&'a str>,
    /// RFC 3339: only entries updated since then.
    pub updated_since: Option<&'a str>,
}

/// A client of one registry.
#[derive(Debug, Clone)]
pub struct Client {
    base: Url,
    http: reqwest::Client,
}

impl Client {
    /// A client for the registry at `base` (`https://registry.modelcontextprotocol.io`).
    pub fn new(base: &str) -> Result<Self, RegistryError> {
        let bad = |why: String| RegistryError::BadUrl {
            url: base.to_owned(),
            why,
        };
        let mut url = Url::parse(base).map_err(|e| bad(e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
            return Err(bad("not an http(s) URL".into()));
        }
        // `…/prefix` and `…/prefix/` both mean the folder the API sits in.
        if !url.path().ends_with('/') {
            let path = format!("{}/", url.path());
            url.set_path(&path);
        }
        let http = crate::tls::client_builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| bad(crate::tls::error_chain(&e)))?;
        Ok(Self { base: url, http })
    }

    /// The registry's URL as given (for messages).
    pub fn url(&self) -> &str {
        self.base.as_str().trim_end_matches('/')
    }

    /// One page of the latest version of every server.
    pub async fn page(&self, query: &PageQuery<'_>) -> Result<ListResponse, RegistryError> {
        let mut url = self.endpoint(&["v0.1", "servers"]);
        {
            let mut pairs = url.query_pairs_mut();
            pairs.append_pair("limit", &PAGE_LIMIT.to_string());
            pairs.append_pair("version", "latest");
            let optional = [
                ("cursor", query.cursor),
                ("search", query.search),
                ("updated_since", query.updated_since),
            ];
            for (key, value) in optional {
                if let Some(value) = value {
                    pairs.append_pair(key, value);
                }
            }
        }
        self.get(url, None).await
    }

    /// The latest version of the server `name` (`namespace/name`).
    pub async fn latest(&self, name: &str) -> Result<ServerResponse, RegistryError> {
        // One path segment: the `/` in the name is sent as `%2F`.
        let url = self.endpoint(&["v0.1", "servers", name, "versions", "latest"]);
        self.get(url, Some(name)).await
    }

    fn endpoint(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        url
    }

    async fn get<T: DeserializeOwned>(
        &self,
        url: Url,
        name: Option<&str>,
    ) -> Result<T, RegistryError> {
        let registry = self.url().to_owned();
        let unreachable = |e: &reqwest::Error| RegistryError::Unreachable {
            url: registry.clone(),
            why: crate::tls::error_chain(e),
        };
        let response = self
            .http
            .get(url)
            .send()
            .await
            .map_err(|e| unreachable(&e))?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| unreachable(&e))?;
        if status == reqwest::StatusCode::NOT_FOUND
            && let Some(name) = name
        {
            return Err(RegistryError::NotFound {
                url: registry,
                name: name.to_owned(),
            });
        }
        if !status.is_success() {
            return Err(RegistryError::Status {
                url: registry,
                status: status.as_u16(),
                message: error_message(&body),
            });
        }
        serde_json::from_slice(&body).map_err(|e| RegistryError::Decode {
            url: registry,
            why: e.to_string(),
        })
    }
}

/// The `{"error": …}` (or problem `detail`) of an error body, else its first line.
fn error_message(body: &[u8]) -> String {
    let json: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let field = json.as_ref().and_then(|j| {
        ["error", "detail", "title"]
            .iter()
            .find_map(|k| j.get(k).and_then(serde_json::Value::as_str))
            .map(str::to_owned)
    });
    let text = field.unwrap_or_else(|| {
        String::from_utf8_lossy(body)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    });
    text.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_path_segment_and_the_base_may_have_a_prefix() {
        let client = Client::new("https://r.example/api").unwrap();
        let url = client.endpoint(&[
            "v0.1",
            "servers",
            "com.example/my-server",
            "versions",
            "latest",
        ]);
        assert_eq!(
            url.as_str(),
            "https://r.example/api/v0.1/servers/com.example%2Fmy-server/versions/latest"
        );
        let plain = Client::new("https://registry.modelcontextprotocol.io").unwrap();
        assert_eq!(plain.url(), "https://registry.modelcontextprotocol.io");
        assert_eq!(
            plain.endpoint(&["v0.1", "servers"]).as_str(),
            "https://registry.modelcontextprotocol.io/v0.1/servers"
        );
        assert!(Client::new("ftp://x").is_err());
        assert!(Client::new("not a url").is_err());
    }

    #[test]
    fn error_bodies_give_their_message() {
        assert_eq!(
            error_message(br#"{"error":"Server not found"}"#),
            "Server not found"
        );
        assert_eq!(error_message(b"oops\nmore"), "oops");
    }
}
