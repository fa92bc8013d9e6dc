//! Who is calling, from where, with which access: the context every call carries.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::allowlist::ToolAllowlist;
use crate::gate::{CallId, GateObserver};
use crate::policy::{Origin, RemoteClient, Scope};

/// The context of one call.
#[derive(Clone)]
pub struct ToolContext {
    /// The turn (or CLI invocation) this call belongs to.
    pub run_id: String,
    /// The call's id (the model's tool-call id, or one the caller minted). `None`: the
    /// gate mints `call-N`.
    pub call_id: Option<CallId>,
    pub scope: Scope,
    pub origin: Origin,
    /// A snapshot of caller metadata (e.g. progress token); shared, never mutated.
    pub metadata: Arc<Value>,
    /// Cancelling it aborts a call waiting for approval and cancels a running one.
    pub cancel: CancellationToken,
    /// Hears the gate's events about this call (`None`: nobody listens).
    pub observer: Option<Arc<dyn GateObserver>>,
    /// The serve client that asked (origin `serve`): its name, mode and budget.
    pub remote: Option<Arc<RemoteClient>>,
    /// The sub-agent making the call (`[agents.NAME]`), for the approval pane and
    /// the audit log.
    pub agent: Option<String>,
    /// How many agents deep the call is (0: the main agent or a person).
    pub depth: u32,
    /// A sub-agent's tool allowlist: the gate refuses other tools.
    pub allowlist: Option<Arc<ToolAllowlist>>,
    /// The MCP App making the call (origin `app`): its UI resource, for the approval
    /// pane and the audit log.
    pub app: Option<String>,
    /// The server whose UI the app is: the gate refuses an app's call to any other
    /// server's tool.
    pub app_server: Option<String>,
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("run_id", &self.run_id)
            .field("call_id", &self.call_id)
            .field("scope", &self.scope)
            .field("origin", &self.origin)
            .field("observed", &self.observer.is_some())
            .field("remote", &self.remote.as_ref().map(|r| r.name.as_str()))
            .field("agent", &self.agent)
            .field("app", &self.app)
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A full-scope context with no call id, no observer and empty metadata.
    pub fn new(run_id: impl Into<String>, origin: Origin) -> Self {
        Self {
            run_id: run_id.into(),
            call_id: None,
            scope: Scope::Full,
            origin,
            metadata: Arc::new(Value::Null),
            cancel: CancellationToken::new(),
            observer: None,
            remote: None,
            agent: None,
            depth: 0,
            allowlist: None,
            app: None,
            app_server: None,
        }
    }

    /// Why the context's allowlist (a sub-agent's) refuses `tool`, if it does.
    pub fn outside_allowlist(&self, tool: &str) -> Option<String> {
        (self.allowlist.as_ref()).and_then(|l| l.refusal(tool, self.agent.as_deref()))
    }

    /// Who asked, by name: the serve client (`NAME (unverified)` when it only declared
    /// the name), the sub-agent or the MCP App.
    pub fn asker(&self) -> Option<&str> {
        (self.remote.as_ref().map(|r| r.shown()))
            .or(self.agent.as_deref())
            .or(self.app.as_deref())
    }

    /// A call from an MCP App (origin `app`): `name` says which (its `ui://`
    /// resource), `server` is the server it came from.
    #[must_use]
    pub fn with_app(mut self, name: impl Into<String>, server: impl Into<String>) -> Self {
        self.origin = Origin::App;
        self.app = Some(name.into());
        self.app_server = Some(server.into());
        self
    }

    /// A call made by the sub-agent `name`, `depth` agents deep.
    #[must_use]
    pub fn with_agent(mut self, name: impl Into<String>, depth: u32) -> Self {
        self.agent = Some(name.into());
        self.depth = depth;
        self
    }

    #[must_use]
    pub fn with_allowlist(mut self, allowlist: Option<Arc<ToolAllowlist>>) -> Self {
        self.allowlist = allowlist;
        self
    }

    #[must_use]
    pub fn with_scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    #[must_use]
    pub fn with_call_id(mut self, call_id: CallId) -> Self {
        self.call_id = Some(call_id);
        self
    }

    #[must_use]
    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.metadata = Arc::new(metadata);
        self
    }

    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// A call from a serve client (origin `serve`).
    #[must_use]
    pub fn with_remote(mut self, client: Arc<RemoteClient>) -> Self {
        self.origin = Origin::Serve;
        self.remote = Some(client);
        self
    }

    /// The serve client's name, for people ("asked by NAME via serve").
    pub fn client_name(&self) -> Option<&str> {
        self.remote.as_ref().map(|r| r.name.as_str())
    }

    #[must_use]
    pub fn with_observer(mut self, observer: Arc<dyn GateObserver>) -> Self {
        self.observer = Some(observer);
        self
    }
}
