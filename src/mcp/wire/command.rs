//! "Copy as command": the `switchboard call` / `read` / `prompt` line that repeats a
//! captured request to a server, every word quoted for a POSIX shell.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{Direction, Kind, Side, WireEntry};

/// The request a response or error answered: the latest earlier request of the same
/// peer and side with the same id, going the other way.
pub fn request_of<'a>(
    response: &WireEntry,
    log: impl DoubleEndedIterator<Item = &'a Arc<WireEntry>>,
) -> Option<&'a Arc<WireEntry>> {
    let id = response.id.as_ref()?;
    log.rev().find(|e| {
        e.seq < response.seq
            && e.kind == Kind::Request
            && e.side == response.side
            && e.direction != response.direction
            && e.peer == response.peer
            && e.id.as_ref() == Some(id)
    })
}

/// Why no command repeats a captured message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepeatError {
    /// Not a request, or a method no command sends.
    #[error("no command repeats {method}")]
    Method { method: String },
    /// A request a client sent to switchboard, not one switchboard sent a server.
    #[error("no command repeats {method}: {peer} sent it to switchboard")]
    Downstream { method: String, peer: String },
    #[error("the call names no tool")]
    NoTool,
    #[error("the read names no URI")]
    NoUri,
    #[error("the request names no prompt")]
    NoPrompt,
    #[error("a prompt argument's name holds `=` or starts with `-`: no -a KEY=VALUE can pass it")]
    PromptArgumentName,
    #[error("its arguments are not a JSON object")]
    ArgumentsNotObject,
    #[error("a value holds a NUL byte, which no shell word can")]
    Nul,
}

/// The command line that repeats `request`, or why there is none.
pub fn repeat(request: &WireEntry) -> Result<String, RepeatError> {
    let method = request.method.as_deref().unwrap_or("this message");
    let unrepeatable = || RepeatError::Method {
        method: method.to_owned(),
    };
    if request.kind != Kind::Request {
        return Err(unrepeatable());
    }
    if request.side != Side::Upstream || request.direction != Direction::Sent {
        return Err(RepeatError::Downstream {
            method: method.to_owned(),
            peer: request.peer.to_string(),
        });
    }
    let params = request.message.get("params").unwrap_or(&Value::Null);
    let text = |key: &str| params.get(key).and_then(Value::as_str);
    let server = &*request.peer;
    let words = match method {
        "tools/call" => {
            let tool = text("name").ok_or(RepeatError::NoTool)?;
            let mut words = vec!["call".into(), server.into(), tool.into()];
            words.extend(call_arguments(params.get("arguments"))?);
            words
        }
        "resources/read" => {
            let uri = text("uri").ok_or(RepeatError::NoUri)?;
            vec!["read".into(), server.into(), uri.into()]
        }
        "prompts/get" => {
            let name = text("name").ok_or(RepeatError::NoPrompt)?;
            let mut words = vec!["prompt".into(), server.into(), name.into()];
            if let Some(args) = object(params.get("arguments"))? {
                words.extend(dash_a(args).ok_or(RepeatError::PromptArgumentName)?);
            }
            words
        }
        _ => return Err(unrepeatable()),
    };
    quote_line(&words)
}

/// `-a KEY=VALUE …` when every name allows it, else `--args JSON`.
fn call_arguments(arguments: Option<&Value>) -> Result<Vec<String>, RepeatError> {
    let Some(args) = object(arguments)? else {
        return Ok(Vec::new());
    };
    Ok(dash_a(args)
        .unwrap_or_else(|| vec!["--args".into(), Value::Object(args.clone()).to_string()]))
}

fn object(arguments: Option<&Value>) -> Result<Option<&Map<String, Value>>, RepeatError> {
    match arguments {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) if map.is_empty() => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(_) => Err(RepeatError::ArgumentsNotObject),
    }
}

/// `-a KEY=VALUE` pairs that `key_values` reads back to the same arguments: a string
/// as it is when it would not parse as JSON, anything else as JSON text. `None` when a
/// name cannot be written so.
fn dash_a(args: &Map<String, Value>) -> Option<Vec<String>> {
    let mut words = Vec::with_capacity(args.len() * 2);
    for (key, value) in args {
        if key.is_empty() || key.contains('=') || key.starts_with('-') {
            return None;
        }
        let text = match value {
            Value::String(s) if crate::tools::parse_value(s) == *value => s.clone(),
            other => other.to_string(),
        };
        words.push("-a".into());
        words.push(format!("{key}={text}"));
    }
    Some(words)
}

/// `switchboard WORD…`, each word quoted only when a shell would change it.
fn quote_line(words: &[String]) -> Result<String, RepeatError> {
    let mut line = String::from("switchboard");
    for word in words {
        line.push(' ');
        if plain(word) {
            line.push_str(word);
        } else {
            let quoted = shlex::try_quote(word).map_err(|_| RepeatError::Nul)?;
            line.push_str(&quoted);
        }
    }
    Ok(line)
}

/// A word no POSIX shell (nor zsh's `=cmd`) expands or splits.
fn plain(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('=')
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || "_@%+=:,./-".contains(c)
                || (!c.is_ascii() && c.is_alphanumeric())
        })
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
