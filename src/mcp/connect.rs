//! Opening a connection of each transport and doing the `initialize` handshake, within
//! the startup timeout. Every failure is `mcp_handshake_failed` (or a config error).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::model::ProtocolVersion;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::ChildStderr;

use super::client::ClientSide;
use super::endpoint::{Endpoint, TransportKind};
use super::erased::Erased;
use super::error::{McpError, untrusted};
use super::http_client::Backend;
use super::input_closed::InputClosed;
use super::limits::Limits;
use super::refusal_tap::RefusalTap;
use super::snapshot::McpEvent;
use super::stderr::{Admit, LogBudget, StderrTail};
use super::stdio_child::ChildTransport;
use super::wire_tap::tap;
use crate::config::ProtocolChoice;

pub type Service = RunningService<RoleClient, ClientSide>;

/// How long after cancelling rmcp may take to close a stdio server's input: it
/// drains in-flight answers for up to two seconds first.
const INPUT_CLOSE_LIMIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How long a failed sandboxed start waits for the launcher's stderr to end.
const LAST_WORDS: std::time::Duration = std::time::Duration::from_secs(1);

/// A live connection, and the child process for stdio servers.
pub struct Connected {
    pub service: Service,
    pub child: Option<StdioChild>,
}

/// A stdio server's process: its id, and the signal that its input is closed.
pub struct StdioChild {
    pub pid: Option<u32>,
    pub input_closed: Arc<tokio::sync::Notify>,
}

/// How the handshake goes for a protocol choice: `auto` probes with `server/discover`
/// (2026-07-28) and falls back to `initialize` offering 2025-11-25; legacy HTTP+SSE
/// servers predate `server/discover` and get `initialize` straight away.
pub fn lifecycle(protocol: ProtocolChoice, kind: TransportKind) -> ClientLifecycleMode {
    let modern = vec![ProtocolVersion::V_2026_07_28];
    match (protocol, kind) {
        (ProtocolChoice::V2025, _) | (ProtocolChoice::Auto, TransportKind::Sse) => {
            ClientLifecycleMode::Initialize
        }
        (ProtocolChoice::V2026, _) => ClientLifecycleMode::Discover {
            preferred_versions: modern,
        },
        (ProtocolChoice::Auto, _) => ClientLifecycleMode::Auto {
            preferred_versions: modern,
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        },
    }
}

/// Connects and does the handshake (`server/discover` or `initialize`, per
/// `protocol`), or fails within `limits.startup_timeout`. `auto` falls back to
/// `initialize` on a fresh connection whenever discovery fails (a server that knows
/// only older versions, or one that rejects the unknown method out of band).
pub async fn connect(
    endpoint: &Endpoint,
    client: ClientSide,
    limits: &Limits,
    stderr: &Arc<StderrTail>,
    protocol: ProtocolChoice,
) -> Result<Connected, McpError> {
    let mode = lifecycle(protocol, endpoint.kind());
    let fallback = matches!(mode, ClientLifecycleMode::Auto { .. });
    let name = client.server.to_string();
    let attempts = async {
        let first = connect_once(endpoint, client.clone(), limits, stderr, mode).await;
        match first {
            Err(McpError::Handshake { reason, .. }) if fallback => {
                tracing::info!(server = %client.server, "server/discover failed ({reason}); trying initialize");
                connect_once(
                    endpoint,
                    client,
                    limits,
                    stderr,
                    ClientLifecycleMode::Initialize,
                )
                .await
            }
            Ok(connected) if protocol == ProtocolChoice::V2025 => session_only(connected, &client),
            Err(McpError::Handshake { server, reason }) if protocol == ProtocolChoice::V2026 => {
                // The server may well speak the older generation: say how to let it.
                Err(McpError::Handshake {
                    reason: format!(
                        "{reason} — protocol = \"2026-07-28\" needs server/discover; \
                         protocol = \"auto\" (the default) falls back to initialize"
                    ),
                    server,
                })
            }
            other => other,
        }
    };
    match tokio::time::timeout(limits.startup_timeout, attempts).await {
        Ok(result) => result,
        Err(_) => Err(McpError::Handshake {
            server: name,
            reason: format!(
                "timeout: no answer to the handshake ({}) within {:.1}s",
                protocol.as_str(),
                limits.startup_timeout.as_secs_f64()
            ),
        }),
    }
}

/// `protocol = "2025-11-25"` wants a session: a server that answers `initialize`
/// with a version that has none is refused.
fn session_only(connected: Connected, client: &ClientSide) -> Result<Connected, McpError> {
    let version = connected
        .service
        .peer_info()
        .map(|i| i.protocol_version.clone());
    match version {
        Some(v) if !v.has_initialize() => Err(McpError::Handshake {
            server: client.server.to_string(),
            reason: format!(
                "the server answered initialize with {} (no session), but protocol = \"2025-11-25\"",
                untrusted(v.as_str(), 40)
            ),
        }),
        _ => Ok(connected),
    }
}

async fn connect_once(
    endpoint: &Endpoint,
    client: ClientSide,
    limits: &Limits,
    stderr: &Arc<StderrTail>,
    mode: ClientLifecycleMode,
) -> Result<Connected, McpError> {
    let server = client.server.to_string();
    let wire = super::wire_tap::WirePeer::of(client.wire.as_ref(), &server);
    match endpoint {
        Endpoint::Stdio {
            program,
            args,
            env,
            cwd,
            sandbox,
        } => {
            let process = Process {
                program,
                args,
                env,
                cwd: cwd.as_deref(),
                sandbox: sandbox.as_ref(),
            };
            connect_stdio(&process, client, stderr, mode, wire).await
        }
        Endpoint::Remote {
            kind,
            url,
            headers,
            bearer_token_env_var,
            oauth,
        } => {
            let remote = Remote {
                kind: *kind,
                url,
                headers,
                bearer_token_env_var: bearer_token_env_var.as_deref(),
                oauth,
            };
            connect_remote(&remote, client, limits, mode, wire).await
        }
    }
}

/// A stdio server's process, as its endpoint says.
struct Process<'a> {
    program: &'a str,
    args: &'a [String],
    env: &'a BTreeMap<String, String>,
    cwd: Option<&'a std::path::Path>,
    sandbox: Option<&'a crate::config::SandboxConfig>,
}

/// A remote server, as its endpoint says.
struct Remote<'a> {
    kind: TransportKind,
    url: &'a str,
    headers: &'a BTreeMap<String, String>,
    bearer_token_env_var: Option<&'a str>,
    oauth: &'a crate::config::OAuthClientSettings,
}

fn handshake(server: &str, reason: String) -> McpError {
    McpError::Handshake {
        server: server.to_owned(),
        reason,
    }
}

/// Starts the process (through the sandbox launcher when it has one) and shakes
/// hands over its stdin and stdout; its stderr goes to the log and the tail.
async fn connect_stdio(
    process: &Process<'_>,
    client: ClientSide,
    stderr: &Arc<StderrTail>,
    mode: ClientLifecycleMode,
    wire: Option<super::wire_tap::WirePeer>,
) -> Result<Connected, McpError> {
    let server = client.server.to_string();
    let Process {
        program,
        args,
        env,
        cwd,
        sandbox,
    } = *process;
    let mut command = match sandbox {
        None => {
            let mut command = tokio::process::Command::new(program);
            command.args(args).envs(env);
            command
        }
        Some(settings) => {
            let launch = crate::sandbox::resolve::Server {
                name: &server,
                program,
                args,
                env,
                cwd,
            };
            crate::sandbox::command(&launch, settings)
                .map_err(|reason| handshake(&server, reason.to_string()))?
                .into()
        }
    };
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let (transport, pipe) = ChildTransport::spawn(command, client.task_support.clone())
        .map_err(|e| handshake(&server, format!("cannot start {program:?}: {e}")))?;
    let reader =
        pipe.map(|pipe| tokio::spawn(read_stderr(pipe, client.clone(), Arc::clone(stderr))));
    let child = StdioChild {
        pid: transport.id(),
        input_closed: Arc::new(tokio::sync::Notify::new()),
    };
    let transport = InputClosed::new(transport, Arc::clone(&child.input_closed));
    let routes = Arc::clone(&client.routes);
    match client
        .serve_with_lifecycle(Erased::new(tap(transport, wire), routes), mode)
        .await
    {
        Ok(service) => Ok(Connected {
            service,
            child: Some(child),
        }),
        Err(e) => {
            // A sandbox that could not be set up says why on stderr as the launcher
            // exits: wait (briefly) for that line.
            if let (Some(_), Some(reader)) = (sandbox, reader) {
                let _ = tokio::time::timeout(LAST_WORDS, reader).await;
            }
            let mut reason = untrusted(&e.to_string(), 300);
            if let Some(last) = stderr.last() {
                reason.push_str("; stderr: ");
                reason.push_str(&untrusted(&last, 200));
            }
            Err(handshake(&server, reason))
        }
    }
}

/// The headers of a remote server with `Authorization: Bearer $VAR` added when it
/// names a variable; an unset one or a token that is no header value refuses.
fn remote_headers(server: &str, remote: &Remote<'_>) -> Result<HeaderMap, McpError> {
    let mut headers = header_map(server, remote.headers)?;
    if let Some(var) = remote.bearer_token_env_var {
        let token = std::env::var(var).map_err(|_| {
            McpError::refused(
                server,
                format!("the environment variable {var} (bearer_token_env_var) is not set"),
            )
        })?;
        let value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
            McpError::refused(
                server,
                format!("the token in {var} is not a valid header value"),
            )
        })?;
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    Ok(headers)
}

/// Legacy SSE, or Streamable HTTP with a static token or rmcp's OAuth client; a 401
/// with a challenge means a login is needed.
async fn connect_remote(
    remote: &Remote<'_>,
    client: ClientSide,
    limits: &Limits,
    mode: ClientLifecycleMode,
    wire: Option<super::wire_tap::WirePeer>,
) -> Result<Connected, McpError> {
    let server = client.server.to_string();
    let url = remote.url;
    let headers = remote_headers(&server, remote)?;
    if remote.kind == TransportKind::Sse {
        let transport = super::sse::connect(&server, url, headers, limits.max_message_bytes())
            .await
            .map_err(|e| handshake(&server, untrusted(&e.to_string(), 300)))?;
        let routes = Arc::clone(&client.routes);
        return client
            .serve_with_lifecycle(Erased::new(tap(transport, wire), routes), mode)
            .await
            .map(|service| Connected {
                service,
                child: None,
            })
            .map_err(|e| handshake(&server, untrusted(&e.to_string(), 300)));
    }
    let probe_headers = headers.clone();
    let custom: HashMap<HeaderName, HeaderValue> = headers
        .into_iter()
        .filter_map(|(k, v)| Some((k?, v)))
        .collect();
    let config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(custom)
        .max_sse_event_size(limits.max_message_bytes())
        .max_json_response_size(limits.max_message_bytes());
    let static_token = remote.bearer_token_env_var.is_some()
        || config
            .custom_headers
            .contains_key(&reqwest::header::AUTHORIZATION);
    let http = super::http_client::streamable_http_client()
        .map_err(|e| handshake(&server, untrusted(&e.to_string(), 300)))?;
    let (refusals, tasks) = (client.refusals.clone(), client.task_support.clone());
    let routes = Arc::clone(&client.routes);
    let backend = if static_token {
        Backend::Plain(http)
    } else {
        let auth = super::oauth::authorized_client(&server, url, remote.oauth, http)
            .await
            .map_err(|e| handshake(&server, e.to_string()))?;
        Backend::OAuth(auth)
    };
    let http = RefusalTap::new(backend, refusals, tasks, wire);
    let transport = StreamableHttpClientTransport::with_client(http, config);
    let served = client
        .serve_with_lifecycle(Erased::new(transport, routes), mode)
        .await;
    match served {
        Ok(service) => Ok(Connected {
            service,
            child: None,
        }),
        Err(e) => {
            if let Some(challenge) = e.auth_challenge() {
                return Err(super::error::needs_login(&server, challenge));
            }
            let said = e.to_string();
            let why = super::http_failure::describe(url, probe_headers, &said).await;
            Err(handshake(&server, why))
        }
    }
}

/// The stdio shutdown sequence of the MCP spec: close the connection (stdin), give
/// the server time to exit while it is still working ([`super::exit_watch`]), SIGTERM
/// it once it idles or that time is up, and wait for the end up to `close_timeout`
/// (rmcp kills the child after that). The watch starts once the input is closed
/// ([`InputClosed`]): before that the server has not been asked to exit.
pub async fn close<F: std::future::Future>(
    cancel: rmcp::service::RunningServiceCancellationToken,
    mut done: std::pin::Pin<&mut F>,
    child: Option<&StdioChild>,
    limits: &Limits,
) {
    cancel.cancel();
    let Some(child) = child else {
        let _ = tokio::time::timeout(limits.close_timeout, done).await;
        return;
    };
    tokio::select! {
        _ = done.as_mut() => return,
        () = child.input_closed.notified() => {}
        () = tokio::time::sleep(INPUT_CLOSE_LIMIT) => {}
    }
    let pid = child.pid;
    let mut watch = super::exit_watch::ExitWatch::new(pid);
    loop {
        if tokio::time::timeout(super::exit_watch::POLL, done.as_mut())
            .await
            .is_ok()
        {
            return;
        }
        if watch.give_up() {
            break;
        }
    }
    // The child is not reaped until rmcp waits for it, so the pid is still ours.
    if let Some(pid) = pid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    let _ = tokio::time::timeout(limits.close_timeout, done).await;
}

fn header_map(server: &str, headers: &BTreeMap<String, String>) -> Result<HeaderMap, McpError> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let bad =
            |what: &str| McpError::refused(server, format!("header {name:?}: invalid {what}"));
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("name"))?;
        let value = HeaderValue::from_str(value).map_err(|_| bad("value"))?;
        map.insert(name, value);
    }
    Ok(map)
}

/// Keeps the tail, logs lines within the server's [`LogBudget`], and never lets
/// stderr reach the terminal.
async fn read_stderr(pipe: ChildStderr, client: ClientSide, tail: Arc<StderrTail>) {
    let mut lines = BufReader::new(pipe).lines();
    let mut budget = LogBudget::default();
    loop {
        match lines.next_line().await {
            Ok(Some(line)) => {
                log_stderr(&client.server, &line, &mut budget);
                tail.push(&line);
                if client.events.receiver_count() > 0 {
                    let _ = client.events.send(McpEvent::Stderr {
                        server: client.server.to_string(),
                        line,
                    });
                }
            }
            Ok(None) => break,
            Err(e) => {
                tracing::debug!(server = %client.server, "stderr is not text: {e}");
                break;
            }
        }
    }
}

fn log_stderr(server: &str, line: &str, budget: &mut LogBudget) {
    let (note, keep) = match budget.admit(std::time::Instant::now()) {
        Admit::Log { note } => (note, true),
        Admit::Drop { note } => (note, false),
    };
    if let Some(note) = note {
        tracing::warn!(target: crate::logging::SERVER_LOG_TARGET, server, "{note}");
    }
    if keep {
        tracing::info!(
            target: crate::logging::SERVER_LOG_TARGET,
            server,
            "stderr: {}",
            untrusted(line, 2000)
        );
    }
}
