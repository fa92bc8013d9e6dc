//! Leases on tool instances: a call holds its instance from authorisation to the end of
//! execution, and a replaced instance is closed only after its last lease ends.

use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

use super::tool::Tool;

/// One registered instance of a tool and the number of calls using it.
pub(super) struct Instance {
    tool: Arc<dyn Tool>,
    active: AtomicUsize,
    idle: Notify,
}

impl Instance {
    pub(super) fn new(tool: Arc<dyn Tool>) -> Arc<Self> {
        Arc::new(Self {
            tool,
            active: AtomicUsize::new(0),
            idle: Notify::new(),
        })
    }

    pub(super) fn tool(&self) -> &Arc<dyn Tool> {
        &self.tool
    }

    /// Take a lease. The registry does this under its map lock, so a retired instance
    /// (no longer in the map) gets no new leases.
    pub(super) fn lease(self: &Arc<Self>) -> Lease {
        self.active.fetch_add(1, Ordering::AcqRel);
        Lease {
            instance: Arc::clone(self),
        }
    }

    /// Waits until no call holds a lease, then closes the tool.
    pub(super) async fn retire(self: Arc<Self>) {
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.active.load(Ordering::Acquire) == 0 {
                break;
            }
            idle.await;
        }
        self.tool.close().await;
    }
}

/// A call's hold on one tool instance.
pub(super) struct Lease {
    instance: Arc<Instance>,
}

impl Deref for Lease {
    type Target = dyn Tool;

    fn deref(&self) -> &Self::Target {
        self.instance.tool.as_ref()
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.instance.active.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.instance.idle.notify_waiters();
        }
    }
}
