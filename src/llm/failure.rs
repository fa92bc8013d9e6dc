//! Reading a provider's error body: the message, the error code and any retry hint.

use std::time::Duration;

use serde_json::Value;

use super::retry::parse_retry_delay;

/// What an error body says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorBody {
    pub message: Option<String>,
    /// `code`, else `type`, else `status` of the error object.
    pub code: Option<String>,
    /// Gemini's `RetryInfo.retryDelay`.
    pub retry_delay: Option<Duration>,
}

/// Parses the OpenAI (`{"error":{message,type,code}}`), Anthropic
/// (`{"type":"error","error":{type,message}}`) and Gemini
/// (`{"error":{code,message,status,details}}`, possibly inside an array) shapes.
pub fn parse_error_body(text: &str) -> ErrorBody {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        let trimmed = text.trim();
        return ErrorBody {
            message: (!trimmed.is_empty()).then(|| shorten(trimmed)),
            ..ErrorBody::default()
        };
    };
    let value = match value {
        Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
        other => other,
    };
    let error = value.get("error").unwrap_or(&value);
    error_object(error)
}

/// Reads one error object (`{message, type|code|status, details}`).
pub fn error_object(error: &Value) -> ErrorBody {
    let string = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_owned);
    let message = string("message").or_else(|| error.as_str().map(str::to_owned));
    let code = string("code")
        .or_else(|| string("type"))
        .or_else(|| string("status"));
    let retry_delay = error
        .get("details")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find_map(|d| d.get("retryDelay").and_then(Value::as_str))
        .and_then(parse_retry_delay);
    ErrorBody {
        message,
        code,
        retry_delay,
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 500;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let openai = parse_error_body(
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        );
        assert_eq!(openai.code.as_deref(), Some("insufficient_quota"));
        let anthropic = parse_error_body(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(anthropic.code.as_deref(), Some("overloaded_error"));
        assert_eq!(anthropic.message.as_deref(), Some("Overloaded"));
        let gemini = parse_error_body(
            r#"[{"error":{"code":429,"message":"Quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}]"#,
        );
        assert_eq!(gemini.code.as_deref(), Some("RESOURCE_EXHAUSTED"));
        assert_eq!(gemini.retry_delay, Some(Duration::from_secs(2)));
        assert_eq!(
            parse_error_body("Bad Gateway").message.as_deref(),
            Some("Bad Gateway")
        );
    }
}
