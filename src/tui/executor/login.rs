//! The executor's side of a login started in the TUI: the OAuth flow runs as a
//! background task (`mcp::oauth::login`); its prompt opens the page, tells the
//! overlay the URL and the listener's port, and waits for a paste. Whichever comes
//! first, the browser's redirect or the paste, finishes the login; then the server
//! reconnects with the stored tokens.

use std::sync::Mutex;

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use crate::mcp::oauth::{self, LoginPrompt};
use crate::mcp::{McpHub, ServerHandle};

use super::super::login::LoginMsg;
use super::super::msg::{LoginCmd, Msg};
use super::Executor;

/// The running login: where a paste goes, and the task to stop on Esc.
pub struct LoginTask {
    server: String,
    paste: Option<oneshot::Sender<String>>,
    task: tokio::task::AbortHandle,
}

impl Drop for LoginTask {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The overlay as the login's prompt.
#[derive(Debug)]
struct OverlayPrompt {
    inbox: UnboundedSender<Msg>,
    pasted: Mutex<Option<oneshot::Receiver<String>>>,
}

#[async_trait::async_trait]
impl LoginPrompt for OverlayPrompt {
    async fn present(&self, server: &str, url: &str, port: u16) -> Option<String> {
        let opened = oauth::browser::open(url).await.map_err(|e| e.to_string());
        let _ = self.inbox.send(Msg::Login(LoginMsg::Waiting {
            server: server.to_owned(),
            url: url.to_owned(),
            port,
            opened,
        }));
        let pasted = self
            .pasted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()?;
        // No paste (the overlay closed): the listener alone finishes the login.
        pasted.await.ok()
    }
}

impl Executor {
    pub(super) fn execute_login(&mut self, cmd: LoginCmd) -> Option<Msg> {
        match cmd {
            LoginCmd::Start(server) => self.start_login(server),
            LoginCmd::Paste(text) => {
                self.paste_login(text);
                None
            }
            LoginCmd::Cancel => {
                self.cancel_login();
                None
            }
        }
    }

    /// Starts a login to `server` (stopping one already running).
    fn start_login(&mut self, server: String) -> Option<Msg> {
        self.login = None;
        let finished = |result| {
            Some(Msg::Login(LoginMsg::Finished {
                server: server.clone(),
                result,
            }))
        };
        let Some(hub) = self.hub.clone() else {
            return finished(Err("no MCP servers are configured".into()));
        };
        let handle = match hub.server(&server) {
            Ok(handle) => std::sync::Arc::clone(handle),
            Err(e) => return finished(Err(e.to_string())),
        };
        let (paste, pasted) = oneshot::channel();
        let prompt = OverlayPrompt {
            inbox: self.inbox.clone(),
            pasted: Mutex::new(Some(pasted)),
        };
        let inbox = self.inbox.clone();
        let name = server.clone();
        let task = tokio::spawn(async move {
            let result = run(&hub, &handle, &prompt).await;
            let _ = inbox.send(Msg::Login(LoginMsg::Finished {
                server: name,
                result,
            }));
        });
        self.login = Some(LoginTask {
            server,
            paste: Some(paste),
            task: task.abort_handle(),
        });
        None
    }

    /// Hands what the person pasted to the running login.
    fn paste_login(&mut self, text: String) {
        if let Some(paste) = self.login.as_mut().and_then(|l| l.paste.take()) {
            let _ = paste.send(text);
        }
    }

    /// Stops the running login (its listener closes with it).
    fn cancel_login(&mut self) {
        if let Some(login) = self.login.take() {
            tracing::info!("login to {} cancelled", login.server);
        }
    }
}

/// The login itself: the challenge the server last answered with (or a fresh one),
/// then the flow; the summary of what was granted.
async fn run(
    hub: &McpHub,
    handle: &ServerHandle,
    prompt: &OverlayPrompt,
) -> Result<String, String> {
    let snapshot = hub.snapshot();
    let mut challenge = snapshot
        .server(&handle.name)
        .and_then(|s| ServerHandle::last_challenge(s));
    let url = handle
        .config
        .url
        .clone()
        .ok_or_else(|| format!("{} is not an HTTP server", handle.name))?;
    if challenge.is_none() {
        challenge = oauth::challenge_of(&url).await;
    }
    let target = handle
        .login_target(challenge, None)
        .map_err(|e| e.to_string())?;
    let summary = oauth::login(&target, prompt)
        .await
        .map_err(|e| e.to_string())?;
    tracing::info!(server = handle.name, "{summary}");
    Ok(summary.to_string())
}
