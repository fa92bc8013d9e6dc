//! The configuration data model. Every table rejects unknown keys.
//!
//! Values that are validated after parsing (rules, key bindings) keep their source
//! span (`toml::Spanned`) so that errors can name the file, line and column.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use toml::Spanned;

pub use super::agent::AgentConfig;
pub use super::agents::{
    AGENT_TOOL_PREFIX, AgentDef, AgentKind, AgentScope, DEFAULT_AGENT_MAX_STEPS,
};
pub use super::hooks::{HookConfig, HooksConfig};
pub use super::keys::{DescribedKeys, KEY_SPEC_EXPECTED, KeyBindingSpec};
pub use super::tools::{
    FsToolConfig, HTTP_METHODS, HttpToolConfig, MemoryToolConfig, ShellToolConfig, ToolsConfig,
};

/// The whole `switchboard.toml`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Name of the provider used at start (`[providers.NAME]`); the offline scripted
    /// provider when absent.
    pub default_provider: Option<String>,
    pub ui: UiConfig,
    pub servers: BTreeMap<String, ServerConfig>,
    pub mcp: McpConfig,
    pub providers: BTreeMap<String, ProviderConfig>,
    pub policy: PolicyConfig,
    pub skills: SkillsConfig,
    pub tools: ToolsConfig,
    pub agent: AgentConfig,
    pub hooks: HooksConfig,
    pub serve: super::serve::ServeConfig,
    /// `[agents.NAME]`: agents offered to the model as `agent__NAME` tools.
    pub agents: BTreeMap<String, AgentDef>,
}

/// `[ui]`
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct UiConfig {
    /// Theme name: a built-in (`default`, `light`, `high-contrast`) or a file in the
    /// user theme directory.
    pub theme: Option<String>,
    /// Mouse capture (clicks focus panes, wheel scrolls).
    pub mouse: bool,
    /// Show the Logs pane at start.
    pub show_logs: bool,
    /// Key binding overrides: action name → key (`"ctrl+l"`) or list of keys (every
    /// layer the action has keys in), or `[ui.keys.LAYER]` tables for one layer.
    pub keys: BTreeMap<String, Spanned<KeyBindingSpec>>,
}

impl Default for UiConfig {
    fn default() -> Self {
        Self {
            theme: None,
            mouse: true,
            show_logs: false,
            keys: BTreeMap::new(),
        }
    }
}

/// `[servers.NAME]`: an MCP server, stdio (`command`) or HTTP (`url`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    pub url: Option<String>,
    pub headers: BTreeMap<String, String>,
    pub bearer_token_env_var: Option<String>,
    /// `stdio`, `http` or `sse`; inferred when absent.
    #[serde(rename = "type")]
    pub transport: Option<String>,
    pub enabled: Option<bool>,
    /// Seconds.
    pub startup_timeout: Option<f64>,
    /// Seconds.
    pub tool_timeout: Option<f64>,
    /// `eager` (spawned at launch) or `on_demand` (started by its first call, read,
    /// prompt or refresh); `[mcp] start` when absent.
    pub start: Option<StartPolicy>,
    /// Seconds without a request after which a started server is stopped (it starts
    /// again on its next use); never when absent.
    pub idle_timeout: Option<f64>,
    pub enabled_tools: Option<Vec<String>>,
    pub disabled_tools: Vec<String>,
    /// `trust` (default) or `ignore` the server's tool annotations.
    pub annotations: Option<AnnotationTrust>,
    /// Which MCP protocol generation to speak: `auto` (default), `2025-11-25` or
    /// `2026-07-28`.
    pub protocol: Option<ProtocolChoice>,
    /// `ask` or `deny` this server's sampling requests; `[mcp] sampling` when absent.
    pub sampling: Option<SamplingPolicy>,
    /// `[servers.NAME.oauth]`: how switchboard identifies itself when the server
    /// asks for an OAuth login (HTTP servers only).
    pub oauth: Option<OAuthClientSettings>,
    /// `sandbox = true | false` or `[servers.NAME.sandbox]`: run this stdio server
    /// under Landlock (Linux). Absent: `[mcp] sandbox` decides, and a server from a
    /// project config is sandboxed.
    pub sandbox: Option<SandboxSetting>,
    /// `direct` or `deferred`: whether this server's tools are declared to the model
    /// in every request, or found through `tool_search` when tool search is on.
    /// Absent: deferred.
    pub tool_exposure: Option<ToolExposure>,
    /// Tools of this server (their names on the server) declared in every request
    /// even when the rest are deferred.
    pub direct_tools: Vec<String>,
    /// Set by the loader, never read from a file: the server comes from a project
    /// config (`./switchboard.toml` or a `--mcp-config` file inside the folder).
    #[serde(skip)]
    pub from_project: bool,
}

/// `sandbox = true | false`, or a `[servers.NAME.sandbox]` table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum SandboxSetting {
    On(bool),
    With(SandboxConfig),
}

/// `[servers.NAME.sandbox]`: what a sandboxed stdio server may touch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SandboxConfig {
    /// Paths it may write (and read); a private temporary directory when empty.
    pub write: Vec<PathBuf>,
    /// Paths it may read, added to the default read set.
    pub read: Vec<PathBuf>,
    /// TCP connect and bind; off by default.
    pub network: bool,
}

/// `[mcp] sandbox`: whether stdio servers without their own `sandbox` setting run
/// sandboxed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxDefault {
    /// Only servers that ask for it, and servers from a project config.
    #[default]
    Off,
    /// Every stdio server.
    On,
}

/// `[servers.NAME] tool_exposure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolExposure {
    /// Declared in every request.
    Direct,
    /// Declared once `tool_search` finds it (when tool search is on).
    Deferred,
}

/// `[mcp] tool_search`: whether the model gets every tool or a search tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolSearchSetting {
    /// On once the declarations would take `tool_search_threshold` percent of the
    /// model's context window.
    #[default]
    Auto,
    On,
    Off,
}

impl ToolSearchSetting {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::On => "on",
            Self::Off => "off",
        }
    }
}

/// Which MCP protocol generation a server is spoken to in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum ProtocolChoice {
    /// Probe with `server/discover` (2026-07-28); fall back to `initialize` (2025-11-25).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// The `initialize` handshake and a session, offering 2025-11-25.
    #[serde(rename = "2025-11-25")]
    V2025,
    /// `server/discover` and per-request metadata, no session.
    #[serde(rename = "2026-07-28")]
    V2026,
}

impl ServerConfig {
    /// Whether this server waits for its first use (`start`, else `[mcp] start`).
    pub fn on_demand(&self, mcp: &McpConfig) -> bool {
        self.start.unwrap_or(mcp.start) == StartPolicy::OnDemand
    }
}

impl ProtocolChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::V2025 => "2025-11-25",
            Self::V2026 => "2026-07-28",
        }
    }
}

/// When a server is started: `[servers.NAME] start`, `[mcp] start`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StartPolicy {
    /// At launch, every server in parallel.
    #[default]
    Eager,
    /// On its first call, read, prompt or refresh; until then its catalog is the one
    /// cached from its last listing.
    OnDemand,
}

impl StartPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Eager => "eager",
            Self::OnDemand => "on_demand",
        }
    }
}

/// What to do when a server asks the client's model for a completion
/// (`sampling/createMessage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SamplingPolicy {
    /// Show the request and let the person approve, edit or reject it (headless: deny).
    #[default]
    Ask,
    /// Refuse without asking.
    Deny,
}

/// `[mcp]`: defaults for every MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    /// `ask` (default) or `deny` sampling requests; `[servers.NAME] sampling` wins.
    pub sampling: SamplingPolicy,
    /// Rounds of `input_required` answers one request may take before it fails.
    pub max_input_rounds: u32,
    /// Messages the wire capture keeps per peer (server or serve client).
    pub wire_capacity: usize,
    /// `off` (default) or `on`: sandbox every stdio server without its own setting.
    pub sandbox: SandboxDefault,
    /// `auto` (default), `on` or `off`: offer the model a `tool_search` tool in place
    /// of the deferred tools' declarations.
    pub tool_search: ToolSearchSetting,
    /// The share of the context window (percent, 1–100) that the tools'
    /// declarations may take before `auto` turns tool search on.
    pub tool_search_threshold: u8,
    /// The MCP Registry `mcp search` and `mcp install` read (its v0.1 API).
    pub registry: String,
    /// `eager` (default) or `on_demand`: when servers without their own `start` start.
    pub start: StartPolicy,
}

/// The default of `[mcp] tool_search_threshold`: the MCP client best-practices
/// guidance is to switch to search once definitions pass 1–5 % of the window.
pub const DEFAULT_TOOL_SEARCH_THRESHOLD: u8 = 5;

/// The default of `[mcp] wire_capacity`.
pub const DEFAULT_WIRE_CAPACITY: usize = 5_000;

/// The default of `[mcp] registry`: the official MCP Registry.
pub const DEFAULT_REGISTRY: &str = "https://registry.modelcontextprotocol.io";

impl Default for McpConfig {
    fn default() -> Self {
        Self {
            sampling: SamplingPolicy::Ask,
            max_input_rounds: 8,
            wire_capacity: DEFAULT_WIRE_CAPACITY,
            sandbox: SandboxDefault::Off,
            tool_search: ToolSearchSetting::Auto,
            tool_search_threshold: DEFAULT_TOOL_SEARCH_THRESHOLD,
            registry: DEFAULT_REGISTRY.to_owned(),
            start: StartPolicy::Eager,
        }
    }
}

/// `[servers.NAME.oauth]`. Without a `client_id`, switchboard uses a Client ID
/// Metadata Document when `client_metadata_url` is set and the authorization server
/// supports it, else Dynamic Client Registration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct OAuthClientSettings {
    /// A client registered with the authorization server beforehand.
    pub client_id: Option<String>,
    /// The environment variable holding that client's secret (read at login).
    pub client_secret_env: Option<String>,
    /// How the client authenticates at the token endpoint.
    pub token_endpoint_auth: Option<TokenEndpointAuth>,
    /// The HTTPS URL of switchboard's Client ID Metadata Document.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for instead of the ones the server suggests.
    pub scopes: Option<Vec<String>>,
}

/// `token_endpoint_auth` (RFC 7591 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenEndpointAuth {
    ClientSecretBasic,
    ClientSecretPost,
    None,
}

impl TokenEndpointAuth {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
            Self::None => "none",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnnotationTrust {
    Trust,
    Ignore,
}

/// `[providers.NAME]`: an LLM provider.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Seconds.
    #[serde(default)]
    pub timeout: Option<f64>,
    /// Scripted provider: a script file of turns to replay.
    #[serde(default)]
    pub script: Option<PathBuf>,
    /// Bedrock: the AWS region (else `AWS_REGION` / `AWS_DEFAULT_REGION`).
    #[serde(default)]
    pub region: Option<Spanned<String>>,
    /// Bedrock: the AWS profile whose static keys sign requests (else `AWS_PROFILE`,
    /// else `default`), when no keys are in the environment.
    #[serde(default)]
    pub profile: Option<Spanned<String>>,
    /// Tokens the model's context window holds (else the documented window of the
    /// model family; see `llm::context_window`).
    #[serde(default)]
    pub context_window: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    Openai,
    Anthropic,
    Gemini,
    Cohere,
    Bedrock,
    Scripted,
}

impl ProviderKind {
    /// The name in the config (`openai`, …), which is also the provider's `kind()`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::Cohere => "cohere",
            Self::Bedrock => "bedrock",
            Self::Scripted => "scripted",
        }
    }
}

/// `[policy]`: how tool calls are authorised.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PolicyConfig {
    pub mode: Option<Spanned<String>>,
    pub allow: Vec<Spanned<String>>,
    pub ask: Vec<Spanned<String>>,
    pub deny: Vec<Spanned<String>>,
    /// Tool-name globs whose calls ask the person in every mode, full-auto included.
    pub always_ask: Vec<Spanned<String>>,
    /// Per-tool effect overrides: qualified tool name → `read`, `compute`, `write`,
    /// `delete` or `unknown`.
    pub effects: BTreeMap<String, Spanned<String>>,
    /// `single` (default) or `double`: Delete needs `y` twice.
    pub confirm_delete: Option<Spanned<String>>,
    /// Write the arguments themselves (not only their hash) to the audit log.
    pub audit_arguments: bool,
    /// Audit log path; default under the state directory.
    pub audit_log: Option<PathBuf>,
    /// Per-tool call budgets for one session: qualified tool name → max calls.
    pub max_calls: BTreeMap<String, u32>,
}

/// `[skills]`
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SkillsConfig {
    /// Register the `skills` tool.
    pub enabled: bool,
    /// Skill roots, searched in order; when empty: the project's `./skills/`, then
    /// `$XDG_CONFIG_HOME/switchboard/skills/`. Relative paths are taken from the
    /// workspace.
    pub paths: Vec<PathBuf>,
    /// Skills the model may read; all when absent.
    pub allow: Option<Vec<String>>,
}

impl Default for SkillsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            paths: Vec::new(),
            allow: None,
        }
    }
}
