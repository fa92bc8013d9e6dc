//! The rules every HTTP request (and every redirect hop) must pass; each refusal says
//! which rule refused.

use reqwest::Url;

use crate::config::HttpToolConfig;

/// Which rule refused a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpRuleError {
    #[error("refused: {0:?} is not a valid URL: {1}")]
    BadUrl(String, String),
    #[error(
        "refused: http:// URLs are not allowed ([tools.http] allow_http = false); use https://"
    )]
    PlainHttp,
    #[error("refused: scheme `{0}` is not allowed; only https (and http when allow_http = true)")]
    Scheme(String),
    #[error("refused: the URL has no host")]
    NoHost,
    #[error("refused: URLs with user names or passwords are not allowed")]
    UserInfo,
    #[error(
        "refused: no hosts are allowed yet; add `allow_hosts = [\"{0}\"]` under [tools.http] in switchboard.toml to allow this one"
    )]
    NoHostsAllowed(String),
    #[error("refused: host `{0}` is not on [tools.http] allow_hosts")]
    Host(String),
    #[error("refused: method {method} is not on [tools.http] allow_methods (allowed: {allowed})")]
    Method { method: String, allowed: String },
    #[error("refused: header `{0}` is not on [tools.http] allow_headers")]
    Header(String),
    #[error("refused: the body is {size} bytes, more than [tools.http] max_request_bytes ({max})")]
    RequestTooLarge { size: u64, max: u64 },
    #[error("refused: redirected to {url}: {reason}")]
    Redirect { url: String, reason: Box<Self> },
    #[error("refused: more than {0} redirects")]
    TooManyRedirects(usize),
}

/// The scheme, host, method and header rules of `[tools.http]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRules {
    allow_hosts: Vec<String>,
    allow_http: bool,
    allow_methods: Vec<String>,
    allow_headers: Vec<String>,
    max_request_bytes: u64,
}

impl HttpRules {
    pub fn new(config: &HttpToolConfig) -> Self {
        Self {
            allow_hosts: config
                .allow_hosts
                .iter()
                .map(|h| h.to_ascii_lowercase())
                .collect(),
            allow_http: config.allow_http,
            allow_methods: config
                .allow_methods
                .iter()
                .map(|m| m.to_ascii_uppercase())
                .collect(),
            allow_headers: config
                .allow_headers
                .iter()
                .map(|h| h.to_ascii_lowercase())
                .collect(),
            max_request_bytes: config.max_request_bytes,
        }
    }

    /// Parses and checks a URL.
    pub fn url(&self, text: &str) -> Result<Url, HttpRuleError> {
        let url =
            Url::parse(text).map_err(|e| HttpRuleError::BadUrl(text.to_owned(), e.to_string()))?;
        self.check_url(&url)?;
        Ok(url)
    }

    /// Scheme, user info and host of `url`.
    pub fn check_url(&self, url: &Url) -> Result<(), HttpRuleError> {
        match url.scheme() {
            "https" => {}
            "http" if self.allow_http => {}
            "http" => return Err(HttpRuleError::PlainHttp),
            other => return Err(HttpRuleError::Scheme(other.to_owned())),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(HttpRuleError::UserInfo);
        }
        let host = url
            .host_str()
            .ok_or(HttpRuleError::NoHost)?
            .to_ascii_lowercase();
        if self.allow_hosts.is_empty() {
            return Err(HttpRuleError::NoHostsAllowed(host));
        }
        if !self.allow_hosts.contains(&host) {
            return Err(HttpRuleError::Host(host));
        }
        Ok(())
    }

    /// The method, upper-cased, if allowed.
    pub fn method(&self, method: &str) -> Result<String, HttpRuleError> {
        let method = method.to_ascii_uppercase();
        if self.allow_methods.contains(&method) {
            Ok(method)
        } else {
            Err(HttpRuleError::Method {
                method,
                allowed: self.allow_methods.join(", "),
            })
        }
    }

    pub fn header(&self, name: &str) -> Result<(), HttpRuleError> {
        if self.allow_headers.contains(&name.to_ascii_lowercase()) {
            Ok(())
        } else {
            Err(HttpRuleError::Header(name.to_owned()))
        }
    }

    pub fn body(&self, body: &str) -> Result<(), HttpRuleError> {
        let size = body.len() as u64;
        if size > self.max_request_bytes {
            return Err(HttpRuleError::RequestTooLarge {
                size,
                max: self.max_request_bytes,
            });
        }
        Ok(())
    }
}
