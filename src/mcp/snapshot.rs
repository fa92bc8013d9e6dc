//! What the hub publishes: immutable snapshots of every server, and the events between
//! them (logs, progress, stderr). The TUI renders these; nothing here holds a handle.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::catalog::CatalogSnapshot;
use super::endpoint::TransportKind;
use super::error::McpError;

/// A server's connection state.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerStatus {
    /// `enabled = false` in the config.
    Disabled,
    /// Connecting (attempt 1 is the first; later ones are reconnects).
    Connecting {
        attempt: u32,
    },
    Ready,
    /// The last attempt failed; `retry_in` when another is scheduled.
    Failed {
        error: McpError,
        retry_in: Option<Duration>,
    },
    /// The connection ended (crash, close); a reconnect may follow.
    Disconnected {
        reason: String,
    },
    /// The server asks for an OAuth login; waits for one (then a reconnect).
    NeedsLogin {
        reason: String,
    },
    /// An on-demand server not running: not started yet, or `stopped` after its
    /// `idle_timeout`. Its first call, read, prompt or a refresh starts it; its
    /// catalog meanwhile is the cached one, if any.
    Idle {
        stopped: bool,
    },
}

impl ServerStatus {
    /// `disabled`, `connecting`, `ready`, `failed`, `disconnected`, `needs login`,
    /// `on demand (not started)`, `stopped (idle)`.
    pub fn label(&self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::Connecting { .. } => "connecting",
            Self::Ready => "ready",
            Self::Failed { .. } => "failed",
            Self::Disconnected { .. } => "disconnected",
            Self::NeedsLogin { .. } => "needs login",
            Self::Idle { stopped: false } => "on demand (not started)",
            Self::Idle { stopped: true } => "stopped (idle)",
        }
    }

    /// An on-demand server that is not running (it starts on its first use).
    pub fn is_idle(&self) -> bool {
        matches!(self, Self::Idle { .. })
    }

    /// Still trying for the first time (or again).
    pub fn is_settled(&self) -> bool {
        !matches!(self, Self::Connecting { .. })
    }

    /// A connection is under way or comes by itself: connecting, a retry scheduled
    /// after a failure, or lost (a reconnect follows, unless the hub is shutting
    /// down — and then nothing waits for long).
    pub fn is_reconnecting(&self) -> bool {
        match self {
            Self::Connecting { .. } | Self::Disconnected { .. } => true,
            Self::Failed { retry_in, .. } => retry_in.is_some(),
            Self::Disabled | Self::Ready | Self::NeedsLogin { .. } | Self::Idle { .. } => false,
        }
    }
}

/// What the server said about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerInfo {
    pub name: String,
    pub title: Option<String>,
    pub version: String,
    pub protocol_version: String,
    /// The protocol generation: `2026-07-28` (`server/discover`, no session, metadata
    /// on every request) or `2025-11-25` (the `initialize` handshake and a session,
    /// whichever version it agreed on).
    pub era: &'static str,
    /// The `capabilities` object as sent.
    pub capabilities: Value,
    pub instructions: Option<String>,
}

impl ServerInfo {
    /// Whether the capabilities object has `key` (`tools`, `resources`, `prompts`,
    /// `logging`, `completions`).
    pub fn supports(&self, key: &str) -> bool {
        self.capabilities.get(key).is_some_and(|v| !v.is_null())
    }

    /// From the wire JSON of rmcp's `ServerPeerInfo`.
    pub fn from_wire(v: &Value) -> Self {
        let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let implementation = v.get("serverInfo").cloned().unwrap_or(Value::Null);
        let protocol_version = s(v, "protocolVersion").unwrap_or_default();
        Self {
            name: s(&implementation, "name").unwrap_or_default(),
            title: s(&implementation, "title"),
            version: s(&implementation, "version").unwrap_or_default(),
            era: era_of(&protocol_version),
            protocol_version,
            capabilities: v
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| Value::Object(serde_json::Map::new())),
            instructions: s(v, "instructions"),
        }
    }
}

/// The generation a negotiated version belongs to (ISO dates compare as text).
pub fn era_of(protocol_version: &str) -> &'static str {
    if protocol_version >= "2026-07-28" {
        "2026-07-28"
    } else {
        "2025-11-25"
    }
}

impl ServerInfo {
    /// True in the 2026-07-28 generation (no session; per-request metadata).
    pub fn is_stateless(&self) -> bool {
        self.era == "2026-07-28"
    }
}

/// One server, as of one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSnapshot {
    /// The `[servers.NAME]` key.
    pub name: String,
    pub transport: TransportKind,
    /// The command line or URL (may contain anything the config holds; sanitise to show).
    pub target: String,
    pub status: ServerStatus,
    pub info: Option<Arc<ServerInfo>>,
    pub catalog: Arc<CatalogSnapshot>,
    /// The last lines the server wrote on stderr (stdio servers), oldest first.
    pub stderr_tail: Arc<Vec<String>>,
    pub last_error: Option<McpError>,
    /// Connection generation: bumped on every successful (re)connect.
    pub generation: u64,
    /// The stored OAuth login of an HTTP server (issuer, scopes, expiry; never a
    /// token), read when it connects or asks for a login.
    pub login: Option<super::oauth::LoginSummary>,
    /// A stdio server that runs under its Landlock sandbox.
    pub sandboxed: bool,
}

impl ServerSnapshot {
    /// For a server that is not running (on demand, or stopped when idle): where its
    /// catalog comes from — `cached 2 h ago`, or that there is none yet.
    pub fn idle_note(&self, now: std::time::SystemTime) -> Option<String> {
        if !self.status.is_idle() {
            return None;
        }
        Some(match self.catalog.cached_at {
            Some(at) => format!(
                "{}; starts on first use",
                super::catalog_cache::cached_age(at, now)
            ),
            None => "no cached catalog: its tools show once it has started".into(),
        })
    }

    pub fn new(name: &str, transport: TransportKind, target: String, status: ServerStatus) -> Self {
        Self {
            name: name.to_owned(),
            transport,
            target,
            status,
            info: None,
            catalog: Arc::default(),
            stderr_tail: Arc::default(),
            last_error: None,
            generation: 0,
            login: None,
            sandboxed: false,
        }
    }
}

/// Every configured server, sorted by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HubSnapshot {
    pub servers: Vec<Arc<ServerSnapshot>>,
}

impl HubSnapshot {
    pub fn server(&self, name: &str) -> Option<&Arc<ServerSnapshot>> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// True when no server is still connecting.
    pub fn is_settled(&self) -> bool {
        self.servers.iter().all(|s| s.status.is_settled())
    }
}

/// Something a server did, as it happens.
#[derive(Debug, Clone, PartialEq)]
pub enum McpEvent {
    /// `notifications/message`. `message` is the data as text (unsanitised).
    Log {
        server: String,
        level: String,
        logger: Option<String>,
        message: String,
    },
    /// `notifications/progress` for a running call.
    Progress {
        server: String,
        /// The call's run (turn) and step, from its `ToolContext`.
        run_id: Option<String>,
        step_id: Option<String>,
        /// What is running: the tool, resource or prompt name.
        request: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// A line on the server's stderr (unsanitised).
    Stderr { server: String, line: String },
    /// A list was refreshed after `list_changed` (or a reconnect).
    CatalogChanged { server: String, revision: u64 },
    /// A call became a task, or a poll saw it again (`tool`: the call's tool).
    Task {
        tool: String,
        view: Box<super::tasks::TaskView>,
    },
    /// A subscribed resource changed (`notifications/resources/updated`).
    ResourceUpdated { server: String, uri: String },
    /// A subscription could not be made again after a reconnect; it is gone.
    SubscriptionLost {
        server: String,
        uri: String,
        /// Why (sanitised).
        reason: String,
    },
    /// A request failed with URLElicitationRequiredError (-32042): the person must
    /// visit these pages before it can succeed (unsanitised; `request` names it).
    PagesRequired {
        server: String,
        request: String,
        pages: Vec<super::listing::RequiredPage>,
    },
    /// The server asked the person something (`elicitation`, `sampling`) and got
    /// `outcome`: `accept`, `decline`, `cancel`; `approve`, `reject` (the person),
    /// `deny (policy)` (`sampling = "deny"`), `deny (budget)` (`max_calls.sampling`
    /// spent: the person was not asked).
    Asked {
        server: String,
        kind: &'static str,
        outcome: &'static str,
        /// The model that answered an approved sampling request (sanitised).
        model: Option<String>,
    },
}
