//! `[ui.keys]` values: the syntax of key bindings, shared by the user's config and the
//! built-in table (`src/keymap/default.toml`). What the names mean is the keymap's
//! business; this only reads the shapes.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// What a value that is not a binding is told it should have been (the config errors
/// recognise it).
pub const KEY_SPEC_EXPECTED: &str = "a key (\"ctrl+l\") or a list of keys";

/// One `[ui.keys]` value: `action = "key"`, `action = ["key", "key"]`,
/// `action = { keys = …, help = "…", label = "…" }`, or a `[ui.keys.LAYER]` table of
/// such entries for one layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum KeyBindingSpec {
    One(String),
    Many(Vec<String>),
    /// Keys with the text shown for them.
    Described(DescribedKeys),
    /// The bindings of one layer, by action name.
    Layer(BTreeMap<String, Spanned<KeyBindingSpec>>),
}

/// `{ keys = …, help = "…", label = "…" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DescribedKeys {
    pub keys: Vec<String>,
    /// The help overlay's text (the action's description when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The status bar's label (no label when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl KeyBindingSpec {
    /// The keys, as written; none for a layer table.
    pub fn keys(&self) -> Vec<&str> {
        match self {
            Self::One(k) => vec![k.as_str()],
            Self::Many(ks) | Self::Described(DescribedKeys { keys: ks, .. }) => {
                ks.iter().map(String::as_str).collect()
            }
            Self::Layer(_) => Vec::new(),
        }
    }
}

impl<'de> Deserialize<'de> for KeyBindingSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SpecVisitor)
    }
}

struct SpecVisitor;

impl<'de> Visitor<'de> for SpecVisitor {
    type Value = KeyBindingSpec;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(KEY_SPEC_EXPECTED)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(KeyBindingSpec::One(v.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut keys = Vec::new();
        while let Some(key) = seq.next_element::<String>()? {
            keys.push(key);
        }
        Ok(KeyBindingSpec::Many(keys))
    }

    /// A table with `keys` is one binding with its texts (no action is called `keys`);
    /// any other table is a layer's bindings.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = BTreeMap::new();
        while let Some(name) = map.next_key::<String>()? {
            let value = map.next_value::<Spanned<KeyBindingSpec>>()?;
            entries.insert(name, value);
        }
        if entries.contains_key("keys") {
            described(entries).map(KeyBindingSpec::Described)
        } else {
            Ok(KeyBindingSpec::Layer(entries))
        }
    }
}

fn described<E: de::Error>(
    entries: BTreeMap<String, Spanned<KeyBindingSpec>>,
) -> Result<DescribedKeys, E> {
    let mut out = DescribedKeys {
        keys: Vec::new(),
        help: None,
        label: None,
    };
    for (name, value) in entries {
        let value = value.into_inner();
        match (name.as_str(), value) {
            ("keys", KeyBindingSpec::One(key)) => out.keys = vec![key],
            ("keys", KeyBindingSpec::Many(keys)) => out.keys = keys,
            ("help", KeyBindingSpec::One(text)) => out.help = Some(text),
            ("label", KeyBindingSpec::One(text)) => out.label = Some(text),
            ("keys", _) => return Err(E::custom(format!("`keys`: expected {KEY_SPEC_EXPECTED}"))),
            ("help" | "label", _) => return Err(E::custom(format!("`{name}`: expected a string"))),
            (other, _) => {
                return Err(E::custom(format!(
                    "unknown key `{other}` in a key binding; expected `keys`, `help` or `label`"
                )));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> BTreeMap<String, Spanned<KeyBindingSpec>> {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn reads_every_shape_with_spans() {
        let text = "a = \"q\"\nb = [\"x\", \"y\"]\nc = { keys = \"z\", label = \"zed\" }\n[d]\ne = \"f1\"\n";
        let map = parse(text);
        assert_eq!(map["a"].get_ref(), &KeyBindingSpec::One("q".into()));
        assert_eq!(map["b"].get_ref().keys(), ["x", "y"]);
        assert_eq!(
            map["c"].get_ref(),
            &KeyBindingSpec::Described(DescribedKeys {
                keys: vec!["z".into()],
                help: None,
                label: Some("zed".into()),
            })
        );
        let KeyBindingSpec::Layer(layer) = map["d"].get_ref() else {
            panic!("{:?}", map["d"]);
        };
        assert_eq!(&text[layer["e"].span()], "\"f1\"");
    }

    #[test]
    fn a_described_binding_rejects_other_keys() {
        let err = toml::from_str::<BTreeMap<String, Spanned<KeyBindingSpec>>>(
            "a = { keys = \"q\", hlep = \"x\" }\n",
        )
        .unwrap_err();
        assert!(err.message().contains("unknown key `hlep`"), "{err}");
        let err =
            toml::from_str::<BTreeMap<String, Spanned<KeyBindingSpec>>>("a = 3\n").unwrap_err();
        assert!(err.message().contains(KEY_SPEC_EXPECTED), "{err}");
    }
}
