//! The state the TUI starts with, built from the configuration.

use crate::config::{Config, ServerConfig};
use crate::keymap::Keymap;

use super::state::{
    ChatEntry, ChatKind, LogLevel, LogLine, NoticeLevel, Pane, ServerRow, ServerStatus, State,
};

/// The note shown in an empty transcript.
pub const OFFLINE_NOTE: &str = "Type a task below. The default provider is the offline \
scripted one (no network, no key): a line like fs {\"operation\":\"list\",\"path\":\".\"} calls \
a tool through the approval gate, and /call TOOL key=value calls one yourself. Add a \
[providers.NAME] for a real model and a [servers.NAME] (or `switchboard config import`) for \
MCP servers. F1 shows the keys, Ctrl+P the commands.";

fn transport(server: &ServerConfig) -> String {
    if let Some(t) = &server.transport {
        return t.clone();
    }
    match &server.url {
        Some(url) if url.trim_end_matches('/').ends_with("/sse") => "sse".into(),
        Some(_) => "http".into(),
        None => "stdio".into(),
    }
}

pub fn initial_state(
    config: &Config,
    keymap: Keymap,
    theme_name: String,
    theme_names: Vec<String>,
) -> State {
    let mut state = State::new(keymap, theme_name, theme_names);
    state.show_logs = config.ui.show_logs;
    state.providers = config.providers.keys().cloned().collect();
    if !state.providers.iter().any(|p| p == "scripted") {
        state.providers.push("scripted".into());
    }
    state.mouse = config.ui.mouse;
    state.focus = Pane::Composer;
    state.servers.rows.push(ServerRow {
        name: "builtin".into(),
        transport: "built-in".into(),
        status: ServerStatus::Builtin,
        tools: 0,
        detail: None,
        ..ServerRow::default()
    });
    for (name, server) in &config.servers {
        state.servers.rows.push(ServerRow {
            name: name.clone(),
            transport: transport(server),
            status: if server.enabled == Some(false) {
                ServerStatus::Disabled
            } else {
                ServerStatus::Idle
            },
            tools: 0,
            detail: None,
            sandboxed: transport(server) == "stdio"
                && crate::sandbox::wanted(server, config.mcp.sandbox),
            ..ServerRow::default()
        });
    }
    if let Some(mode) = &config.policy.mode {
        state.status.policy_mode.clone_from(mode.get_ref());
    }
    state.confirm_delete_double = config
        .policy
        .confirm_delete
        .as_ref()
        .is_some_and(|c| c.get_ref() == "double");
    state
        .chat
        .push(ChatEntry::new(ChatKind::Note, welcome(config)));
    state
}

/// The note shown in an empty transcript: the offline one, or which configured
/// provider a task goes to.
fn welcome(config: &Config) -> String {
    let chosen = config
        .default_provider
        .as_deref()
        .filter(|name| *name != "scripted")
        .and_then(|name| config.providers.get(name).map(|p| (name, p)));
    let Some((name, provider)) = chosen else {
        return OFFLINE_NOTE.into();
    };
    let model = provider
        .model
        .as_deref()
        .map(|m| format!(", {}", crate::sanitize::sanitize_line(m)))
        .unwrap_or_default();
    format!(
        "Type a task below: it goes to {} ({}{model}). /call TOOL key=value calls a tool \
         yourself, through the approval gate; /model switches the provider. F1 shows the \
         keys, Ctrl+P the commands.",
        crate::sanitize::sanitize_line(name),
        serde_json::to_value(provider.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    )
}

/// What the TUI starts with besides the config: the CLI builds the first `State`
/// through [`starting_state`] and [`with_tools`], never by writing its fields.
pub struct Start<'a> {
    pub config: &'a Config,
    pub keymap: Keymap,
    pub theme_name: String,
    pub theme_names: Vec<String>,
    /// Where "always" approvals append their rule (shown before they do).
    pub always_file: String,
    /// The mouse setting remembered from the last run.
    pub mouse: Option<bool>,
    /// Why the chosen theme could not be loaded (the default is used).
    pub theme_error: Option<String>,
    /// Problems importing `--mcp-config` files, for the Logs pane.
    pub import_warnings: &'a [String],
    /// What became of the folder's untrusted files (ignored, trusted once), for the
    /// transcript.
    pub trust_notes: &'a [String],
}

/// The first state: the config's servers and settings, and what went wrong so far.
pub fn starting_state(start: Start<'_>) -> State {
    let mut state = initial_state(
        start.config,
        start.keymap,
        start.theme_name,
        start.theme_names,
    );
    state.always_file = start.always_file;
    if let Some(mouse) = start.mouse {
        state.mouse = mouse;
    }
    if let Some(e) = start.theme_error {
        state.notice(NoticeLevel::Error, format!("{e}; using the default theme"));
    }
    // Logging starts with the screen; these go straight into the Logs pane.
    for warning in start.import_warnings {
        state.logs.lines.push_back(LogLine {
            level: LogLevel::Warn,
            target: "config".into(),
            message: warning.clone(),
        });
    }
    if let Some(last) = start.import_warnings.last() {
        state.notice(NoticeLevel::Warn, last.clone());
    }
    for note in start.trust_notes {
        state
            .chat
            .push(ChatEntry::new(ChatKind::Note, note.clone()));
    }
    state
}

/// The tool world once the workbench is up: the permission mode, the built-in tools
/// (or why they failed) and the catalog of registered tools.
pub fn with_tools(
    state: &mut State,
    policy_mode: String,
    builtins: Result<&crate::tools::builtin::BuiltinSummary, &str>,
    allow: Option<&[String]>,
    specs: &[crate::tools::ToolSpec],
) {
    state.status.policy_mode = policy_mode;
    match builtins {
        Ok(summary) => show_builtins(state, summary, allow),
        Err(e) => state.notice(NoticeLevel::Error, format!("built-in tools: {e}")),
    }
    state.catalog.items.tools = specs.iter().map(tool_entry).collect();
    // The built-in row weighs what no server row does: built-ins and agents.
    let servers: Vec<&str> = state
        .servers
        .rows
        .iter()
        .filter(|r| r.status != ServerStatus::Builtin)
        .map(|r| r.name.as_str())
        .collect();
    let declared = specs
        .iter()
        .filter(|s| {
            crate::tools::split_qualified(&s.name)
                .is_none_or(|(server, _)| !servers.contains(&server))
        })
        .map(|s| crate::llm::DeclarationSize::of(&s.name, &s.description, &s.input_schema))
        .sum();
    if let Some(row) = state
        .servers
        .rows
        .iter_mut()
        .find(|s| s.status == ServerStatus::Builtin)
    {
        row.declared = declared;
    }
    state.catalog.items.agents = specs
        .iter()
        .filter(|s| s.name.starts_with(crate::config::AGENT_TOOL_PREFIX))
        .map(tool_entry)
        .collect();
}

/// What each configured agent is (`agent__NAME`, one line), for its Agents entry.
pub fn describe_agents(state: &mut State, lines: &[(String, String)]) {
    for entry in &mut state.catalog.items.agents {
        if let Some((_, line)) = lines.iter().find(|(name, _)| *name == entry.name) {
            entry.facts.insert(0, ("agent".into(), line.clone()));
        }
    }
}

/// An error for the transcript, before the screen is up.
pub fn note_error(state: &mut State, error: String) {
    state.chat.push(ChatEntry::new(ChatKind::Error, error));
}

/// No agent session could start: no provider, and why.
pub fn without_session(state: &mut State, error: String) {
    state.status.provider = super::state::NO_PROVIDER.into();
    state.chat.push(ChatEntry::new(ChatKind::Error, error));
}

/// A catalog entry for a tool the registry holds. MCP tools are named `SERVER__TOOL`;
/// the rest are built-ins.
pub fn tool_entry(spec: &crate::tools::ToolSpec) -> super::state::CatalogEntry {
    let server = crate::tools::server_of(&spec.name).to_string();
    let mut facts = Vec::new();
    let effect = if let Some(arg) = &spec.effect_argument {
        let mapping: Vec<String> = spec
            .effect_mapping()
            .iter()
            .map(|(value, effect)| format!("{value} → {effect}"))
            .collect();
        facts.push((format!("effect by `{arg}`"), mapping.join(", ")));
        None
    } else {
        Some(spec.default_effect)
    };
    if spec.output_schema.is_some() {
        facts.push(("output".into(), "structured (has an output schema)".into()));
    }
    let wire = crate::llm::provider_name(&spec.name);
    if wire != spec.name {
        facts.push(("declared to models as".into(), wire.into_owned()));
    }
    super::state::CatalogEntry {
        server,
        name: spec.name.clone(),
        title: spec.title.clone(),
        description: spec.description.clone(),
        effect,
        schema: Some(spec.input_schema.clone()),
        facts,
        ..super::state::CatalogEntry::default()
    }
}

/// Fill the built-in server row, the Skills pane and the Memory pane from what the
/// built-in tools registered.
pub fn show_builtins(
    state: &mut State,
    summary: &crate::tools::builtin::BuiltinSummary,
    allow: Option<&[String]>,
) {
    if let Some(row) = state
        .servers
        .rows
        .iter_mut()
        .find(|s| s.status == ServerStatus::Builtin)
    {
        row.tools = summary.tools.len();
        row.detail = summary
            .fs_root
            .as_ref()
            .map(|root| format!("workspace {}", root.display()));
    }
    let visible: Vec<&str> = summary
        .skills
        .visible(allow)
        .map(|s| s.name.as_str())
        .collect();
    state.library.skills = summary
        .skills
        .skills
        .iter()
        .map(|s| super::library::SkillRow {
            name: s.name.clone(),
            description: s.description.clone(),
            version: s.version.clone(),
            sha256: s.sha256.clone(),
            path: s.path.display().to_string(),
            visible: visible.contains(&s.name.as_str()),
            body: s.body.clone(),
        })
        .collect();
    state.library.skipped = summary
        .skills
        .skipped
        .iter()
        .map(ToString::to_string)
        .collect();
    state.library.memory_dir = summary.memory_dir.as_ref().map(|d| d.display().to_string());
}

/// Show a saved session's transcript: its events replayed through `update`, then
/// whatever was in flight when it was saved is closed (nothing is pending any more).
pub fn replay(state: &mut State, loaded: &crate::agent::LoadedSession) {
    state.chat.entries.clear();
    for stored in &loaded.events {
        if let crate::agent::AgentEvent::TurnStarted { text, .. } = &stored.event {
            state
                .chat
                .push(ChatEntry::new(ChatKind::User, text.clone()));
        }
        // Replaying only rebuilds the state: what the events would ask for now (a
        // grants refresh) is not done.
        let _ = super::events::on_agent_event(state, stored.event.clone());
    }
    state.approvals.clear();
    state.turn.step_pause = None;
    // Calls still open when the session ended never finished.
    let entries = &mut state.chat.entries;
    for i in 0..entries.len() {
        if !entries[i].card.as_ref().is_some_and(|c| c.status.is_open()) {
            continue;
        }
        if let Some(card) = entries.get_mut(i).and_then(|e| e.card.as_mut()) {
            card.status = super::cards::CardStatus::Aborted;
        }
    }
    // New calls the person makes must not reuse a restored card's id.
    state.manual_calls = state
        .chat
        .entries
        .iter()
        .filter_map(|e| e.card.as_ref())
        .filter_map(|c| c.call_id.as_str().strip_prefix("manual-")?.parse().ok())
        .max()
        .unwrap_or(0);
    if let Some(run_id) = state.turn.run.take() {
        let _ = super::events::on_agent_event(
            state,
            crate::agent::AgentEvent::TurnDone {
                run_id,
                reason: crate::agent::TurnEnd::Interrupted,
                steps: 0,
                usage: crate::llm::Usage::default(),
                approvals_denied: 0,
                failed_calls: 0,
            },
        );
    }
    let note = loaded.notice.clone().map_or_else(
        || format!("Resumed session {}.", loaded.id),
        |n| format!("Resumed session {}. {n}", loaded.id),
    );
    state.chat.push(ChatEntry::new(ChatKind::Note, note));
}
