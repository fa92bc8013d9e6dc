//! [`Workbench`]: the one place that assembles a session's tool world from the config —
//! policy, approval broker, audit log, registry (the gate), built-in tools and the MCP
//! hub, with the registry kept in step with the catalogs. The CLI, the TUI and the agent
//! all start here.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::config::Config;
use crate::gate::ApprovalBroker;
use crate::hooks::Hooks;
use crate::mcp::{
    Asker, HubOptions, HubSnapshot, Limits, McpEvent, McpHub, RegistrySync, WireLog, spawn_sync,
    sync_registry,
};
use crate::paths::Dirs;
use crate::policy::{AuditLog, Mode, Policy, ServerRequestRecord};
use crate::tools::builtin::{BuiltinSummary, register_builtins};
use crate::tools::{Registry, ToolError};

/// How to assemble a workbench.
#[derive(Clone, Default)]
pub struct WorkbenchOptions {
    /// False (CLI, serve mode, no TTY): `Ask` becomes a denial naming the rule to add.
    pub interactive: bool,
    /// `--approve MODE`: overrides `[policy] mode`.
    pub mode: Option<Mode>,
    /// Where relative tool paths resolve (the built-in file tool's root).
    pub workspace: Option<PathBuf>,
    /// The config file "always" approvals append their rule to.
    pub always_file: Option<PathBuf>,
    /// Who answers servers' elicitation and sampling requests; none: decline and deny.
    pub asker: Option<Arc<dyn Asker>>,
    /// Runs OAuth logins servers ask for (headless commands that can show a page).
    pub login: Option<Arc<dyn crate::mcp::oauth::LoginPrompt>>,
    /// Captures every message with the servers (and serve clients): always in the
    /// TUI, with `--trace` headless; none: nothing is captured.
    pub wire: Option<Arc<WireLog>>,
    /// Holds the servers' first connections until opened (the TUI: its first frame).
    pub start: Option<crate::mcp::StartGate>,
    /// MCP Apps can be opened (the TUI, `switchboard app`): servers are told so.
    pub apps: bool,
}

/// The config's `[policy]` is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid [policy]: {0}")]
pub struct WorkbenchError(pub String);

/// A running tool world.
pub struct Workbench {
    pub config: Config,
    pub registry: Arc<Registry>,
    pub hub: McpHub,
    pub broker: Arc<ApprovalBroker>,
    pub workspace: PathBuf,
    /// What the built-in tools registered, or why they could not start.
    pub builtins: Result<BuiltinSummary, ToolError>,
    /// The wire capture (the Wire pane reads it). Always present; fed only when
    /// [`WorkbenchOptions::wire`] was given (see [`Workbench::wire_capture`]).
    pub wire: Arc<WireLog>,
    capturing: bool,
    sync: Arc<Mutex<RegistrySync>>,
    sync_task: JoinHandle<()>,
    audit_task: JoinHandle<()>,
}

impl std::fmt::Debug for Workbench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workbench")
            .field("registry", &self.registry)
            .field("hub", &self.hub)
            .finish_non_exhaustive()
    }
}

impl Workbench {
    /// Builds the registry and starts every MCP server (they connect in the background;
    /// see [`Workbench::settle`]). Must run inside a tokio runtime.
    pub async fn start(
        config: &Config,
        dirs: &Dirs,
        options: WorkbenchOptions,
    ) -> Result<Self, WorkbenchError> {
        let mut policy = Policy::from_config(&config.policy).map_err(|errors| {
            WorkbenchError(
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        if let Some(mode) = options.mode {
            policy = policy.with_mode(mode);
        }
        let audit = open_audit(&policy, dirs);
        let broker = Arc::new(ApprovalBroker::new(options.interactive));
        let workspace = options.workspace.unwrap_or_else(|| dirs.cwd.clone());
        let hooks = Hooks::from_config(&config.hooks).map_err(|errors| {
            let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
            WorkbenchError(text.join("; "))
        })?;
        let mut registry = Registry::new(policy, Arc::clone(&broker))
            .with_audit(audit)
            .with_hooks(hooks.with_cwd(&workspace));
        if let Some(path) = &options.always_file {
            registry = registry.with_always_file(path);
        }
        let registry = Arc::new(registry);

        // Built-in tools go through the same gate as MCP tools; `switchboard call
        // builtin TOOL` reaches them by their bare name.
        let builtins = register_builtins(&registry, config, dirs, &workspace).await;
        if let Err(e) = &builtins {
            tracing::error!("built-in tools: {e}");
        }
        // `[agents.NAME]` as `agent__NAME` tools, behind the same gate.
        for (name, e) in crate::agents::register_agents(&registry, config, &workspace).await {
            tracing::error!("agent {name}: {e}");
        }
        // `tool_search = "on"`: in the catalog from the start, to try by hand too
        // (`auto` registers it with the first request that needs it).
        if config.mcp.tool_search == crate::config::ToolSearchSetting::On
            && let Err(e) = crate::tools::search::ensure_registered(&registry).await
        {
            tracing::error!("tool_search: {e}");
        }

        let capturing = options.wire.is_some();
        let wire = options
            .wire
            .unwrap_or_else(|| Arc::new(WireLog::new(config.mcp.wire_capacity)));
        // Servers that ask for roots (`roots/list`) get the workspace.
        let hub = McpHub::start_with(
            &config.servers,
            HubOptions {
                roots: vec![workspace.clone()],
                asker: options.asker.clone(),
                mcp: config.mcp.clone(),
                login: options.login.clone(),
                budget: Some(registry.budget()),
                wire: capturing.then(|| Arc::clone(&wire)),
                start: options.start.clone(),
                cache: Some(crate::mcp::catalog_cache::CatalogCache::new(
                    dirs.catalog_cache_dir(),
                )),
                apps: options.apps,
            },
        );
        let sync = Arc::new(Mutex::new(RegistrySync::default()));
        let sync_task = spawn_sync(Arc::clone(&registry), hub.clone(), Arc::clone(&sync));
        let audit_task = spawn_server_request_audit(Arc::clone(&registry), &hub);
        Ok(Self {
            config: config.clone(),
            registry,
            hub,
            broker,
            workspace,
            builtins,
            wire,
            capturing,
            sync,
            sync_task,
            audit_task,
        })
    }

    /// The wire capture when it is fed (the TUI, `--trace`); none headless without a
    /// trace, where [`Workbench::wire`] stays empty.
    pub fn wire_capture(&self) -> Option<&Arc<WireLog>> {
        self.capturing.then_some(&self.wire)
    }

    /// The longest a first connection (handshake plus catalog) may take: the largest
    /// startup timeout plus four list requests.
    pub fn settle_timeout(&self) -> Duration {
        self.config
            .servers
            .values()
            .map(|s| {
                let l = Limits::for_server(s);
                l.startup_timeout + l.request_timeout * 4
            })
            .max()
            .unwrap_or_default()
            + self.hub.login_allowance()
    }

    /// Waits until no server is connecting, then registers their tools.
    pub async fn settle(&self) -> Arc<HubSnapshot> {
        let snapshot = self.hub.settled(self.settle_timeout()).await;
        self.sync_now().await;
        snapshot
    }

    /// Waits for one server only, then registers its tools.
    pub async fn settle_server(&self, name: &str) {
        self.hub.settled_server(name, self.settle_timeout()).await;
        self.sync_now().await;
    }

    /// What a turn waits for before its first request: servers still connecting,
    /// then the registration of their tools.
    pub fn readiness(&self) -> Arc<dyn crate::agent::Readiness> {
        Arc::new(HubReadiness {
            hub: self.hub.clone(),
            registry: Arc::clone(&self.registry),
            sync: Arc::clone(&self.sync),
            timeout: self.settle_timeout(),
        })
    }

    /// Registers the tools of the current catalogs now.
    pub async fn sync_now(&self) {
        let mut state = self.sync.lock().await;
        sync_registry(&self.registry, &self.hub, &mut state).await;
    }

    /// Closes every server and tool.
    pub async fn shutdown(self) {
        self.sync_task.abort();
        self.hub.shutdown().await;
        // After the servers closed: every request they made has been recorded.
        self.audit_task.abort();
        self.registry.close_all().await;
    }
}

/// Every sampling and elicitation request a server makes lands in the audit log.
fn spawn_server_request_audit(registry: Arc<Registry>, hub: &McpHub) -> JoinHandle<()> {
    let mut events = hub.events();
    tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(McpEvent::Asked {
                    server,
                    kind,
                    outcome,
                    model,
                }) => {
                    let mut record = ServerRequestRecord::now(&server, kind, outcome);
                    record.model = model;
                    registry.audit().append_server_request(&record);
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    })
}

fn open_audit(policy: &Policy, dirs: &Dirs) -> AuditLog {
    let default = dirs.default_audit_log();
    let path: &Path = policy.audit_log().unwrap_or(&default);
    AuditLog::open(path, policy.audit_arguments()).unwrap_or_else(|e| {
        tracing::warn!("audit log disabled: {e}");
        AuditLog::disabled()
    })
}

/// [`crate::agent::Readiness`] over the hub: servers still connecting are pending.
struct HubReadiness {
    hub: McpHub,
    registry: Arc<Registry>,
    sync: Arc<Mutex<RegistrySync>>,
    timeout: Duration,
}

impl crate::agent::Readiness for HubReadiness {
    fn pending(&self) -> Vec<String> {
        self.hub
            .snapshot()
            .servers
            .iter()
            .filter(|s| !s.status.is_settled())
            .map(|s| s.name.clone())
            .collect()
    }

    fn settled(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            self.hub.settled(self.timeout).await;
            let mut state = self.sync.lock().await;
            sync_registry(&self.registry, &self.hub, &mut state).await;
        })
    }
}
