//! When and how long to wait before retrying a failed request.
//!
//! Retry 408, 409, 429 and 5xx (529 too: Anthropic's "overloaded") unless
//! `x-should-retry` says otherwise or the error is OpenAI's `insufficient_quota` (a 429
//! that no wait fixes); wait `retry-after-ms`, else `retry-after` (seconds or an HTTP
//! date, RFC 9110 §10.2.3) when under two minutes, else the provider's body hint
//! (Gemini's `google.rpc.RetryInfo.retryDelay`), else 0.5 s·2ⁿ capped at 8 s with
//! jitter. These are the rules the official OpenAI and Anthropic SDKs follow.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::BuildHasher;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures::future::BoxFuture;
use reqwest::header::HeaderMap;

/// Sleeps for a duration; injectable so tests never wait.
pub type SleepFn = Arc<dyn Fn(Duration) -> BoxFuture<'static, ()> + Send + Sync>;

/// The longest server-requested delay we honour.
const MAX_SERVER_DELAY: Duration = Duration::from_secs(120);

/// How often and how long to retry.
#[derive(Clone)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base: Duration,
    pub cap: Duration,
    pub jitter: bool,
    sleep: SleepFn,
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_retries", &self.max_retries)
            .field("base", &self.base)
            .field("cap", &self.cap)
            .field("jitter", &self.jitter)
            .finish_non_exhaustive()
    }
}

impl Default for RetryPolicy {
    /// 2 retries, 0.5 s·2ⁿ capped at 8 s, with jitter, sleeping on tokio's timer.
    fn default() -> Self {
        Self {
            max_retries: 2,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(8),
            jitter: true,
            sleep: Arc::new(|d| Box::pin(tokio::time::sleep(d))),
        }
    }
}

impl RetryPolicy {
    /// The same policy sleeping with `sleep` (tests record the delays instead).
    #[must_use]
    pub fn with_sleep(mut self, sleep: SleepFn) -> Self {
        self.sleep = sleep;
        self
    }

    #[must_use]
    pub fn with_max_retries(mut self, n: u32) -> Self {
        self.max_retries = n;
        self
    }

    #[must_use]
    pub fn without_jitter(mut self) -> Self {
        self.jitter = false;
        self
    }

    /// The backoff before retry number `attempt` (0-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt);
        let plain = self.base.saturating_mul(factor).min(self.cap);
        if self.jitter {
            // Up to a quarter shorter, so clients that failed together spread out.
            let r = RandomState::new().hash_one(attempt) % 1000;
            plain.mul_f64(1.0 - 0.25 * (f64::from(u32::try_from(r).unwrap_or(0)) / 1000.0))
        } else {
            plain
        }
    }

    pub async fn sleep(&self, delay: Duration) {
        (self.sleep)(delay).await;
    }
}

/// 408, 409, 429 and every 5xx.
pub fn status_is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..600).contains(&status)
}

/// The `x-should-retry` header, when it says `true` or `false`.
pub fn should_retry_header(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The delay the server asks for in `retry-after-ms` or `retry-after`, if under two
/// minutes.
pub fn header_delay(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|t| t.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0)).filter(|d| *d < MAX_SERVER_DELAY);
    }
    let after = text("retry-after")?.trim();
    let delay = match after.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Duration::from_secs_f64(secs),
        Ok(_) => return None,
        Err(_) => httpdate::parse_http_date(after)
            .ok()?
            .duration_since(now)
            .unwrap_or_default(),
    };
    Some(delay).filter(|d| *d < MAX_SERVER_DELAY)
}

/// Gemini's `retryDelay` (`"37s"`, `"1.5s"`), if under two minutes.
pub fn parse_retry_delay(text: &str) -> Option<Duration> {
    let secs: f64 = text.trim().strip_suffix('s')?.parse().ok()?;
    (secs.is_finite() && secs >= 0.0)
        .then(|| Duration::from_secs_f64(secs))
        .filter(|d| *d < MAX_SERVER_DELAY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_doubles_and_caps() {
        let p = RetryPolicy::default().without_jitter();
        assert_eq!(p.backoff(0), Duration::from_millis(500));
        assert_eq!(p.backoff(1), Duration::from_secs(1));
        assert_eq!(p.backoff(5), Duration::from_secs(8));
        let j = RetryPolicy::default().backoff(2);
        assert!(j <= Duration::from_secs(2) && j >= Duration::from_millis(1500));
    }

    #[test]
    fn retryable_statuses() {
        for s in [408, 409, 429, 500, 503, 529] {
            assert!(status_is_retryable(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!status_is_retryable(s), "{s}");
        }
    }

    #[test]
    fn header_delays() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(header_delay(&h, now), Some(Duration::from_secs(3)));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(header_delay(&h, now), Some(Duration::from_millis(250)));
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("600"));
        assert_eq!(header_delay(&h, now), None);
        let date = httpdate::fmt_http_date(now + Duration::from_secs(5));
        h.insert("retry-after", HeaderValue::from_str(&date).unwrap());
        assert_eq!(header_delay(&h, now), Some(Duration::from_secs(5)));
        h.insert("x-should-retry", HeaderValue::from_static("false"));
        assert_eq!(should_retry_header(&h), Some(false));
    }

    #[test]
    fn gemini_delay() {
        assert_eq!(parse_retry_delay("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_retry_delay("300s"), None);
        assert_eq!(parse_retry_delay("soon"), None);
    }
}
