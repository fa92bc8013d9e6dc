//! Listing a catalog page by page, enforcing the page and item limits ourselves (rmcp's
//! `list_all_*` would follow cursors without bounds).

use std::future::Future;
use std::time::{Duration, SystemTime};

use rmcp::model::PaginatedRequestParams;
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleClient};
use serde_json::Value;

use super::catalog::{
    CatalogSnapshot, ListKind, prompt_from_wire, resource_from_wire, template_from_wire,
    tool_from_wire,
};
use super::error::{LimitKind, McpError, untrusted};
use super::freshness::ListFreshness;
use super::limits::Limits;
use super::relist::ListStarts;
use super::server::ServerHandle;
use super::snapshot::ServerInfo;

/// Longest remote error text kept.
pub const MAX_REMOTE_TEXT: usize = 500;

/// Maps an rmcp request error to ours.
pub fn service_error(server: &str, error: ServiceError) -> McpError {
    let failed = |reason: String| McpError::CallFailed {
        server: server.to_owned(),
        reason,
    };
    if let Some(challenge) = error.auth_challenge() {
        return super::error::needs_login(server, challenge);
    }
    match error {
        ServiceError::McpError(e) => McpError::Remote {
            server: server.to_owned(),
            code: e.code.0,
            message: untrusted(&with_urls(&e), MAX_REMOTE_TEXT),
        },
        ServiceError::Timeout { timeout } => failed(timeout_reason(timeout)),
        ServiceError::TransportClosed => failed("transport closed".into()),
        ServiceError::Cancelled { .. } => failed("cancelled".into()),
        other => failed(untrusted(&other.to_string(), MAX_REMOTE_TEXT)),
    }
}

/// The code of URLElicitationRequiredError: the request needs the person to visit a
/// URL first (MCP 2025-11-25, "URL mode elicitation").
pub const URL_ELICITATION_REQUIRED: i32 = -32042;

/// One page a URLElicitationRequiredError asks the person to visit (unsanitised).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredPage {
    pub url: String,
    /// Why (the elicitation's `message`).
    pub message: Option<String>,
    pub elicitation_id: Option<String>,
}

/// The pages of a [`URL_ELICITATION_REQUIRED`] error's `data.elicitations` (MCP
/// 2025-11-25, "URL mode elicitation"); none for any other error.
pub fn required_pages(error: &rmcp::ErrorData) -> Vec<RequiredPage> {
    if error.code.0 != URL_ELICITATION_REQUIRED {
        return Vec::new();
    }
    let text = |e: &Value, key: &str| e.get(key).and_then(Value::as_str).map(str::to_owned);
    error
        .data
        .as_ref()
        .and_then(|d| d.get("elicitations"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            Some(RequiredPage {
                url: text(e, "url")?,
                message: text(e, "message"),
                elicitation_id: text(e, "elicitationId"),
            })
        })
        .collect()
}

/// An error's message; for [`URL_ELICITATION_REQUIRED`], with the URLs its
/// `data.elicitations` carry, so whoever reads the error can open them.
fn with_urls(error: &rmcp::ErrorData) -> String {
    let pages = required_pages(error);
    if pages.is_empty() {
        return error.message.to_string();
    }
    let urls: Vec<&str> = pages.iter().map(|p| p.url.as_str()).collect();
    format!("{} Open to go on: {}", error.message, urls.join(" "))
}

pub fn timeout_reason(timeout: Duration) -> String {
    format!(
        "timeout: no response or progress for {:.1}s",
        timeout.as_secs_f64()
    )
}

/// Runs one request under the request timeout.
pub async fn timed<T>(
    server: &str,
    timeout: Duration,
    request: impl Future<Output = Result<T, ServiceError>>,
) -> Result<T, McpError> {
    match tokio::time::timeout(timeout, request).await {
        Ok(result) => result.map_err(|e| service_error(server, e)),
        Err(_) => Err(McpError::CallFailed {
            server: server.to_owned(),
            reason: timeout_reason(timeout),
        }),
    }
}

async fn page(
    peer: &Peer<RoleClient>,
    kind: ListKind,
    cursor: Option<String>,
) -> Result<Value, ServiceError> {
    let params = Some(PaginatedRequestParams::default().with_cursor(cursor));
    let value = match kind {
        ListKind::Tools => serde_json::to_value(peer.list_tools(params).await?),
        ListKind::Resources => serde_json::to_value(peer.list_resources(params).await?),
        ListKind::Templates => serde_json::to_value(peer.list_resource_templates(params).await?),
        ListKind::Prompts => serde_json::to_value(peer.list_prompts(params).await?),
    };
    value.map_err(|_| ServiceError::UnexpectedResponse)
}

fn wire_key(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tools",
        ListKind::Resources => "resources",
        ListKind::Templates => "resourceTemplates",
        ListKind::Prompts => "prompts",
    }
}

/// Every item of one list, as wire JSON, following cursors up to the limits.
pub async fn list_all(
    peer: &Peer<RoleClient>,
    server: &str,
    kind: ListKind,
    limits: &Limits,
) -> Result<Vec<Value>, McpError> {
    Ok(list_pages(peer, server, kind, limits).await?.0)
}

/// As [`list_all`], with the first page's other members (`ttlMs`, `cacheScope` …).
async fn list_pages(
    peer: &Peer<RoleClient>,
    server: &str,
    kind: ListKind,
    limits: &Limits,
) -> Result<(Vec<Value>, Value), McpError> {
    let limit = |limit, max, detail: String| McpError::Limit {
        server: server.to_owned(),
        limit,
        max,
        detail,
    };
    let mut items = Vec::new();
    let mut first = None;
    let mut cursor: Option<String> = None;
    for pages in 1..=limits.max_pages {
        let mut body = timed(server, limits.request_timeout, page(peer, kind, cursor)).await?;
        if let Some(Value::Array(batch)) = body.get_mut(wire_key(kind)).map(Value::take) {
            items.extend(batch);
        }
        if first.is_none() {
            first = Some(body.clone());
        }
        if items.len() > limits.max_items {
            return Err(limit(
                LimitKind::Items,
                limits.max_items,
                format!("more than {} {} listed", limits.max_items, kind.as_str()),
            ));
        }
        cursor = body
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        if cursor.is_none() {
            return Ok((items, first.unwrap_or_default()));
        }
        if pages == limits.max_pages {
            break;
        }
    }
    Err(limit(
        LimitKind::Pages,
        limits.max_pages,
        format!(
            "{} still had a next page after {} pages",
            kind.as_str(),
            limits.max_pages
        ),
    ))
}

/// Fills one list of `catalog` (items replace the old ones; a failure is recorded).
/// Returns the error when the server wants a login.
pub(super) async fn refresh_list(
    peer: &Peer<RoleClient>,
    handle: &ServerHandle,
    kind: ListKind,
    catalog: &mut CatalogSnapshot,
) -> Option<McpError> {
    let (server, limits) = (handle.name.as_str(), &handle.limits);
    let refusals = &handle.client.refusals;
    catalog.errors.retain(|(k, _)| *k != kind);
    if kind == ListKind::Tools {
        refusals.take();
    }
    let mut login = None;
    let items = match list_pages(peer, server, kind, limits).await {
        Ok((items, first)) => {
            catalog.set_freshness(ListFreshness::from_page(kind, &first, SystemTime::now()));
            items
        }
        Err(e) => {
            catalog.fresh.retain(|f| f.kind != kind);
            tracing::warn!(server, "listing {} failed: {e}", kind.as_str());
            catalog.errors.push((kind, e.to_string()));
            if matches!(e, McpError::NeedsLogin { .. }) {
                login = Some(e);
            }
            Vec::new()
        }
    };
    match kind {
        ListKind::Tools => {
            catalog.tools = items.iter().filter_map(tool_from_wire).collect();
            for tool in &mut catalog.tools {
                tool.task = handle.client.task_support.mode(&tool.name);
            }
            let mut refused = refusals.take();
            if speaks_standard_headers(peer) {
                // rmcp drops these as it reads the answer, but not on every path (an
                // answer read before its worker knows the version keeps them): drop
                // what the tap saw refused here too, so the catalog does not depend
                // on that timing.
                catalog
                    .tools
                    .retain(|tool| !refused.iter().any(|(name, _)| *name == tool.name));
            } else {
                // An older session keeps them (no headers are sent from them).
                refused.retain(|(name, _)| catalog.tool(name).is_none());
            }
            refused.dedup_by(|a, b| a.0 == b.0);
            catalog.refused = refused
                .iter()
                .map(|(name, why)| (untrusted(name, 120), untrusted(why, 300)))
                .collect();
        }
        ListKind::Resources => {
            catalog.resources = items.iter().filter_map(resource_from_wire).collect();
        }
        ListKind::Templates => {
            catalog.templates = items.iter().filter_map(template_from_wire).collect();
        }
        ListKind::Prompts => catalog.prompts = items.iter().filter_map(prompt_from_wire).collect(),
    }
    catalog.revision += 1;
    login
}

/// Whether the session speaks a version with standard request headers (2026-07-28
/// and later), whose tools with invalid `x-mcp-header` annotations are refused.
fn speaks_standard_headers(peer: &Peer<RoleClient>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.protocol_version >= rmcp::model::ProtocolVersion::STANDARD_HEADERS)
}

/// The catalog of a new connection: each list the server offers, listed — or kept
/// from `previous` (the catalog before a crash) while its `ttlMs` lasts. Fails with
/// the error when a list needs a login.
pub(super) async fn first_catalog(
    peer: &Peer<RoleClient>,
    handle: &ServerHandle,
    info: &ServerInfo,
    generation: u64,
    previous: Option<&CatalogSnapshot>,
    starts: &mut ListStarts,
) -> Result<CatalogSnapshot, McpError> {
    let mut catalog = CatalogSnapshot {
        generation,
        ..CatalogSnapshot::default()
    };
    let wanted = [
        (ListKind::Tools, "tools"),
        (ListKind::Resources, "resources"),
        (ListKind::Templates, "resources"),
        (ListKind::Prompts, "prompts"),
    ];
    let now = SystemTime::now();
    for (kind, capability) in wanted {
        if !info.supports(capability) || previous.is_some_and(|p| catalog.reuse(p, kind, now)) {
            continue;
        }
        starts.begin(kind);
        if let Some(login) = refresh_list(peer, handle, kind, &mut catalog).await {
            return Err(login);
        }
    }
    Ok(catalog)
}
