//! `switchboard mcp login NAME`, `mcp logout NAME`, `mcp auth-status`, and the
//! terminal's login prompt that headless commands use when a server asks for a login:
//! the page opens in `$BROWSER` (or the platform opener, or the URL is printed), and
//! when stdin is a terminal the redirect URL or the bare code can be pasted instead.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::sync::Arc;

use tokio::sync::{Mutex, mpsc};

use crate::cli::mcp_session::{exit, print, safe};
use crate::config::{Config, ServerConfig};
use crate::mcp::oauth::{self, FileCredentialStore, LoginPrompt, LoginTarget};

/// The server's URL, or the exit status after saying why there is none.
fn http_server<'a>(config: &'a Config, name: &str) -> Result<(&'a ServerConfig, &'a str), i32> {
    let Some(server) = config.servers.get(name) else {
        eprintln!("no MCP server named {}", safe(name));
        return Err(exit::USAGE);
    };
    if let Some(url) = server.url.as_deref() {
        return Ok((server, url));
    }
    eprintln!(
        "server {} runs over stdio; only HTTP servers log in",
        safe(name)
    );
    Err(exit::USAGE)
}

pub(super) async fn login(config: &Config, name: &str) -> i32 {
    let (server, url) = match http_server(config, name) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let target = LoginTarget {
        server: name.to_owned(),
        url: url.to_owned(),
        settings: server.oauth.clone().unwrap_or_default(),
        challenge: oauth::challenge_of(url).await,
        scopes: Vec::new(),
    };
    match oauth::login(&target, &TerminalPrompt::new()).await {
        Ok(summary) => {
            print(&format!("{}: {}\n", safe(name), safe(&summary.to_string())));
            exit::OK
        }
        Err(e) => {
            eprintln!("{}", safe(&e.to_string()));
            exit::UNREACHABLE
        }
    }
}

pub(super) fn logout(config: &Config, name: &str) -> i32 {
    let url = match http_server(config, name) {
        Ok((_, url)) => url,
        Err(code) => return code,
    };
    match FileCredentialStore::for_server(url).remove() {
        Ok(true) => print(&format!("{}: logged out\n", safe(name))),
        Ok(false) => print(&format!("{}: no stored login\n", safe(name))),
        Err(e) => {
            eprintln!("{}", safe(&e.to_string()));
            return exit::USAGE;
        }
    }
    exit::OK
}

pub(super) async fn auth_status(config: &Config) -> i32 {
    if config.servers.is_empty() {
        print("no MCP servers configured\n");
    }
    let mut out = String::new();
    for (name, server) in &config.servers {
        let state = match (&server.url, &server.bearer_token_env_var) {
            (None, _) => "not needed (stdio)".to_owned(),
            (Some(_), Some(var)) => format!("not needed (bearer token from {var})"),
            (Some(url), None) => match oauth::stored_login(url) {
                Ok(Some(summary)) => summary.to_string(),
                Ok(None) if oauth::challenge_of(url).await.is_some() => {
                    format!("needs login: run `switchboard mcp login {name}`")
                }
                Ok(None) => "not needed".to_owned(),
                Err(e) => e.to_string(),
            },
        };
        let _ = writeln!(out, "{:<16} {}", safe(name), safe(&state));
    }
    print(&out);
    exit::OK
}

/// Whether a headless command can show a login page: `$BROWSER` is set, or stdin is
/// a terminal to paste into.
pub fn can_prompt() -> bool {
    std::env::var_os("BROWSER").is_some_and(|b| !b.is_empty()) || std::io::stdin().is_terminal()
}

/// The prompt of a headless command: one when it can show a page.
pub fn headless_login() -> Option<Arc<dyn LoginPrompt>> {
    can_prompt().then(|| Arc::new(TerminalPrompt::new()) as Arc<dyn LoginPrompt>)
}

/// As [`headless_login`], for `run`, whose terminal answers approvals: the page is
/// opened or printed, and only the loopback redirect completes the login.
pub fn headless_login_without_paste() -> Option<Arc<dyn LoginPrompt>> {
    can_prompt().then(|| {
        Arc::new(TerminalPrompt {
            paste: false,
            ..TerminalPrompt::new()
        }) as Arc<dyn LoginPrompt>
    })
}

/// The terminal's side of a login.
#[derive(Debug)]
pub struct TerminalPrompt {
    lines: Arc<Mutex<Option<mpsc::UnboundedReceiver<String>>>>,
    /// Offer to paste the redirect when stdin is a terminal.
    paste: bool,
}

impl TerminalPrompt {
    pub fn new() -> Self {
        Self {
            lines: Arc::new(Mutex::new(None)),
            paste: true,
        }
    }
}

impl Default for TerminalPrompt {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait::async_trait]
impl LoginPrompt for TerminalPrompt {
    async fn present(&self, server: &str, url: &str, port: u16) -> Option<String> {
        let server = safe(server);
        match oauth::browser::open(url).await {
            Ok(program) => eprintln!(
                "{server}: opened the authorization page with {}",
                safe(&program)
            ),
            Err(why) => eprintln!(
                "{server}: could not open a browser ({}); open this URL:\n  {}",
                safe(&why.to_string()),
                safe(url)
            ),
        }
        eprintln!("{server}: waiting for the redirect on 127.0.0.1:{port}");
        if !self.paste || !std::io::stdin().is_terminal() {
            return None;
        }
        eprintln!("{server}: or paste the redirect URL (or the code) here and press Enter:");
        let mut lines = self.lines.lock().await;
        // One reader thread for the whole process (a blocked read cannot be
        // cancelled; a second thread would steal the next login's line).
        let rx = lines.get_or_insert_with(stdin_lines);
        rx.recv().await.filter(|l| !l.trim().is_empty())
    }
}

fn stdin_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
