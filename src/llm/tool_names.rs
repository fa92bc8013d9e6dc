//! Provider-safe tool names. OpenAI, Anthropic, Gemini, Cohere and Bedrock accept
//! function names of at most 64 characters from `[A-Za-z0-9_-]` (Gemini also wants a
//! letter or `_` first);
//! an MCP server may offer any name (`server__get.weather/v2`, 200 characters). Such
//! a name is declared as a safe one (its cleaned start plus a short hash of the whole
//! name) and calls to it are mapped back; a name that is already safe is sent as is.
//! The mapping depends only on the name, so it is the same in every request, and a
//! [`ToolNames`] table makes it unique within one request.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use super::error::LlmError;
use super::event::LlmEvent;
use super::transport::StreamDecoder;

/// The longest name every provider accepts.
pub const MAX_NAME: usize = 64;

/// Whether every provider accepts `name` as it is.
pub fn is_provider_safe(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.len() <= MAX_NAME
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The name declared to providers for the tool `name`: `name` itself when it is safe,
/// else its start with other characters as `_`, `_`, and `hash_len` hex digits of its
/// SHA-256 — at most [`MAX_NAME`] characters.
fn mapped(name: &str, hash_len: usize) -> String {
    let digest = Sha256::digest(name.as_bytes());
    let mut hash = String::with_capacity(hash_len);
    for byte in digest.iter().take(hash_len.div_ceil(2)) {
        let _ = write!(hash, "{byte:02x}");
    }
    hash.truncate(hash_len);
    let keep = MAX_NAME - hash_len - 1;
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(keep)
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
        out.truncate(keep);
    }
    out.push('_');
    out.push_str(&hash);
    out
}

/// The provider-safe name of one tool, on its own (see [`ToolNames`] for a set).
pub fn provider_name(name: &str) -> Cow<'_, str> {
    if is_provider_safe(name) {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(mapped(name, 8))
    }
}

/// The names of one request's tools, both ways.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolNames {
    to_wire: HashMap<String, String>,
    from_wire: HashMap<String, String>,
}

impl ToolNames {
    /// Safe names keep themselves; the others get a mapped name that no other tool of
    /// the set has (a longer hash on the rare clash).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut table = Self::default();
        let (safe, unsafe_names): (Vec<&str>, Vec<&str>) =
            names.into_iter().partition(|n| is_provider_safe(n));
        for name in safe {
            table.insert(name, name.to_owned());
        }
        for name in unsafe_names {
            if table.to_wire.contains_key(name) {
                continue;
            }
            let wire = [8, 16, 32, 48]
                .into_iter()
                .map(|len| mapped(name, len))
                .find(|w| !table.from_wire.contains_key(w))
                .unwrap_or_else(|| mapped(name, 48));
            table.insert(name, wire);
        }
        table
    }

    fn insert(&mut self, name: &str, wire: String) {
        self.from_wire.insert(wire.clone(), name.to_owned());
        self.to_wire.insert(name.to_owned(), wire);
    }

    /// The name to send for `name` (a name outside the set is mapped on its own).
    pub fn wire<'a>(&'a self, name: &'a str) -> Cow<'a, str> {
        match self.to_wire.get(name) {
            Some(wire) => Cow::Borrowed(wire.as_str()),
            None => provider_name(name),
        }
    }

    /// The tool a name from the provider stands for (unknown names pass unchanged, so
    /// the registry can say there is no such tool).
    pub fn internal(&self, wire: &str) -> String {
        self.from_wire
            .get(wire)
            .cloned()
            .unwrap_or_else(|| wire.to_owned())
    }

    /// Whether any name had to be mapped.
    pub fn any_mapped(&self) -> bool {
        self.to_wire.iter().any(|(name, wire)| name != wire)
    }
}

/// Wraps a provider's decoder so tool calls carry the tool's own name again.
pub struct MapCallNames<D> {
    inner: D,
    names: std::sync::Arc<ToolNames>,
}

impl<D: StreamDecoder> MapCallNames<D> {
    pub fn new(inner: D, names: std::sync::Arc<ToolNames>) -> Self {
        Self { inner, names }
    }

    fn map(&self, events: Vec<LlmEvent>) -> Vec<LlmEvent> {
        events
            .into_iter()
            .map(|event| match event {
                LlmEvent::ToolCallStart { id, name } => LlmEvent::ToolCallStart {
                    id,
                    name: self.names.internal(&name),
                },
                other => other,
            })
            .collect()
    }
}

impl<D: StreamDecoder> StreamDecoder for MapCallNames<D> {
    fn on_event(&mut self, name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError> {
        let events = self.inner.on_event(name, data)?;
        Ok(self.map(events))
    }

    fn is_complete(&self) -> bool {
        self.inner.is_complete()
    }

    fn finish(&mut self) -> Result<Vec<LlmEvent>, LlmError> {
        let events = self.inner.finish()?;
        Ok(self.map(events))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_tool_names_map_to_safe_unique_stable_names() {
        let long = format!("srv__{}", "a".repeat(200));
        let odd = "srv__get.weather/now v2";
        let names = ToolNames::new(["srv__echo", long.as_str(), odd, "9lives"]);
        assert_eq!(names.wire("srv__echo"), "srv__echo");
        for name in [long.as_str(), odd, "9lives"] {
            let wire = names.wire(name).into_owned();
            assert!(is_provider_safe(&wire), "{wire}");
            assert_eq!(names.internal(&wire), name);
            // The same in a later request.
            assert_eq!(ToolNames::new([name]).wire(name), wire);
        }
        assert!(names.wire(odd).starts_with("srv__get_weather_now_v2_"));
        // Two long names with the same start differ.
        let other = format!("srv__{}b", "a".repeat(200));
        assert_ne!(provider_name(&long), provider_name(&other));
        assert!(names.any_mapped());
        assert_eq!(names.internal("nope"), "nope");
    }
}
