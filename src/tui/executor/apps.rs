//! The executor's side of MCP Apps: a result card's app is opened by reading the
//! tool's `ui://` page and serving it from a local host (`crate::apps`), showing the
//! card's call. The hosts run until switchboard exits. The app's calls pass the gate
//! with origin `app` and are heard on the session's route, so they ask in the
//! approval pane and get cards like any call; a link it wants opened is a URL
//! question; what else it does comes back as `Msg::App`.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use crate::agent::SinkObserver;
use crate::apps::{AppDeps, AppHost, AppResource, AppSession, CallState};
use crate::mcp::{Asker, HeadlessAsker, McpHub, WireLog};
use crate::tools::Registry;

use super::super::msg::{AppCmd, AppOpen, Msg};
use super::Executor;

/// The apps opened, and what they reach besides the registry and the hub.
#[derive(Clone, Default)]
pub struct OpenApps {
    hosts: Arc<Mutex<Vec<AppHost>>>,
    /// Asks the person before a link opens (the TUI's question cards).
    asker: Option<Arc<dyn Asker>>,
    /// The Wire view's capture.
    wire: Option<Arc<WireLog>>,
}

impl Executor {
    /// Who asks the person when an app wants a link opened, and where the app's
    /// messages are captured (the event loop sets the workbench's).
    #[must_use]
    pub fn with_apps(mut self, asker: Arc<dyn Asker>, wire: Option<Arc<WireLog>>) -> Self {
        self.apps.asker = Some(asker);
        self.apps.wire = wire;
        self
    }

    pub(super) fn execute_app(&mut self, cmd: AppCmd) {
        match cmd {
            AppCmd::Open(open) => {
                let app = format!("{}__{}", open.server, open.tool);
                let inbox = self.inbox.clone();
                let Some(hub) = self.hub.clone() else {
                    let _ = inbox.send(Msg::AppOpened {
                        app,
                        result: Err("no MCP servers in this session".into()),
                    });
                    return;
                };
                let opening = Opening {
                    registry: Arc::clone(&self.registry),
                    hub,
                    observer: SinkObserver(self.recorder.clone()),
                    inbox: inbox.clone(),
                };
                let apps = self.apps.clone();
                tokio::spawn(async move {
                    let result = apps.open(opening, *open).await;
                    let _ = inbox.send(Msg::AppOpened { app, result });
                });
            }
        }
    }
}

/// What an app opened from the TUI reaches.
struct Opening {
    registry: Arc<Registry>,
    hub: McpHub,
    observer: SinkObserver,
    inbox: mpsc::UnboundedSender<Msg>,
}

impl OpenApps {
    /// Reads the page and starts its host; the page's address.
    async fn open(&self, opening: Opening, open: AppOpen) -> Result<String, String> {
        let snapshot = opening.hub.snapshot();
        let tool = snapshot
            .server(&open.server)
            .and_then(|s| s.catalog.tool(&open.tool))
            .cloned()
            .ok_or_else(|| format!("{} no longer lists {}", open.server, open.tool))?;
        let uri = tool
            .ui_resource()
            .ok_or_else(|| format!("{} has no MCP App", open.tool))?
            .to_owned();
        let read = (opening.hub)
            .read_app_resource(&open.server, &uri)
            .await
            .map_err(|e| format!("cannot read {uri}: {e}"))?;
        let resource = AppResource::from_read(&uri, &read).map_err(|e| e.to_string())?;
        let (notes, mut heard) = mpsc::unbounded_channel();
        let inbox = opening.inbox.clone();
        tokio::spawn(async move {
            while let Some(note) = heard.recv().await {
                if inbox.send(Msg::App(note)).is_err() {
                    break;
                }
            }
        });
        let deps = AppDeps {
            registry: opening.registry,
            hub: opening.hub,
            asker: self
                .asker
                .clone()
                .unwrap_or_else(|| Arc::new(HeadlessAsker::default())),
            notes,
            wire: self.wire.clone(),
            observer: Some(Arc::new(opening.observer)),
        };
        let session = AppSession::new(&open.server, tool, resource, open.arguments, deps);
        session.finish(match open.result {
            Ok(result) => CallState::Done(result),
            Err(why) => CallState::Cancelled(why),
        });
        let host = AppHost::start(Arc::new(session))
            .await
            .map_err(|e| format!("cannot start the app's local host: {e}"))?;
        let url = host.url().to_owned();
        self.hosts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(host);
        Ok(url)
    }
}
