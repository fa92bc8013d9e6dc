//! The typed, borrowing view of an OpenAI stream chunk: strings without escapes are
//! borrowed from the event data, unknown fields are skipped, nothing is built that
//! the decoder does not read. A chunk that does not fit these types (a number where
//! a string was expected, an `error` member, ...) is decoded through
//! `serde_json::Value` instead, with the same, lenient, reading.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, Visitor};

#[derive(Deserialize)]
pub(super) struct Chunk<'a> {
    /// Any `error` member, even `null`, sends the chunk down the `Value` path.
    #[serde(default)]
    pub error: Present,
    #[serde(default)]
    pub usage: Option<ChunkUsage>,
    #[serde(default, borrow)]
    pub choices: Option<Vec<Choice<'a>>>,
}

#[derive(Deserialize)]
pub(super) struct ChunkUsage {
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    #[serde(default)]
    pub completion_tokens: Option<u64>,
}

#[derive(Deserialize)]
pub(super) struct Choice<'a> {
    #[serde(default, borrow)]
    pub delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    pub finish_reason: Option<Text<'a>>,
}

#[derive(Deserialize)]
pub(super) struct Delta<'a> {
    #[serde(default, borrow)]
    pub content: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub tool_calls: Option<Vec<CallDelta<'a>>>,
}

#[derive(Deserialize)]
pub(super) struct CallDelta<'a> {
    #[serde(default)]
    pub index: Option<u64>,
    #[serde(default, borrow)]
    pub id: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub function: Option<Function<'a>>,
}

#[derive(Deserialize)]
pub(super) struct Function<'a> {
    #[serde(default, borrow)]
    pub name: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub arguments: Option<Text<'a>>,
}

/// Whether a member was there at all, whatever its value.
#[derive(Default)]
pub(super) struct Present(pub bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d).map(|_| Self(true))
    }
}

/// A JSON string, borrowed from the input unless it had escapes. (`Option<Cow<str>>`
/// is always owned with serde's derive; this visitor borrows.)
pub(super) struct Text<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

impl<'a> Text<'a> {
    /// The text of an optional string, empty when absent.
    pub fn or_empty(text: Option<Self>) -> Cow<'a, str> {
        text.map(|Text(t)| t).unwrap_or_default()
    }
}
