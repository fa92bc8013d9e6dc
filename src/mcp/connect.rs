//! Opening a connection of each transport and doing the `initialize` handshake, within
//! the startup timeout. Every failure is `mcp_handshake_failed` (or a config error).

use std::collections::{BTreeMap, HashMap};
use std::process::Stdio;
use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::ChildStderr;

use super::client::ClientSide;
use super::endpoint::{Endpoint, TransportKind};
use super::error::{McpError, untrusted};
use super::limits::Limits;
use super::snapshot::McpEvent;
use super::stderr::StderrTail;

pub type Service = RunningService<RoleClient, ClientSide>;

/// A live connection, and the child's process id for stdio servers.
pub struct Connected {
    pub service: Service,
    pub pid: Option<u32>,
}

/// Connects and initialises, or fails within `limits.startup_timeout`.
pub async fn connect(
    endpoint: &Endpoint,
    client: ClientSide,
    limits: &Limits,
    stderr: &Arc<StderrTail>,
) -> Result<Connected, McpError> {
    let server = client.server.to_string();
    let handshake = |reason: String| McpError::Handshake {
        server: server.clone(),
        reason,
    };
    let attempt = async {
        match endpoint {
            Endpoint::Stdio {
                program,
                args,
                env,
                cwd,
            } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(env).kill_on_drop(true);
                if let Some(cwd) = cwd {
                    command.current_dir(cwd);
                }
                let (transport, pipe) = TokioChildProcess::builder(command)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| handshake(format!("cannot start {program:?}: {e}")))?;
                if let Some(pipe) = pipe {
                    tokio::spawn(read_stderr(pipe, client.clone(), Arc::clone(stderr)));
                }
                let pid = transport.id();
                let service = client.serve(transport).await.map_err(|e| {
                    let mut reason = untrusted(&e.to_string(), 300);
                    if let Some(last) = stderr.last() {
                        reason.push_str("; stderr: ");
                        reason.push_str(&untrusted(&last, 200));
                    }
                    handshake(reason)
                })?;
                Ok(Connected { service, pid })
            }
            Endpoint::Remote {
                kind,
                url,
                headers,
                bearer_token_env_var,
            } => {
                let mut headers = header_map(&server, headers)?;
                if let Some(var) = bearer_token_env_var {
                    let token = std::env::var(var).map_err(|_| McpError::Config {
                        server: server.clone(),
                        message: format!(
                            "the environment variable {var} (bearer_token_env_var) is not set"
                        ),
                    })?;
                    let value =
                        HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
                            McpError::Config {
                                server: server.clone(),
                                message: format!("the token in {var} is not a valid header value"),
                            }
                        })?;
                    headers.insert(reqwest::header::AUTHORIZATION, value);
                }
                if *kind == TransportKind::Sse {
                    let transport =
                        super::sse::connect(&server, url, headers, limits.max_message_bytes())
                            .await
                            .map_err(|e| handshake(untrusted(&e, 300)))?;
                    return client
                        .serve(transport)
                        .await
                        .map(|service| Connected { service, pid: None })
                        .map_err(|e| handshake(untrusted(&e.to_string(), 300)));
                }
                let custom: HashMap<HeaderName, HeaderValue> = headers
                    .into_iter()
                    .filter_map(|(k, v)| Some((k?, v)))
                    .collect();
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom)
                    .max_sse_event_size(limits.max_message_bytes())
                    .max_json_response_size(limits.max_message_bytes());
                let transport = StreamableHttpClientTransport::from_config(config);
                client
                    .serve(transport)
                    .await
                    .map(|service| Connected { service, pid: None })
                    .map_err(|e| handshake(untrusted(&e.to_string(), 300)))
            }
        }
    };
    match tokio::time::timeout(limits.startup_timeout, attempt).await {
        Ok(result) => result,
        Err(_) => Err(handshake(format!(
            "timeout: no answer to initialize within {:.1}s",
            limits.startup_timeout.as_secs_f64()
        ))),
    }
}

fn header_map(server: &str, headers: &BTreeMap<String, String>) -> Result<HeaderMap, McpError> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let bad = |what: &str| McpError::Config {
            server: server.to_owned(),
            message: format!("header {name:?}: invalid {what}"),
        };
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("name"))?;
        let value = HeaderValue::from_str(value).map_err(|_| bad("value"))?;
        map.insert(name, value);
    }
    Ok(map)
}

/// Keeps the tail, logs every line, and never lets stderr reach the terminal.
async fn read_stderr(pipe: ChildStderr, client: ClientSide, tail: Arc<StderrTail>) {
    let mut lines = BufReader::new(pipe).lines();
    loop {
        match lines.next_line().await {
            Ok(Some(line)) => {
                tracing::info!(
                    target: crate::logging::SERVER_LOG_TARGET,
                    server = %client.server,
                    "stderr: {}",
                    untrusted(&line, 2000)
                );
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
