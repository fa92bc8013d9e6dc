//! Per-server limits and timeouts. Defaults: 30 s a request, 15 s to connect and
//! initialise, 10 s to close; at most 20 pages, 1,000 items, 256 content blocks and
//! 200,000 characters of result text. Past a limit the error names it; nothing is cut
//! silently.

use std::time::Duration;

use crate::config::ServerConfig;

/// How long to wait and how much to accept from one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connect + `initialize` (`startup_timeout`).
    pub startup_timeout: Duration,
    /// One request without a response or progress (`tool_timeout`).
    pub request_timeout: Duration,
    /// Closing the connection.
    pub close_timeout: Duration,
    pub max_pages: usize,
    pub max_items: usize,
    pub max_content_blocks: usize,
    pub max_result_chars: usize,
    /// Rounds of `input_required` answers one request may take (`[mcp]
    /// max_input_rounds`).
    pub max_input_rounds: u32,
    /// Without a request for this long, a started server is stopped
    /// (`idle_timeout`); none: it runs until the end.
    pub idle_timeout: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            startup_timeout: Duration::from_secs(15),
            request_timeout: Duration::from_secs(30),
            close_timeout: Duration::from_secs(10),
            max_pages: 20,
            max_items: 1_000,
            max_content_blocks: 256,
            max_result_chars: 200_000,
            max_input_rounds: 8,
            idle_timeout: None,
        }
    }
}

impl Limits {
    /// The defaults with the server's `startup_timeout` and `tool_timeout` applied.
    /// Non-positive or non-finite values keep the default.
    pub fn for_server(config: &ServerConfig) -> Self {
        let seconds = |value: Option<f64>, default: Duration| {
            value
                .filter(|s| s.is_finite() && *s > 0.0)
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
                .unwrap_or(default)
        };
        let base = Self::default();
        Self {
            startup_timeout: seconds(config.startup_timeout, base.startup_timeout),
            request_timeout: seconds(config.tool_timeout, base.request_timeout),
            idle_timeout: config
                .idle_timeout
                .filter(|s| s.is_finite() && *s > 0.0)
                .and_then(|s| Duration::try_from_secs_f64(s).ok()),
            ..base
        }
    }

    /// The largest single HTTP message (SSE event or JSON body) accepted: sized from the
    /// character limit (JSON escaping can grow text up to six times), at least 16 MiB,
    /// so that an oversized result reaches the typed character-limit error.
    pub fn max_message_bytes(&self) -> usize {
        self.max_result_chars
            .saturating_mul(6)
            .saturating_add(1 << 20)
            .max(16 << 20)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_overrides_timeouts() {
        let config = ServerConfig {
            startup_timeout: Some(2.5),
            tool_timeout: Some(-1.0),
            ..ServerConfig::default()
        };
        let limits = Limits::for_server(&config);
        assert_eq!(limits.startup_timeout, Duration::from_millis(2500));
        assert_eq!(limits.request_timeout, Duration::from_secs(30));
        assert!(limits.max_message_bytes() >= 16 << 20);
    }
}
