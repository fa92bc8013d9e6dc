//! Rules a config must follow beyond its shape, each reported at the offending value.
//!
//! All problems are collected; the one that comes first in the file is reported, so
//! fixing errors top to bottom works.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use super::error::ConfigError;
use super::key_path::KeyPath;
use super::locate::SourceMap;
use super::model::{Config, HTTP_METHODS, ProviderKind};
use super::suggest;

/// Accepted `policy.mode` values.
pub const POLICY_MODES: &[&str] = &["read-only", "ask", "auto-edit", "full-auto", "plan"];
/// Accepted `policy.confirm_delete` values.
pub const CONFIRM_DELETE: &[&str] = &["single", "double"];
/// Accepted `policy.effects.*` values.
pub const TOOL_EFFECTS: &[&str] = &["read", "compute", "write", "delete", "unknown"];
/// Accepted `servers.*.type` values.
pub const SERVER_TRANSPORTS: &[&str] = &["stdio", "http", "sse"];
/// The offline provider, available without a `[providers.scripted]` table.
pub const BUILTIN_PROVIDER: &str = "scripted";

/// A problem in a part of the config that another module reads (policy rules, hooks,
/// key bindings), found by that module: where, which key, what, and a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartProblem {
    pub span: Range<usize>,
    pub key: String,
    pub message: String,
    pub hint: Option<String>,
}

/// Checks the parts of a config that other modules own. The load step above config
/// supplies it (`crate::settings`), so config depends on none of those modules.
pub type PartCheck<'c> = &'c dyn Fn(&Config) -> Vec<PartProblem>;

/// No checks beyond config's own.
pub fn no_part_checks(_: &Config) -> Vec<PartProblem> {
    Vec::new()
}

/// Check `config` (parsed from `text`, the content of `path`), with `parts` checking
/// what other modules own.
pub fn validate(
    config: &Config,
    path: &Path,
    text: &str,
    parts: PartCheck<'_>,
) -> Result<(), ConfigError> {
    let Ok(map) = SourceMap::parse(text) else {
        // `text` parsed once already; nothing to locate against otherwise.
        return Ok(());
    };
    let mut problems = Vec::new();
    let mut report = |span: Range<usize>, key: String, message: String, hint| {
        problems.push(ConfigError::at(path, text, span, key, message, hint));
    };
    check_default_provider(config, &map, &mut report);
    check_servers(config, &map, &mut report);
    check_providers(config, &mut report);
    check_policy(config, &mut report);
    check_mcp(config, &map, &mut report);
    check_tools(config, &map, &mut report);
    super::serve::check(config, &map, &mut report);
    for p in parts(config) {
        report(p.span, p.key, p.message, p.hint);
    }
    super::agents::check_agents(config, &map, &mut report);
    match problems
        .into_iter()
        .min_by_key(|e| e.located_detail().map_or(usize::MAX, |l| l.span.start))
    {
        Some(first) => Err(first),
        None => Ok(()),
    }
}

type Report<'r> = dyn FnMut(Range<usize>, String, String, Option<String>) + 'r;

/// The most messages `[mcp] wire_capacity` may keep per peer.
pub const MAX_WIRE_CAPACITY: usize = 1_000_000;

fn check_mcp(config: &Config, map: &SourceMap<'_>, report: &mut Report<'_>) {
    let registry = &config.mcp.registry;
    let scheme = reqwest::Url::parse(registry).map(|url| url.scheme().to_owned());
    if !matches!(scheme.as_deref(), Ok("http" | "https")) {
        report(
            map.nearest_span(&["mcp", "registry"]),
            "mcp.registry".into(),
            format!("{registry:?} is not an http(s) URL"),
            Some(format!(
                "the default is {:?}",
                super::model::DEFAULT_REGISTRY
            )),
        );
    }
    let capacity = config.mcp.wire_capacity;
    if !(1..=MAX_WIRE_CAPACITY).contains(&capacity) {
        report(
            map.nearest_span(&["mcp", "wire_capacity"]),
            "mcp.wire_capacity".into(),
            format!("{capacity} is not a number of messages to keep per peer"),
            Some(format!(
                "give 1 to {MAX_WIRE_CAPACITY}; the default is {}",
                super::model::DEFAULT_WIRE_CAPACITY
            )),
        );
    }
    let share = config.mcp.tool_search_threshold;
    if !(1..=100).contains(&share) {
        report(
            map.nearest_span(&["mcp", "tool_search_threshold"]),
            "mcp.tool_search_threshold".into(),
            format!("{share} is not a percentage of the context window"),
            Some(format!(
                "give 1 to 100; the default is {}",
                super::model::DEFAULT_TOOL_SEARCH_THRESHOLD
            )),
        );
    }
}

fn check_default_provider(config: &Config, map: &SourceMap<'_>, report: &mut Report<'_>) {
    let Some(name) = &config.default_provider else {
        return;
    };
    if name == BUILTIN_PROVIDER || config.providers.contains_key(name) {
        return;
    }
    let mut known: Vec<&str> = config.providers.keys().map(String::as_str).collect();
    known.push(BUILTIN_PROVIDER);
    let hint = suggest::closest(name, &known).map_or_else(
        || {
            format!(
                "add a [providers.{}] table, or use one of {}",
                KeyPath::new(&[name.as_str()]),
                suggest::backticked(&known)
            )
        },
        |best| format!("did you mean `{best}`?"),
    );
    report(
        map.nearest_span(&["default_provider"]),
        "default_provider".into(),
        format!("no provider named `{name}`"),
        Some(hint),
    );
}

fn check_servers(config: &Config, map: &SourceMap<'_>, report: &mut Report<'_>) {
    for (name, server) in &config.servers {
        let key = KeyPath::new(&["servers", name.as_str()]).to_string();
        match (&server.command, &server.url) {
            (Some(_), Some(_)) => report(
                map.key_span(&["servers", name, "url"])
                    .unwrap_or_else(|| map.nearest_span(&["servers", name])),
                key.clone(),
                "set only one of `command` (stdio) or `url` (HTTP), not both".into(),
                Some("a server is either a local process or a remote endpoint".into()),
            ),
            (None, None) => report(
                map.nearest_span(&["servers", name]),
                key.clone(),
                "set one of `command` (stdio) or `url` (HTTP)".into(),
                Some("add `command = \"…\"` to start a local process, or `url = \"https://…\"` for a remote server".into()),
            ),
            _ => {}
        }
        if let Some(transport) = &server.transport
            && !SERVER_TRANSPORTS.contains(&transport.as_str())
        {
            report(
                map.nearest_span(&["servers", name, "type"]),
                format!("{key}.type"),
                format!("unknown value `{transport}`"),
                suggest::hint(transport, SERVER_TRANSPORTS, "accepted values"),
            );
        }
        if let Some(idle) = server.idle_timeout
            && !(idle.is_finite() && idle > 0.0)
        {
            report(
                map.nearest_span(&["servers", name, "idle_timeout"]),
                format!("{key}.idle_timeout"),
                format!("{idle} is not a number of seconds"),
                Some("give the seconds without a request after which the server stops (more than 0); leave it out to keep it running".into()),
            );
        }
    }
}

/// An AWS region name (`us-east-1`): lowercase letters, digits and dashes only, so it
/// can go into a host name.
pub fn is_aws_region(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// `region` and `profile` belong to Bedrock tables; a region must be a region name.
fn check_providers(config: &Config, report: &mut Report<'_>) {
    for (name, provider) in &config.providers {
        let bedrock = provider.kind == ProviderKind::Bedrock;
        for (field, value) in [("region", &provider.region), ("profile", &provider.profile)] {
            let Some(value) = value else { continue };
            let key = KeyPath::new(&["providers", name.as_str(), field]).to_string();
            if !bedrock {
                report(
                    value.span(),
                    key,
                    format!("`{field}` only applies to `kind = \"bedrock\"`"),
                    None,
                );
            } else if field == "region" && !is_aws_region(value.get_ref()) {
                report(
                    value.span(),
                    key,
                    format!("`{}` is not an AWS region name", value.get_ref()),
                    Some("write a region such as `us-east-1`".into()),
                );
            }
        }
    }
}

fn check_policy(config: &Config, report: &mut Report<'_>) {
    let policy = &config.policy;
    if let Some(mode) = &policy.mode {
        check_one_of(mode, "policy.mode".into(), POLICY_MODES, report);
    }
    if let Some(confirm) = &policy.confirm_delete {
        check_one_of(
            confirm,
            "policy.confirm_delete".into(),
            CONFIRM_DELETE,
            report,
        );
    }
    for (tool, effect) in &policy.effects {
        let key = KeyPath::new(&["policy", "effects", tool.as_str()]).to_string();
        check_one_of(effect, key, TOOL_EFFECTS, report);
    }
}

pub(super) fn check_one_of(
    value: &Spanned<String>,
    key: String,
    accepted: &[&str],
    report: &mut Report<'_>,
) {
    let text = value.get_ref();
    if accepted.contains(&text.as_str()) {
        return;
    }
    report(
        value.span(),
        key,
        format!("unknown value `{text}`"),
        suggest::hint(text, accepted, "accepted values"),
    );
}

/// `[tools.*]` and `[skills]`: values that parse but cannot work or would be unsafe.
fn check_tools(config: &Config, map: &SourceMap<'_>, report: &mut Report<'_>) {
    let tools = &config.tools;
    let limits: [(&str, &str, u64); 9] = [
        ("fs", "max_read_bytes", tools.fs.max_read_bytes),
        ("fs", "max_write_bytes", tools.fs.max_write_bytes),
        ("fs", "max_list_entries", tools.fs.max_list_entries),
        ("shell", "timeout_secs", tools.shell.timeout_secs),
        ("shell", "max_timeout_secs", tools.shell.max_timeout_secs),
        ("shell", "max_output_bytes", tools.shell.max_output_bytes),
        ("http", "max_request_bytes", tools.http.max_request_bytes),
        ("http", "max_response_bytes", tools.http.max_response_bytes),
        ("http", "timeout_secs", tools.http.timeout_secs),
    ];
    for (table, key, value) in limits {
        if value == 0 {
            let path = ["tools", table, key];
            report(
                map.nearest_span(&path),
                KeyPath::new(&path).to_string(),
                "must be greater than 0".into(),
                Some("a limit of 0 would refuse every call; disable the tool with `enabled = false` instead".into()),
            );
        }
    }
    if tools.shell.timeout_secs > tools.shell.max_timeout_secs {
        let path = ["tools", "shell", "timeout_secs"];
        report(
            map.nearest_span(&path),
            KeyPath::new(&path).to_string(),
            format!(
                "the default timeout ({}s) is above `max_timeout_secs` ({}s)",
                tools.shell.timeout_secs, tools.shell.max_timeout_secs
            ),
            None,
        );
    }
    let mut each = |table: &str, key: &str, items: &[String], check: fn(&str) -> Option<String>| {
        let path = ["tools", table, key];
        for (i, item) in items.iter().enumerate() {
            if let Some(message) = check(item) {
                report(
                    map.element_span(&path, i),
                    format!("{}[{i}]", KeyPath::new(&path)),
                    message,
                    None,
                );
            }
        }
    };
    each("shell", "allow", &tools.shell.allow, shell_program_problem);
    each("shell", "env", &tools.shell.env, env_name_problem);
    each("http", "allow_hosts", &tools.http.allow_hosts, host_problem);
    each(
        "http",
        "allow_methods",
        &tools.http.allow_methods,
        method_problem,
    );
    each(
        "http",
        "allow_headers",
        &tools.http.allow_headers,
        header_problem,
    );
}

fn shell_program_problem(name: &str) -> Option<String> {
    if name.is_empty() || name == "." || name == ".." {
        return Some(format!("`{name}` is not a program name"));
    }
    if name.contains('/') {
        return Some(format!(
            "`{name}` holds a `/`: list bare program names (found on PATH), not paths"
        ));
    }
    name.chars()
        .any(|c| c.is_whitespace() || c.is_control())
        .then(|| format!("`{name}` holds whitespace: list one program name, no arguments"))
}

pub(super) fn env_name_problem(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    (!ok).then(|| format!("`{name}` is not an environment variable name"))
}

fn host_problem(host: &str) -> Option<String> {
    if host.contains("://") {
        return Some(format!(
            "`{host}` holds a scheme: list host names only (`example.com`); `allow_http` decides the scheme"
        ));
    }
    let bad = host.is_empty()
        || host
            .chars()
            .any(|c| matches!(c, '/' | '@' | '?' | '#' | '*') || c.is_whitespace())
        || (host.contains(':') && !host.starts_with('['));
    bad.then(|| format!("`{host}` is not a host name: no paths, ports, wildcards or user info"))
}

fn method_problem(method: &str) -> Option<String> {
    (!HTTP_METHODS.contains(&method)).then(|| {
        format!(
            "unknown method `{method}`: use one of {}",
            suggest::backticked(HTTP_METHODS)
        )
    })
}

fn header_problem(name: &str) -> Option<String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c));
    (!ok).then(|| format!("`{name}` is not a header name"))
}
