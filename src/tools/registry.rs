//! The registry: the set of callable tools and the gate every call passes
//! ([`Registry::invoke`], in `invoke.rs`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use tokio::task::JoinHandle;

use super::lease::{Instance, Lease};
use super::spec::ToolSpec;
use super::tool::{Tool, ToolError};
use crate::gate::ApprovalBroker;
use crate::hooks::Hooks;
use crate::policy::{AuditLog, BudgetSpent, CallBudget, Mode, Policy, SessionGrants};

/// A call could not be made at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvokeError {
    #[error("unknown tool {name:?}")]
    NotFound { name: String },
}

/// Tools by qualified name, plus everything the gate needs to authorise a call.
pub struct Registry {
    tools: RwLock<HashMap<String, Arc<Instance>>>,
    pub(super) policy: Arc<Policy>,
    /// The mode calls are decided in: `[policy] mode` at first, switched live
    /// (Shift+Tab, `/mode`) with [`Registry::set_mode`].
    mode: RwLock<Mode>,
    pub(super) grants: SessionGrants,
    pub(super) budget: Arc<CallBudget>,
    pub(super) broker: Arc<ApprovalBroker>,
    pub(super) audit: AuditLog,
    pub(super) always_file: Option<PathBuf>,
    pub(super) next_call: AtomicU64,
    /// `[[hooks.*]]`: run by the gate for every call.
    pub(super) hooks: Arc<Hooks>,
    retiring: Mutex<Vec<JoinHandle<()>>>,
    /// Bumped whenever the set of tools may have changed (what `tool_search`'s index
    /// keys on).
    generation: AtomicU64,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.names())
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// An empty registry deciding with `policy` and asking through `broker`.
    /// The audit log is disabled until [`Registry::with_audit`].
    pub fn new(policy: Policy, broker: Arc<ApprovalBroker>) -> Self {
        let budget = Arc::new(CallBudget::new(policy.max_calls().clone()));
        Self {
            tools: RwLock::default(),
            mode: RwLock::new(policy.mode()),
            policy: Arc::new(policy),
            grants: SessionGrants::new(),
            budget,
            broker,
            audit: AuditLog::disabled(),
            always_file: None,
            next_call: AtomicU64::new(0),
            hooks: Arc::default(),
            retiring: Mutex::default(),
            generation: AtomicU64::new(0),
        }
    }

    #[must_use]
    /// Where decided calls (and servers' requests of the person) are recorded.
    pub fn audit(&self) -> &AuditLog {
        &self.audit
    }

    /// The hooks every call through the gate runs (`pre_tool_use`,
    /// `permission_request`, `post_tool_use`).
    #[must_use]
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = Arc::new(hooks);
        self
    }

    /// The configured hooks (sessions run `user_prompt_submit`, `session_start` and
    /// `stop` from here).
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    pub fn with_audit(mut self, audit: AuditLog) -> Self {
        self.audit = audit;
        self
    }

    /// The config file "always" approvals append their rule to.
    #[must_use]
    pub fn with_always_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.always_file = Some(path.into());
        self
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The mode calls are decided in now.
    pub fn mode(&self) -> Mode {
        *self.mode.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Switches the mode for every call decided from now on (calls waiting for
    /// approval keep their question); the switch is an audit line.
    pub fn set_mode(&self, mode: Mode) {
        let was = std::mem::replace(
            &mut *self.mode.write().unwrap_or_else(PoisonError::into_inner),
            mode,
        );
        if was != mode {
            let mut line = serde_json::Map::new();
            line.insert("event".into(), "mode".into());
            line.insert("mode".into(), mode.as_str().into());
            line.insert("was".into(), was.as_str().into());
            self.audit.append_trace(line);
        }
    }

    pub fn grants(&self) -> &SessionGrants {
        &self.grants
    }

    /// Counts one use of `name` against `[policy] max_calls` for work that is not a
    /// tool call but is budgeted like one; `Err` says the budget is spent.
    pub fn spend_budget(&self, name: &str) -> Result<(), BudgetSpent> {
        self.budget.consume(name)
    }

    /// The session's `[policy] max_calls` counters, shared with whoever spends from
    /// them outside the gate (the MCP hub counts servers' sampling requests).
    pub fn budget(&self) -> Arc<CallBudget> {
        Arc::clone(&self.budget)
    }

    pub fn broker(&self) -> &Arc<ApprovalBroker> {
        &self.broker
    }

    /// Starts the tool and adds it under its spec name.
    pub async fn register(&self, tool: Arc<dyn Tool>) -> Result<(), ToolError> {
        let name = tool.spec().name.clone();
        if self.read().contains_key(&name) {
            return Err(ToolError::Duplicate { tool: name });
        }
        tool.start().await?;
        let inserted = {
            let mut tools = self.write();
            let vacant = !tools.contains_key(&name);
            if vacant {
                tools.insert(name.clone(), Instance::new(Arc::clone(&tool)));
            }
            vacant
        };
        if inserted {
            Ok(())
        } else {
            tool.close().await;
            Err(ToolError::Duplicate { tool: name })
        }
    }

    /// Starts `tool`, then puts it in place of the instance called `name` (or adds it).
    /// Calls in flight finish on the old instance, which is closed after its last call.
    pub async fn replace(&self, name: &str, tool: Arc<dyn Tool>) -> Result<(), ToolError> {
        if tool.spec().name != name {
            return Err(ToolError::NameMismatch {
                expected: name.to_owned(),
                found: tool.spec().name.clone(),
            });
        }
        tool.start().await?;
        let old = self.write().insert(name.to_owned(), Instance::new(tool));
        if let Some(old) = old {
            self.retire(old);
        }
        Ok(())
    }

    /// Removes a tool; it is closed after its last call (on the current tokio runtime).
    /// False when absent.
    pub fn unregister(&self, name: &str) -> bool {
        let old = self.write().remove(name);
        old.map(|old| self.retire(old)).is_some()
    }

    /// Removes every tool and waits until all of them (and earlier replaced ones) are
    /// closed.
    pub async fn close_all(&self) {
        let all: Vec<Arc<Instance>> = self.write().drain().map(|(_, v)| v).collect();
        futures::future::join_all(all.into_iter().map(Instance::retire)).await;
        let retiring =
            std::mem::take(&mut *self.retiring.lock().unwrap_or_else(PoisonError::into_inner));
        for handle in retiring {
            if let Err(e) = handle.await {
                tracing::warn!("closing a replaced tool failed: {e}");
            }
        }
    }

    /// Specs of all tools, sorted by name.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = self
            .read()
            .values()
            .map(|i| i.tool().spec().clone())
            .collect();
        specs.sort_by(|a, b| a.name.cmp(&b.name));
        specs
    }

    /// The specs a model may be told of: never an app-only one (MCP Apps, see
    /// `ToolSpec::app_only`). Every declaration to a model starts here.
    pub fn model_specs(&self) -> Vec<ToolSpec> {
        let mut specs = self.specs();
        specs.retain(|s| !s.app_only);
        specs
    }

    /// Changes whenever a tool may have been added, replaced or removed.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Names of all tools, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.read().keys().cloned().collect();
        names.sort();
        names
    }

    /// Whether a tool called `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.read().contains_key(name)
    }

    /// A lease on the current instance of `name`. Only the gate takes leases: nothing
    /// outside it can reach a registered tool's `invoke`.
    pub(super) fn lease(&self, name: &str) -> Option<Lease> {
        self.read().get(name).map(Instance::lease)
    }

    fn retire(&self, old: Arc<Instance>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no async runtime: a removed tool is dropped without close()");
            return;
        };
        let handle = runtime.spawn(old.retire());
        let mut retiring = self.retiring.lock().unwrap_or_else(PoisonError::into_inner);
        retiring.retain(|h| !h.is_finished());
        retiring.push(handle);
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Arc<Instance>>> {
        self.tools.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every write may change the set of tools, so it bumps [`Registry::generation`].
    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<String, Arc<Instance>>> {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.tools.write().unwrap_or_else(PoisonError::into_inner)
    }
}
