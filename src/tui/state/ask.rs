//! What servers ask the person, queued: an elicitation form, a URL to open, or a
//! sampling request to approve.

use crate::sanitize::sanitize_line;

use super::elicit::ElicitForm;
use super::sampling::SampleCard;

/// The executor's number for a question (its reply channel is kept there).
pub type AskId = u64;

/// One question from a server. Text is sanitised when it enters the state.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingAsk {
    pub id: AskId,
    pub server: String,
    /// Why the server asks.
    pub message: String,
    pub view: AskView,
    /// The server waits for the answer. A page that a failed request named
    /// (URLElicitationRequiredError) has nobody waiting: the card only offers it.
    pub waits: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AskView {
    Form(ElicitForm),
    Url(UrlAsk),
    Sample(Box<SampleCard>),
}

/// A URL-mode elicitation: the page is opened or copied only when the person says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlAsk {
    /// Exactly as sent (opened or copied, never drawn).
    pub raw: String,
    /// The URL as drawn (sanitised).
    pub shown: String,
    /// The host, emphasised on screen (IDN hosts in their ASCII form); `None` when the
    /// URL does not parse.
    pub host: Option<String>,
    /// `http` or `https`: only those are opened.
    pub web: bool,
}

impl UrlAsk {
    pub fn new(raw: &str) -> Self {
        let parsed = reqwest::Url::parse(raw).ok();
        Self {
            raw: raw.to_owned(),
            shown: sanitize_line(raw),
            host: parsed
                .as_ref()
                .and_then(|u| u.host_str().map(sanitize_line)),
            web: parsed.is_some_and(|u| matches!(u.scheme(), "http" | "https")),
        }
    }
}
