//! The agent card (`GET /.well-known/agent-card.json`) and the interface to talk to.
//!
//! A 1.0 card lists `supportedInterfaces[{url, protocolBinding, protocolVersion}]`; a
//! 0.3 card has a top-level `url` with `preferredTransport` (and
//! `additionalInterfaces[{url, transport}]`). Only the JSON-RPC binding is spoken.

use reqwest::Url;
use serde_json::Value;

use super::A2aError;

/// Where the card is served, relative to the agent's base URL.
pub const CARD_PATH: &str = ".well-known/agent-card.json";

/// The protocol version spoken with an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolVersion {
    V1_0,
    V0_3,
}

impl ProtocolVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V1_0 => "1.0",
            Self::V0_3 => "0.3",
        }
    }
}

/// The JSON-RPC endpoint chosen from the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    pub url: String,
    pub version: ProtocolVersion,
}

/// One skill the agent advertises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub id: String,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
}

/// What switchboard uses of an agent card. Every string is the remote agent's own
/// (untrusted) text.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCard {
    pub name: String,
    pub description: String,
    pub version: String,
    /// `capabilities.streaming`: `SendStreamingMessage` / `message/stream` work.
    pub streaming: bool,
    pub skills: Vec<Skill>,
    pub interface: Interface,
    /// `securitySchemes`, each as `NAME (kind)`: what credentials the agent asks for.
    pub security: Vec<String>,
}

/// The card's URL for an agent at `base` (a URL ending in `.json` is taken as is).
pub fn card_url(base: &str) -> Result<Url, A2aError> {
    let bad = |e: String| A2aError::Card(format!("bad agent URL {base}: {e}"));
    let url = Url::parse(base).map_err(|e| bad(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("not http(s)".into()));
    }
    let is_json = std::path::Path::new(url.path())
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        return Ok(url);
    }
    let mut dir = url;
    if !dir.path().ends_with('/') {
        let path = format!("{}/", dir.path());
        dir.set_path(&path);
    }
    dir.join(CARD_PATH).map_err(|e| bad(e.to_string()))
}

impl AgentCard {
    /// Reads a card fetched from `card_url` (relative interface URLs are resolved
    /// against it).
    pub fn parse(card: &Value, card_url: &Url) -> Result<Self, A2aError> {
        if !card.is_object() {
            return Err(A2aError::Decode(
                "the agent card is not a JSON object".into(),
            ));
        }
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let skills = card
            .get("skills")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|s| Skill {
                id: text(s, "id"),
                name: text(s, "name"),
                description: text(s, "description"),
                tags: s
                    .get("tags")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect(),
            })
            .collect();
        Ok(Self {
            name: text(card, "name"),
            description: text(card, "description"),
            version: text(card, "version"),
            streaming: card
                .pointer("/capabilities/streaming")
                .and_then(Value::as_bool)
                == Some(true),
            skills,
            interface: interface(card, card_url)?,
            security: security_schemes(card),
        })
    }
}

/// `securitySchemes` as `NAME (kind)`: 0.3's `{"type": "http", "scheme": "bearer"}` and
/// 1.0's `{"httpAuthSecurityScheme": {"scheme": "Bearer"}}` alike.
fn security_schemes(card: &Value) -> Vec<String> {
    let Some(schemes) = card.get("securitySchemes").and_then(Value::as_object) else {
        return Vec::new();
    };
    schemes
        .iter()
        .map(|(name, scheme)| {
            let (kind, inner) = match scheme.get("type").and_then(Value::as_str) {
                Some(kind) => (kind.to_owned(), scheme),
                None => scheme
                    .as_object()
                    .and_then(|o| o.iter().next())
                    .map_or_else(|| (String::new(), scheme), |(k, v)| (k.clone(), v)),
            };
            let detail = inner
                .get("scheme")
                .or_else(|| inner.get("name"))
                .and_then(Value::as_str)
                .map(|d| format!(" {d}"))
                .unwrap_or_default();
            format!("{name} ({kind}{detail})")
        })
        .collect()
}

/// The JSON-RPC interface: a 1.0 one if listed, else a 0.3 one.
fn interface(card: &Value, card_url: &Url) -> Result<Interface, A2aError> {
    let resolve = |url: &str| {
        card_url
            .join(url)
            .map(|u| u.to_string())
            .map_err(|e| A2aError::Card(format!("bad interface URL {url}: {e}")))
    };
    let is_jsonrpc = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_none_or(|b| b.eq_ignore_ascii_case("JSONRPC"))
    };
    let listed: Vec<(&str, &str)> = card
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| is_jsonrpc(i.get("protocolBinding")))
        .filter_map(|i| {
            let url = i.get("url")?.as_str()?;
            // The field is required in 1.0, the only version with this list; SDK
            // samples leave it out, so a missing one means 1.0.
            let version = i.get("protocolVersion").and_then(Value::as_str);
            Some((url, version.filter(|v| !v.is_empty()).unwrap_or("1.0")))
        })
        .collect();
    for (prefix, version) in [
        ("1.", ProtocolVersion::V1_0),
        ("0.3", ProtocolVersion::V0_3),
    ] {
        if let Some((url, _)) = listed.iter().find(|(_, v)| v.starts_with(prefix)) {
            return Ok(Interface {
                url: resolve(url)?,
                version,
            });
        }
    }
    // A 0.3 card: `url` speaks `preferredTransport` (JSON-RPC when absent).
    let version = card
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("0.3");
    if version.starts_with("0.") {
        if let Some(url) = card.get("url").and_then(Value::as_str)
            && is_jsonrpc(card.get("preferredTransport"))
        {
            return Ok(Interface {
                url: resolve(url)?,
                version: ProtocolVersion::V0_3,
            });
        }
        let extra = card.get("additionalInterfaces").and_then(Value::as_array);
        if let Some(url) = extra
            .into_iter()
            .flatten()
            .filter(|i| is_jsonrpc(i.get("transport")))
            .find_map(|i| i.get("url").and_then(Value::as_str))
        {
            return Ok(Interface {
                url: resolve(url)?,
                version: ProtocolVersion::V0_3,
            });
        }
    }
    Err(A2aError::Card(
        "no JSON-RPC interface with protocol version 1.x or 0.3".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(card: &Value) -> Result<AgentCard, A2aError> {
        let url = card_url("http://127.0.0.1:9/agents/a").unwrap();
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:9/agents/a/.well-known/agent-card.json"
        );
        AgentCard::parse(card, &url)
    }

    #[test]
    fn a_1_0_card_wins_over_its_0_3_interface() {
        let card = json!({"name": "Hello", "version": "1.0.0",
            "capabilities": {"streaming": true},
            "supportedInterfaces": [
                {"url": "http://h/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
                {"url": "http://h/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                {"url": "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "skills": [{"id": "hi", "name": "Hi", "description": "greets", "tags": ["x"]}]});
        let c = at(&card).unwrap();
        assert_eq!(
            c.interface,
            Interface {
                url: "http://127.0.0.1:9/rpc".into(),
                version: ProtocolVersion::V1_0
            }
        );
        assert!(c.streaming);
        assert_eq!(c.skills[0].tags, vec!["x"]);
    }

    #[test]
    fn a_0_3_card_and_a_card_without_json_rpc() {
        let card = json!({"name": "Old", "url": "http://h:1/", "protocolVersion": "0.3.0",
            "capabilities": {}});
        let c = at(&card).unwrap();
        assert_eq!(c.interface.version, ProtocolVersion::V0_3);
        // As the Python SDK serves a card whose interface has no version: the 1.0
        // list wins over the 0.3 compatibility fields it adds.
        let sdk = json!({"supportedInterfaces": [{"url": "http://h:2", "protocolBinding": "JSONRPC"}],
            "preferredTransport": "JSONRPC", "protocolVersion": "0.3", "url": "http://h:2"});
        assert_eq!(at(&sdk).unwrap().interface.version, ProtocolVersion::V1_0);
        assert_eq!(c.interface.url, "http://h:1/");
        assert!(!c.streaming);
        let grpc = json!({"url": "http://h/", "preferredTransport": "GRPC",
            "additionalInterfaces": [{"url": "http://h/j", "transport": "JSONRPC"}]});
        assert_eq!(at(&grpc).unwrap().interface.url, "http://h/j");
        let none = json!({"supportedInterfaces": [{"url": "http://h", "protocolBinding": "GRPC", "protocolVersion": "1.0"}], "protocolVersion": "1.0"});
        assert!(matches!(at(&none), Err(A2aError::Card(_))));
        assert!(card_url("file:///etc/passwd").is_err());
    }
}
