//! The `http` tool: requests to allow-listed hosts, https only by default, no system
//! proxy, redirects off or re-checked hop by hop, request and response size caps.

use std::error::Error as _;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Client, Method, redirect};
use serde_json::{Map, Value, json};

use super::args::{self, ArgError};
use super::http_rules::{HttpRuleError, HttpRules};
use crate::config::HttpToolConfig;
use crate::gate::Preview;
use crate::tools::builtin_specs::http_spec;
use crate::tools::{PrecheckError, Tool, ToolContext, ToolError, ToolResult, ToolSpec};

/// The most redirect hops followed (each one re-checked).
pub const MAX_REDIRECTS: usize = 10;

/// Why an `http` call failed.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(transparent)]
    Arg(#[from] ArgError),
    #[error(transparent)]
    Rule(#[from] HttpRuleError),
    #[error("refused: invalid value for header `{0}`")]
    HeaderValue(String),
    #[error("request failed: {0}")]
    Request(String),
}

/// A request that passed every rule.
struct Checked {
    method: Method,
    url: reqwest::Url,
    headers: HeaderMap,
    body: Option<String>,
}

/// HTTP requests under `[tools.http]` rules.
#[derive(Debug)]
pub struct HttpTool {
    spec: ToolSpec,
    config: HttpToolConfig,
    rules: HttpRules,
    client: OnceLock<Result<Client, reqwest::Error>>,
}

impl HttpTool {
    pub fn new(config: HttpToolConfig) -> Result<Self, ToolError> {
        Ok(Self {
            spec: http_spec(),
            rules: HttpRules::new(&config),
            config,
            client: OnceLock::new(),
        })
    }

    /// The client, built on the first request: building one loads the system's root
    /// certificates (a file each), which would otherwise delay the TUI's first frame.
    fn client(&self) -> Result<&Client, HttpError> {
        self.client
            .get_or_init(|| self.build_client())
            .as_ref()
            .map_err(|e| HttpError::Request(format!("cannot build the HTTP client: {e}")))
    }

    fn build_client(&self) -> Result<Client, reqwest::Error> {
        let policy = if self.config.follow_redirects {
            let hop_rules = self.rules.clone();
            redirect::Policy::custom(move |attempt| {
                if attempt.previous().len() >= MAX_REDIRECTS {
                    return attempt.error(HttpRuleError::TooManyRedirects(MAX_REDIRECTS));
                }
                match hop_rules.check_url(attempt.url()) {
                    Ok(()) => attempt.follow(),
                    Err(reason) => {
                        let url = attempt.url().to_string();
                        attempt.error(HttpRuleError::Redirect {
                            url,
                            reason: Box::new(reason),
                        })
                    }
                }
            })
        } else {
            redirect::Policy::none()
        };
        crate::tls::client_builder()
            .no_proxy()
            .redirect(policy)
            .timeout(Duration::from_secs(self.config.timeout_secs))
            .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
            .build()
    }

    fn check(&self, args: &Map<String, Value>) -> Result<Checked, HttpError> {
        let url = self.rules.url(args::string(args, "url")?)?;
        let method = self
            .rules
            .method(args::optional_string(args, "method")?.unwrap_or("GET"))?;
        let method = Method::from_bytes(method.as_bytes())
            .map_err(|_| HttpError::Request(format!("invalid method {method}")))?;
        let mut headers = HeaderMap::new();
        for (name, value) in args::string_map(args, "headers")? {
            self.rules.header(&name)?;
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| HttpError::HeaderValue(name.clone()))?;
            let value =
                HeaderValue::from_str(&value).map_err(|_| HttpError::HeaderValue(name.clone()))?;
            headers.insert(header, value);
        }
        let body = args::optional_string(args, "body")?.map(str::to_owned);
        if let Some(body) = &body {
            self.rules.body(body)?;
        }
        Ok(Checked {
            method,
            url,
            headers,
            body,
        })
    }

    async fn send(&self, checked: Checked) -> Result<ToolResult, HttpError> {
        let mut request = self
            .client()?
            .request(checked.method, checked.url)
            .headers(checked.headers);
        if let Some(body) = checked.body {
            request = request.body(body);
        }
        let mut response = request.send().await.map_err(|e| describe(&e))?;
        let status = response.status();
        let mut head = format!("HTTP {status}\n");
        for name in ["content-type", "content-length", "location"] {
            if let Some(value) = response.headers().get(name).and_then(|v| v.to_str().ok()) {
                let _ = writeln!(head, "{name}: {value}");
            }
        }
        if status.is_redirection() && !self.config.follow_redirects {
            head.push_str("[redirect not followed: [tools.http] follow_redirects = false]\n");
        }
        let cap = usize::try_from(self.config.max_response_bytes).unwrap_or(usize::MAX);
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e))? {
            let room = cap - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        drop(response);
        let mut text = head;
        text.push('\n');
        text.push_str(&String::from_utf8_lossy(&body));
        if truncated {
            let _ = write!(
                text,
                "\n[response truncated: stopped reading at {cap} bytes ([tools.http] max_response_bytes)]"
            );
        }
        let mut result = if status.is_client_error() || status.is_server_error() {
            ToolResult::error(text)
        } else {
            ToolResult::text(text)
        };
        result.structured = Some(json!({
            "status": status.as_u16(),
            "truncated": truncated,
            "bytes": body.len(),
        }));
        Ok(result)
    }
}

/// A reqwest error with its causes, so a refused redirect says which rule refused.
fn describe(e: &reqwest::Error) -> HttpError {
    let mut source = e.source();
    while let Some(cause) = source {
        if let Some(rule) = cause.downcast_ref::<HttpRuleError>() {
            return HttpError::Rule(rule.clone());
        }
        source = cause.source();
    }
    let mut text = crate::tls::error_chain(e);
    if e.is_timeout() {
        text.push_str(" ([tools.http] timeout_secs)");
    }
    HttpError::Request(text)
}

#[async_trait::async_trait]
impl Tool for HttpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, args: Map<String, Value>, _ctx: &ToolContext) -> ToolResult {
        let outcome = match self.check(&args) {
            Ok(checked) => self.send(checked).await,
            Err(e) => Err(e),
        };
        outcome.unwrap_or_else(|e| ToolResult::error(e.to_string()))
    }

    fn precheck(&self, args: &Map<String, Value>) -> Result<(), PrecheckError> {
        self.check(args).map(|_| ()).map_err(PrecheckError::from)
    }

    fn preview(&self, args: &Map<String, Value>) -> Option<Preview> {
        let url = args.get("url")?.as_str()?.to_owned();
        let method = args
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("GET")
            .to_ascii_uppercase();
        Some(Preview::Url { method, url })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Registering the tool (at every start) must not load the root certificates.
    #[test]
    fn the_client_is_built_on_the_first_request_only() {
        let tool = HttpTool::new(HttpToolConfig::default()).unwrap();
        assert!(tool.client.get().is_none());
        assert!(tool.client().is_ok());
        assert!(tool.client.get().is_some_and(Result::is_ok));
    }
}
