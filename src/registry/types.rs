//! The MCP Registry's v0.1 read API, as JSON: a page of servers and one server with
//! its registry metadata. Every field the registry may leave out has a default, and
//! fields switchboard does not read are not kept.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `GET /v0.1/servers`: one page of the list.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ListResponse {
    pub servers: Vec<ServerResponse>,
    pub metadata: ListMetadata,
}

/// The page's `metadata`: where the next page starts, if there is one.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ListMetadata {
    pub next_cursor: Option<String>,
    pub count: Option<u64>,
}

/// One server as the registry answers it: `server.json` and the registry's own facts.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ServerResponse {
    pub server: ServerJson,
    #[serde(rename = "_meta")]
    pub meta: ResponseMeta,
}

impl ServerResponse {
    /// The registry's status for it (`active` when it says none).
    pub fn status(&self) -> Status {
        self.meta
            .official
            .as_ref()
            .map_or(Status::Active, |o| o.status)
    }
}

/// `_meta` of a response.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ResponseMeta {
    #[serde(rename = "io.modelcontextprotocol.registry/official")]
    pub official: Option<Official>,
}

/// What the official registry adds to every entry.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Official {
    pub status: Status,
    pub published_at: Option<String>,
    pub updated_at: Option<String>,
    pub is_latest: bool,
}

/// An entry's lifecycle status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    #[default]
    Active,
    Deprecated,
    Deleted,
    /// A status this version of switchboard does not know.
    #[serde(other)]
    Other,
}

/// `server.json`: what the server is and how to run or reach it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ServerJson {
    /// `namespace/name`, e.g. `io.github.someone/weather`.
    pub name: String,
    pub description: String,
    pub title: Option<String>,
    pub version: String,
    pub repository: Option<Value>,
    pub website_url: Option<String>,
    pub packages: Vec<Package>,
    pub remotes: Vec<Remote>,
}

/// A package the server is published as.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Package {
    /// `npm`, `pypi`, `oci`, `nuget` or `mcpb`.
    pub registry_type: String,
    pub registry_base_url: Option<String>,
    pub identifier: String,
    /// The exact version.
    pub version: Option<String>,
    pub file_sha256: Option<String>,
    /// `npx`, `uvx`, `docker`, `dnx`.
    pub runtime_hint: Option<String>,
    pub transport: Transport,
    pub runtime_arguments: Vec<Argument>,
    pub package_arguments: Vec<Argument>,
    pub environment_variables: Vec<KeyValueInput>,
}

/// How a package's server talks: `stdio`, or HTTP at a URL once started.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Transport {
    /// `stdio`, `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    pub url: Option<String>,
    pub headers: Vec<KeyValueInput>,
}

impl Default for Transport {
    fn default() -> Self {
        Self {
            kind: "stdio".into(),
            url: None,
            headers: Vec::new(),
        }
    }
}

/// A server hosted somewhere, reached over HTTP.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Remote {
    /// `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    /// May hold `{x}`, filled from `variables`.
    pub url: String,
    pub headers: Vec<KeyValueInput>,
    pub variables: BTreeMap<String, Input>,
}

/// A value the person may have to give: a command-line argument, an environment
/// variable, a header or a variable of one of those.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Input {
    pub description: Option<String>,
    pub is_required: bool,
    /// `string`, `number`, `boolean` or `filepath`.
    pub format: Option<String>,
    /// A fixed value; `{x}` in it is filled from `variables`.
    pub value: Option<String>,
    pub is_secret: bool,
    pub default: Option<String>,
    pub placeholder: Option<String>,
    pub choices: Vec<String>,
    pub variables: BTreeMap<String, Input>,
}

/// An environment variable or a header: an input with its name.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct KeyValueInput {
    pub name: String,
    #[serde(flatten)]
    pub input: Input,
}

/// A command-line argument: `positional` (its value) or `named` (`--name value`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Argument {
    #[serde(rename = "type")]
    pub kind: String,
    /// A named argument's flag, e.g. `--port`.
    pub name: Option<String>,
    /// What a positional argument stands for, when it has no value.
    pub value_hint: Option<String>,
    pub is_repeated: bool,
    #[serde(flatten)]
    pub input: Input,
}
