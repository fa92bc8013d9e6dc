//! What the gateway shows its clients, as MCP wire JSON: the registry's tools (only
//! those of exposed servers, and the built-ins when `builtin` is exposed), and the
//! exposed servers' resources, templates and prompts. Tool and prompt names are the
//! catalog's qualified names (`SERVER__NAME`); resource URIs are the servers' own.

use serde_json::{Map, Value, json};

use crate::mcp::{HubSnapshot, QUALIFIER, ServerSnapshot, ServerStatus, ToolHints, qualified_name};
use crate::policy::ToolEffect;
use crate::tools::ToolSpec;

/// `[serve] expose` names the built-in tools with this.
pub const BUILTIN: &str = "builtin";

/// Which servers (and whether the built-ins) clients see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expose {
    /// `None`: every configured server.
    servers: Option<Vec<String>>,
    builtin: bool,
}

impl Expose {
    /// From `[serve] expose` (absent: every server, no built-ins).
    pub fn new(expose: Option<&[String]>) -> Self {
        match expose {
            None => Self {
                servers: None,
                builtin: false,
            },
            Some(names) => Self {
                servers: Some(names.iter().filter(|n| *n != BUILTIN).cloned().collect()),
                builtin: names.iter().any(|n| n == BUILTIN),
            },
        }
    }

    pub fn builtin(&self) -> bool {
        self.builtin
    }

    pub fn server(&self, name: &str) -> bool {
        self.servers
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }

    /// Names in `[serve] expose` that name no configured server.
    pub fn unknown<'a>(&'a self, servers: &[String]) -> Vec<&'a str> {
        self.servers
            .iter()
            .flatten()
            .filter(|n| !servers.contains(n))
            .map(String::as_str)
            .collect()
    }
}

/// The server a qualified name belongs to, when it is one of `servers`.
pub fn server_of<'a>(name: &str, servers: &'a [String]) -> Option<(&'a str, String)> {
    servers.iter().find_map(|s| {
        let rest = name.strip_prefix(s.as_str())?.strip_prefix(QUALIFIER)?;
        Some((s.as_str(), rest.to_owned()))
    })
}

/// Whether a registry tool is exposed.
pub fn tool_exposed(expose: &Expose, name: &str, servers: &[String]) -> bool {
    match server_of(name, servers) {
        Some((server, _)) => expose.server(server),
        None => expose.builtin,
    }
}

/// Where a tool's annotations come from.
#[derive(Debug, Clone, Copy)]
pub enum Hints<'a> {
    /// An MCP tool: the server's annotations, passed through (or none).
    Server(Option<&'a ToolHints>),
    /// A built-in: switchboard's own effect classification.
    Builtin,
}

/// A registry tool as `tools/list` shows it.
pub fn tool_wire(spec: &ToolSpec, hints: Hints<'_>) -> Value {
    let mut tool = json!({
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.input_schema,
    });
    if let Some(title) = &spec.title {
        tool["title"] = json!(title);
    }
    if let Some(schema) = &spec.output_schema {
        tool["outputSchema"] = schema.clone();
    }
    let annotations = match hints {
        Hints::Server(a) => a.map(|a| {
            let mut out = Map::new();
            let mut put = |k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    out.insert(k.to_owned(), v);
                }
            };
            put("title", a.title.clone().map(Value::from));
            put("readOnlyHint", a.read_only.map(Value::from));
            put("destructiveHint", a.destructive.map(Value::from));
            put("idempotentHint", a.idempotent.map(Value::from));
            put("openWorldHint", a.open_world.map(Value::from));
            Value::Object(out)
        }),
        Hints::Builtin => Some(builtin_hints(spec)),
    };
    if let Some(a) = annotations {
        tool["annotations"] = a;
    }
    tool
}

/// `readOnlyHint` when every call the tool can make is a read; `destructiveHint`
/// when any call may change or delete something (or runs a program).
fn builtin_hints(spec: &ToolSpec) -> Value {
    let mut effects: Vec<ToolEffect> = spec.effect_mapping().values().copied().collect();
    effects.push(spec.default_effect);
    let read_only = effects.iter().all(|e| *e == ToolEffect::Read);
    json!({"readOnlyHint": read_only, "destructiveHint": !read_only})
}

/// Whether the gateway declares the capability at `pointer` (`/completions`,
/// `/resources/subscribe`): an exposed server that is ready has it (present, not null
/// or false), or one is not ready yet and may. A request for a server without it is
/// answered as that server would be (no completions; its own error).
pub fn offered(snapshot: &HubSnapshot, expose: &Expose, pointer: &str) -> bool {
    snapshot
        .servers
        .iter()
        .filter(|s| expose.server(&s.name))
        .any(|s| match &s.info {
            Some(info) => info
                .capabilities
                .pointer(pointer)
                .is_some_and(|v| !v.is_null() && *v != Value::Bool(false)),
            None => !s.status.is_settled(),
        })
}

/// Resource not found (-32002) with the URI in `data`, as the spec's error handling
/// for resources says
/// (<https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling>).
pub fn resource_not_found(message: String, uri: &str) -> rmcp::ErrorData {
    rmcp::ErrorData::resource_not_found(message, Some(json!({"uri": uri})))
}

/// Exposed servers that are ready (or wait to be used, with a cached catalog), in
/// name order.
pub fn ready_servers<'a>(
    snapshot: &'a HubSnapshot,
    expose: &'a Expose,
) -> impl Iterator<Item = &'a ServerSnapshot> + 'a {
    snapshot
        .servers
        .iter()
        .filter(|s| {
            // A server that starts on demand offers its cached catalog; a read or a
            // prompt starts it.
            let cached = s.status.is_idle() && s.catalog.cached_at.is_some();
            (s.status == ServerStatus::Ready || cached) && expose.server(&s.name)
        })
        .map(AsRef::as_ref)
}

pub fn resources_wire(snapshot: &HubSnapshot, expose: &Expose) -> Vec<Value> {
    let mut out = Vec::new();
    for server in ready_servers(snapshot, expose) {
        for r in &server.catalog.resources {
            let mut v = json!({"uri": r.uri, "name": r.name});
            optional(&mut v, "title", r.title.as_ref());
            optional(&mut v, "description", r.description.as_ref());
            optional(&mut v, "mimeType", r.mime_type.as_ref());
            if let Some(size) = r.size {
                v["size"] = json!(size);
            }
            out.push(v);
        }
    }
    out
}

pub fn templates_wire(snapshot: &HubSnapshot, expose: &Expose) -> Vec<Value> {
    let mut out = Vec::new();
    for server in ready_servers(snapshot, expose) {
        for t in &server.catalog.templates {
            let mut v = json!({"uriTemplate": t.uri_template, "name": t.name});
            optional(&mut v, "title", t.title.as_ref());
            optional(&mut v, "description", t.description.as_ref());
            optional(&mut v, "mimeType", t.mime_type.as_ref());
            out.push(v);
        }
    }
    out
}

pub fn prompts_wire(snapshot: &HubSnapshot, expose: &Expose) -> Vec<Value> {
    let mut out = Vec::new();
    for server in ready_servers(snapshot, expose) {
        for p in &server.catalog.prompts {
            let mut v = json!({"name": qualified_name(&server.name, &p.name)});
            optional(&mut v, "title", p.title.as_ref());
            optional(&mut v, "description", p.description.as_ref());
            let args: Vec<Value> = p
                .arguments
                .iter()
                .map(|a| {
                    let mut arg = json!({"name": a.name, "required": a.required});
                    optional(&mut arg, "description", a.description.as_ref());
                    arg
                })
                .collect();
            v["arguments"] = Value::Array(args);
            out.push(v);
        }
    }
    out
}

/// The exposed server that serves `uri`: one listing it, else one with a template
/// whose fixed start it begins with (the longest such start wins).
pub fn resource_server(snapshot: &HubSnapshot, expose: &Expose, uri: &str) -> Option<String> {
    let servers: Vec<&ServerSnapshot> = ready_servers(snapshot, expose).collect();
    if let Some(s) = servers
        .iter()
        .find(|s| s.catalog.resources.iter().any(|r| r.uri == uri))
    {
        return Some(s.name.clone());
    }
    servers
        .iter()
        .flat_map(|s| {
            s.catalog.templates.iter().filter_map(|t| {
                let fixed = t.uri_template.split('{').next().unwrap_or("");
                (!fixed.is_empty() && uri.starts_with(fixed)).then_some((fixed.len(), &s.name))
            })
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, name)| name.clone())
}

use crate::tools::optional;
pub use crate::tools::{block_wire, resource_contents};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expose_defaults_to_every_server_and_no_builtins() {
        let all = Expose::new(None);
        assert!(all.server("weather") && !all.builtin());
        let some = Expose::new(Some(&["builtin".into(), "weather".into()]));
        assert!(some.builtin() && some.server("weather") && !some.server("files"));
        let servers = vec!["weather".to_owned(), "files".to_owned()];
        assert!(tool_exposed(&some, "weather__now", &servers));
        assert!(!tool_exposed(&some, "files__read", &servers));
        assert!(tool_exposed(&some, "fs", &servers));
        assert!(!tool_exposed(&all, "fs", &servers));
        assert_eq!(some.unknown(&servers), Vec::<&str>::new());
        assert_eq!(
            Expose::new(Some(&["nope".into()])).unknown(&servers),
            vec!["nope"]
        );
    }

    #[test]
    fn builtin_hints_follow_the_effects() {
        let read = ToolSpec::builder("r")
            .default_effect(ToolEffect::Read)
            .build();
        assert_eq!(
            builtin_hints(&read),
            json!({"readOnlyHint": true, "destructiveHint": false})
        );
        let fs = ToolSpec::builder("fs")
            .default_effect(ToolEffect::Read)
            .effect_argument("operation")
            .map_effect("delete", ToolEffect::Delete)
            .build();
        assert_eq!(
            builtin_hints(&fs),
            json!({"readOnlyHint": false, "destructiveHint": true})
        );
    }
}
