//! What an HTTP provider needs to send a request: client, base URL, key, model, knobs.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::error::LlmError;
use super::message::RequestOptions;
use super::retry::RetryPolicy;

/// An HTTP provider's settings. The API key is never printed (`Debug` hides it).
#[derive(Clone)]
pub struct Endpoint {
    pub client: reqwest::Client,
    /// Without a trailing slash.
    pub base_url: String,
    pub api_key: String,
    pub model: String,
    /// Extra headers from `[providers.NAME] headers`.
    pub headers: HeaderMap,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    pub retry: RetryPolicy,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &"<hidden>")
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// An endpoint with a fresh client (`timeout` bounds connecting and each read).
    pub fn new(
        provider: &str,
        base_url: &str,
        api_key: impl Into<String>,
        model: impl Into<String>,
        timeout: Option<Duration>,
    ) -> Result<Self, LlmError> {
        let timeout = timeout.unwrap_or(Duration::from_secs(120));
        let client = crate::tls::client_builder()
            .connect_timeout(timeout.min(Duration::from_secs(30)))
            .read_timeout(timeout)
            .build()
            .map_err(|e| LlmError::config(provider, format!("cannot build HTTP client: {e}")))?;
        Ok(Self {
            client,
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key: api_key.into(),
            model: model.into(),
            headers: HeaderMap::new(),
            max_tokens: None,
            temperature: None,
            retry: RetryPolicy::default(),
        })
    }

    /// Adds configured headers; a bad name or value is a config error.
    pub fn with_headers(
        mut self,
        provider: &str,
        headers: &BTreeMap<String, String>,
    ) -> Result<Self, LlmError> {
        for (name, value) in headers {
            let bad = |what: &str| LlmError::config(provider, format!("bad header {what}: {name}"));
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("name"))?;
            let value = HeaderValue::from_str(value).map_err(|_| bad("value"))?;
            self.headers.insert(name, value);
        }
        Ok(self)
    }

    #[must_use]
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The model, max tokens and temperature for a request (request options win).
    pub fn resolve(&self, options: &RequestOptions) -> RequestOptions {
        RequestOptions {
            model: Some(options.model.clone().unwrap_or_else(|| self.model.clone())),
            max_tokens: options.max_tokens.or(self.max_tokens),
            temperature: options.temperature.or(self.temperature),
        }
    }

    /// The configured headers plus `extra` (extra wins); values that are not valid
    /// header text are skipped.
    pub fn header_map(&self, extra: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = self.headers.clone();
        for (name, value) in extra {
            if let Ok(mut value) = HeaderValue::from_str(value) {
                value.set_sensitive(true);
                map.insert(*name, value);
            }
        }
        map
    }
}
