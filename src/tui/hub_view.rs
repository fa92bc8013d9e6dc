//! MCP hub snapshots as UI rows: the Servers pane and the catalog tabs.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::llm::DeclarationSize;
use crate::mcp::{CatalogSnapshot, CatalogTool, HubSnapshot, ServerSnapshot, ServerStatus as Hub};
use crate::tools::ToolSpec;

use super::boot::tool_entry;
use super::state::{Catalog, CatalogEntry, ServerRow, ServerStatus};
use super::words::count;

/// Rows for the configured MCP servers, after the built-in row(s) kept from `rows`.
pub fn server_rows(rows: &[ServerRow], snapshot: &HubSnapshot) -> Vec<ServerRow> {
    server_rows_with(rows, snapshot, &mut DeclaredSizes::default())
}

/// [`server_rows`], weighing each server's declarations only when its catalog changed
/// since `sizes` last saw it.
pub fn server_rows_with(
    rows: &[ServerRow],
    snapshot: &HubSnapshot,
    sizes: &mut DeclaredSizes,
) -> Vec<ServerRow> {
    let mut out: Vec<ServerRow> = rows
        .iter()
        .filter(|r| r.status == ServerStatus::Builtin)
        .cloned()
        .collect();
    sizes
        .sizes
        .retain(|name, _| snapshot.servers.iter().any(|s| &s.name == name));
    out.extend(snapshot.servers.iter().map(|s| server_row(s, sizes.of(s))));
    out
}

/// Each server's declaration size with the catalog it was weighed from. Weighing
/// serialises every tool's schema, and the hub's snapshot changes with every status
/// change of any server; a catalog is a new `Arc` only when it changed, so an equal
/// pointer means the size still holds.
#[derive(Debug, Default)]
pub struct DeclaredSizes {
    sizes: HashMap<String, (Arc<CatalogSnapshot>, DeclarationSize)>,
    /// How many catalogs were weighed (not reused).
    pub weighed: usize,
}

impl DeclaredSizes {
    fn of(&mut self, s: &ServerSnapshot) -> DeclarationSize {
        if let Some((catalog, size)) = self.sizes.get(&s.name)
            && Arc::ptr_eq(catalog, &s.catalog)
        {
            return *size;
        }
        self.weighed += 1;
        let size = crate::agent::exposure::catalog_size(&s.name, &s.catalog.tools);
        self.sizes
            .insert(s.name.clone(), (Arc::clone(&s.catalog), size));
        size
    }
}

fn server_row(s: &ServerSnapshot, declared: DeclarationSize) -> ServerRow {
    let status = match &s.status {
        Hub::Disabled => ServerStatus::Disabled,
        Hub::Connecting { .. } => ServerStatus::Connecting,
        Hub::Ready => ServerStatus::Ready,
        Hub::Failed { .. } => ServerStatus::Failed,
        Hub::NeedsLogin { .. } => ServerStatus::NeedsLogin,
        Hub::Disconnected { .. } => ServerStatus::Disconnected,
        Hub::Idle { .. } => ServerStatus::OnDemand,
    };
    let detail = match &s.status {
        Hub::Failed { error, retry_in } => Some(match retry_in {
            Some(d) => format!("{error} (retry in {}s)", d.as_secs().max(1)),
            None => error.to_string(),
        }),
        Hub::Disconnected { reason } | Hub::NeedsLogin { reason } => Some(reason.clone()),
        Hub::Connecting { attempt } if *attempt > 1 => Some(format!("attempt {attempt}")),
        Hub::Idle { .. } => Some(idle_line(s)),
        _ => s.last_error.as_ref().map(ToString::to_string),
    };
    let c = &s.catalog;
    let mut facts = vec![
        ("status".to_string(), s.status.label().to_string()),
        ("transport".into(), format!("{} {}", s.transport, s.target)),
        (
            "catalog".into(),
            format!(
                "{}, {}, {}, {}",
                count(c.tools.len(), "tool", "tools"),
                count(c.resources.len(), "resource", "resources"),
                count(c.templates.len(), "template", "templates"),
                count(c.prompts.len(), "prompt", "prompts")
            ),
        ),
    ];
    if s.sandboxed {
        facts.push(("sandbox".into(), "on (Landlock)".into()));
    }
    if let Some(note) = s.idle_note(std::time::SystemTime::now()) {
        facts.push(("on demand".into(), note));
    }
    if let Some(login) = &s.login {
        facts.extend(login_facts(login));
    } else if matches!(s.status, Hub::NeedsLogin { .. }) {
        facts.push(("login".into(), "not logged in: press l".into()));
    }
    if let Some(info) = &s.info {
        facts.push(("server".into(), format!("{} {}", info.name, info.version)));
        let era = if info.is_stateless() {
            "stateless"
        } else {
            "session"
        };
        facts.push((
            "protocol".into(),
            format!("{} ({era})", info.protocol_version),
        ));
        if let Some(caps) = info.capabilities.as_object() {
            let names: Vec<&str> = caps.keys().map(String::as_str).collect();
            facts.push(("capabilities".into(), names.join(", ")));
        }
    }
    for (kind, error) in &c.errors {
        facts.push((format!("{kind:?} list failed"), error.clone()));
    }
    if let Some(cached) = c.cached_summary(std::time::SystemTime::now()) {
        facts.push(("cached".into(), cached));
    }
    for (name, reason) in &c.refused {
        facts.push(("refused".into(), format!("{name} — {reason}")));
    }
    if let Some(e) = &s.last_error {
        facts.push(("last error".into(), e.to_string()));
    }
    ServerRow {
        name: s.name.clone(),
        transport: s.transport.to_string(),
        era: s.info.as_ref().map(|i| i.era.to_owned()),
        status,
        tools: c.tools.len(),
        detail,
        facts,
        instructions: s.info.as_ref().and_then(|i| i.instructions.clone()),
        stderr: s.stderr_tail.as_ref().clone(),
        sandboxed: s.sandboxed,
        declared,
    }
}

/// The line under a server that is not running (the pane is narrow; the details
/// say more): how old its cached catalog is, or that it has none.
fn idle_line(s: &ServerSnapshot) -> String {
    match s.catalog.cached_at {
        Some(at) => crate::mcp::catalog_cache::cached_age(at, std::time::SystemTime::now()),
        None => "no tools until used".into(),
    }
}

/// Issuer, scopes and expiry of a stored login (never a token).
fn login_facts(login: &crate::mcp::oauth::LoginSummary) -> Vec<(String, String)> {
    let mut expiry = login.expiry_text(std::time::SystemTime::now());
    if login.refreshable {
        expiry.push_str(", refreshed automatically");
    }
    vec![
        ("login issuer".into(), login.issuer_text().to_owned()),
        ("login scopes".into(), login.scopes_text()),
        ("login expiry".into(), expiry),
    ]
}

fn hints(tool: &CatalogTool) -> Option<String> {
    let h = tool.annotations.as_ref()?;
    let mut parts = Vec::new();
    for (name, value) in [
        ("readOnlyHint", h.read_only),
        ("destructiveHint", h.destructive),
        ("idempotentHint", h.idempotent),
        ("openWorldHint", h.open_world),
    ] {
        if let Some(v) = value {
            parts.push(format!("{name}={v}"));
        }
    }
    Some(parts.join(", "))
}

/// What the detail view says of a tool's 2025-11-25 `execution.taskSupport`.
fn task_fact(mode: crate::mcp::TaskMode) -> &'static str {
    match mode {
        crate::mcp::TaskMode::Required => "required: every call runs as a task",
        crate::mcp::TaskMode::Optional => {
            "optional: a task when the caller does not wait (call --no-wait)"
        }
    }
}

/// What the detail view says of a tool's MCP Apps UI: its resource, and who may
/// call it when that is not everyone (`ui` and `app only` also mark the row).
fn ui_facts(ui: &crate::mcp::apps::UiLink) -> Vec<(String, String)> {
    let mut facts: Vec<(String, String)> = ui
        .resource()
        .map(|uri| (UI_FACT.to_owned(), uri.to_owned()))
        .into_iter()
        .collect();
    if ui.app_only() {
        facts.push((
            APP_ONLY_FACT.to_owned(),
            "only its app may call it; never offered to a model".to_owned(),
        ));
    } else if !ui.visibility.app {
        facts.push((
            "visibility".to_owned(),
            "model only: its app may not call it".to_owned(),
        ));
    }
    facts
}

/// The detail fact naming a tool's MCP Apps UI resource.
pub const UI_FACT: &str = "ui";
/// The detail fact of a tool only its MCP App may call.
pub const APP_ONLY_FACT: &str = "app only";

/// The catalog: tools as the gate holds them (built-ins and MCP alike, with the
/// server's annotations), resources, templates and prompts from every server.
pub fn catalog(specs: &[ToolSpec], snapshot: &HubSnapshot) -> Catalog {
    // One lookup per tool, not a scan of its server's list per tool: a server
    // with 10,000 tools would otherwise cost 50 million comparisons per change.
    let by_name: HashMap<(&str, &str), &CatalogTool> = snapshot
        .servers
        .iter()
        .flat_map(|s| {
            s.catalog
                .tools
                .iter()
                .map(move |t| ((s.name.as_str(), t.name.as_str()), t))
        })
        .collect();
    let mut tools: Vec<CatalogEntry> = specs.iter().map(tool_entry).collect();
    for entry in &mut tools {
        let found = crate::tools::split_qualified(&entry.name)
            .and_then(|(server, name)| by_name.get(&(server, name)).copied());
        if let Some(tool) = found {
            add_server_facts(entry, tool);
        }
    }
    tools.sort_by(|a, b| {
        (a.server != "builtin", &a.server, &a.name).cmp(&(
            b.server != "builtin",
            &b.server,
            &b.name,
        ))
    });
    let apps = tools
        .iter()
        .filter(|e| e.facts.iter().any(|(k, _)| k == UI_FACT))
        .map(|e| e.name.clone())
        .collect();
    let mut catalog = Catalog {
        tools,
        apps,
        ..Catalog::default()
    };
    // A disabled server leaves the catalog entirely; it comes back when enabled.
    for s in snapshot
        .servers
        .iter()
        .filter(|s| s.status != Hub::Disabled)
    {
        let c = &s.catalog;
        catalog.resources.extend(c.resources.iter().map(|r| {
            let mut facts = vec![("uri".to_string(), r.uri.clone())];
            if let Some(m) = &r.mime_type {
                facts.push(("mime".into(), m.clone()));
            }
            if let Some(size) = r.size {
                facts.push(("size".into(), format!("{size} bytes")));
            }
            CatalogEntry {
                server: s.name.clone(),
                name: r.name.clone(),
                title: r.title.clone(),
                description: r.description.clone().unwrap_or_default(),
                facts,
                icons: r.icons,
                ..CatalogEntry::default()
            }
        }));
        catalog
            .templates
            .extend(c.templates.iter().map(|t| CatalogEntry {
                server: s.name.clone(),
                name: t.name.clone(),
                title: t.title.clone(),
                description: t.description.clone().unwrap_or_default(),
                facts: vec![("uri template".into(), t.uri_template.clone())],
                icons: t.icons,
                ..CatalogEntry::default()
            }));
        catalog.prompts.extend(c.prompts.iter().map(|p| {
            let mut properties = Map::new();
            let mut required = Vec::new();
            for a in &p.arguments {
                properties.insert(
                    a.name.clone(),
                    json!({"type": "string", "description": a.description.clone().unwrap_or_default()}),
                );
                if a.required {
                    required.push(Value::String(a.name.clone()));
                }
            }
            CatalogEntry {
                server: s.name.clone(),
                name: p.name.clone(),
                title: p.title.clone(),
                description: p.description.clone().unwrap_or_default(),
                schema: Some(json!({"type": "object", "properties": properties, "required": required})),
                icons: p.icons,
                ..CatalogEntry::default()
            }
        }));
    }
    catalog
}

/// What the server says of an MCP tool beyond its spec: icons, task support,
/// its MCP Apps UI, a title and the annotations.
fn add_server_facts(entry: &mut CatalogEntry, tool: &CatalogTool) {
    entry.icons = tool.icons;
    if let Some(mode) = tool.task {
        entry.facts.push(("task".into(), task_fact(mode).into()));
    }
    if let Some(ui) = &tool.ui {
        entry.facts.extend(ui_facts(ui));
    }
    if entry.title.is_none() && tool.display_title() != tool.name {
        entry.title = Some(tool.display_title().to_owned());
    }
    if let Some(h) = hints(tool) {
        entry.facts.insert(0, ("annotations".into(), h));
    }
}
