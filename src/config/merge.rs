//! One layer's settings on top of another's: a project's `switchboard.toml` over the
//! user's `config.toml`.
//!
//! Only the keys the upper file writes replace the lower file's; named tables
//! (`[servers.NAME]`, `[providers.NAME]`, `[agents.NAME]`, `[serve.clients.NAME]`)
//! are replaced by name; lists of rules and hooks are joined, so every layer's
//! `deny` and `always_ask` rules apply (the policy ranks deny > ask > allow whatever
//! file a rule came from).

use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::DeserializeOwned;
use toml::{Spanned, Table};

use super::model::{Config, KeyBindingSpec};

/// A section that did not survive the trip through `toml::Value` while laying one
/// layer over another.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Encode(#[from] toml::ser::Error),
    #[error(transparent)]
    Decode(#[from] toml::de::Error),
}

/// How much of the upper layer applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Everything it writes.
    Full,
    /// Only the keys that change how the screen looks (`ui.theme`, `ui.mouse`,
    /// `ui.show_logs`, `mcp.wire_capacity`): what an untrusted project may set.
    Cosmetic,
}

/// The keys an untrusted project may set: none runs anything, sends anything or
/// loosens the gate.
pub const COSMETIC_KEYS: &[&[&str]] = &[
    &["ui", "theme"],
    &["ui", "mouse"],
    &["ui", "show_logs"],
    &["mcp", "wire_capacity"],
];

/// Whether `path` (`["ui", "theme"]`) is one of [`COSMETIC_KEYS`].
pub fn is_cosmetic(path: &[&str]) -> bool {
    COSMETIC_KEYS.contains(&path)
}

/// `base` with `upper` (decoded from a file that sets exactly the keys of `set`) on
/// top. Servers taken from `upper` are marked `from_project` when `project`.
pub fn merge(
    base: &Config,
    upper: &Config,
    set: &Table,
    reach: Reach,
    project: bool,
) -> Result<Config, MergeError> {
    let mut out = base.clone();
    let has = |path: &[&str]| has(set, path);
    if has(&["ui", "theme"]) {
        out.ui.theme.clone_from(&upper.ui.theme);
    }
    if has(&["ui", "mouse"]) {
        out.ui.mouse = upper.ui.mouse;
    }
    if has(&["ui", "show_logs"]) {
        out.ui.show_logs = upper.ui.show_logs;
    }
    if has(&["mcp", "wire_capacity"]) {
        out.mcp.wire_capacity = upper.mcp.wire_capacity;
    }
    if reach == Reach::Cosmetic {
        return Ok(out);
    }
    if has(&["default_provider"]) {
        out.default_provider.clone_from(&upper.default_provider);
    }
    merge_keys(&mut out.ui.keys, &upper.ui.keys);
    for (name, server) in &upper.servers {
        let mut server = server.clone();
        server.from_project = project;
        out.servers.insert(name.clone(), server);
    }
    out.providers.extend(upper.providers.clone());
    out.agents.extend(upper.agents.clone());
    out.mcp = overlay(&out.mcp, set.get("mcp"))?;
    out.skills = overlay(&out.skills, set.get("skills"))?;
    out.tools = overlay(&out.tools, set.get("tools"))?;
    out.agent = overlay(&out.agent, set.get("agent"))?;
    merge_policy(&mut out, upper, &has);
    merge_hooks(&mut out, upper);
    merge_serve(&mut out, upper, &has);
    Ok(out)
}

fn merge_policy(out: &mut Config, upper: &Config, has: &dyn Fn(&[&str]) -> bool) {
    let (policy, from) = (&mut out.policy, &upper.policy);
    if has(&["policy", "mode"]) {
        policy.mode.clone_from(&from.mode);
    }
    if has(&["policy", "confirm_delete"]) {
        policy.confirm_delete.clone_from(&from.confirm_delete);
    }
    if has(&["policy", "audit_arguments"]) {
        policy.audit_arguments = from.audit_arguments;
    }
    if has(&["policy", "audit_log"]) {
        policy.audit_log.clone_from(&from.audit_log);
    }
    policy.allow.extend(from.allow.iter().cloned());
    policy.ask.extend(from.ask.iter().cloned());
    policy.deny.extend(from.deny.iter().cloned());
    policy.always_ask.extend(from.always_ask.iter().cloned());
    policy.effects.extend(from.effects.clone());
    policy.max_calls.extend(from.max_calls.clone());
}

fn merge_hooks(out: &mut Config, upper: &Config) {
    let (hooks, from) = (&mut out.hooks, &upper.hooks);
    hooks.pre_tool_use.extend(from.pre_tool_use.iter().cloned());
    hooks
        .post_tool_use
        .extend(from.post_tool_use.iter().cloned());
    hooks
        .user_prompt_submit
        .extend(from.user_prompt_submit.iter().cloned());
    hooks
        .session_start
        .extend(from.session_start.iter().cloned());
    hooks.stop.extend(from.stop.iter().cloned());
    hooks
        .permission_request
        .extend(from.permission_request.iter().cloned());
}

fn merge_serve(out: &mut Config, upper: &Config, has: &dyn Fn(&[&str]) -> bool) {
    let (serve, from) = (&mut out.serve, &upper.serve);
    if has(&["serve", "expose"]) {
        serve.expose.clone_from(&from.expose);
    }
    if has(&["serve", "token_env"]) {
        serve.token_env.clone_from(&from.token_env);
    }
    if has(&["serve", "allowed_hosts"]) {
        serve.allowed_hosts.clone_from(&from.allowed_hosts);
    }
    if has(&["serve", "allowed_origins"]) {
        serve.allowed_origins.clone_from(&from.allowed_origins);
    }
    if has(&["serve", "max_message_bytes"]) {
        serve.max_message_bytes = from.max_message_bytes;
    }
    serve.clients.extend(from.clients.clone());
}

/// Whether the table `set` writes the key at `path`.
pub fn has(set: &Table, path: &[&str]) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let mut table = set;
    for name in parents {
        match table.get(*name).and_then(toml::Value::as_table) {
            Some(inner) => table = inner,
            None => return false,
        }
    }
    table.contains_key(*last)
}

/// `base` with the keys `upper` writes laid over it, table by table (for sections
/// without spans, whose values survive a trip through `toml::Value`).
fn overlay<T: Serialize + DeserializeOwned + Clone>(
    base: &T,
    upper: Option<&toml::Value>,
) -> Result<T, MergeError> {
    let Some(upper) = upper else {
        return Ok(base.clone());
    };
    let mut value = toml::Value::try_from(base)?;
    lay_over(&mut value, upper);
    Ok(value.try_into::<T>()?)
}

fn lay_over(base: &mut toml::Value, upper: &toml::Value) {
    match (base, upper) {
        (toml::Value::Table(base), toml::Value::Table(upper)) => {
            for (key, value) in upper {
                match base.get_mut(key) {
                    Some(slot) => lay_over(slot, value),
                    None => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (slot, value) => *slot = value.clone(),
    }
}

/// `[ui.keys]`: the upper file's entries replace the lower's by action, also inside
/// `[ui.keys.LAYER]` tables both files write.
fn merge_keys(
    out: &mut BTreeMap<String, Spanned<KeyBindingSpec>>,
    upper: &BTreeMap<String, Spanned<KeyBindingSpec>>,
) {
    for (name, spec) in upper {
        if let (Some(lower), KeyBindingSpec::Layer(entries)) = (out.get_mut(name), spec.get_ref())
            && let KeyBindingSpec::Layer(lower_entries) = lower.get_mut()
        {
            lower_entries.extend(entries.clone());
            continue;
        }
        out.insert(name.clone(), spec.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_str;
    use std::path::Path;

    fn layer(text: &str) -> (Config, Table) {
        let config = parse_str(text, Path::new("t.toml")).unwrap();
        (config, text.parse::<Table>().unwrap())
    }

    const USER: &str = r#"
        default_provider = "work"
        [providers.work]
        kind = "openai"
        [servers.mine]
        command = "mine"
        [policy]
        mode = "ask"
        deny = ["*__delete_*"]
        [tools.shell]
        enabled = true
        allow = ["git"]
        timeout_secs = 7
        [ui]
        theme = "light"
        [[hooks.pre_tool_use]]
        command = ["user-hook"]
    "#;

    const PROJECT: &str = r#"
        [servers.x]
        command = "sh"
        args = ["-c", "true"]
        [policy]
        mode = "full-auto"
        allow = ["*"]
        [tools.shell]
        allow = ["sh"]
        [ui]
        mouse = false
        [[hooks.pre_tool_use]]
        command = ["project-hook"]
    "#;

    #[test]
    fn key_bindings_merge_by_action_also_inside_layer_tables() {
        let (user, _) = layer(
            "[ui.keys]\nquit = \"ctrl+q\"\n[ui.keys.approval]\ndeny = \"x\"\nabort_turn = \"ctrl+g\"\n",
        );
        let (project, set) = layer("[ui.keys.approval]\napprove_once = \"Y\"\ndeny = \"z\"\n");
        let out = merge(&user, &project, &set, Reach::Full, true).unwrap();
        assert_eq!(out.ui.keys["quit"].get_ref().keys(), ["ctrl+q"]);
        let KeyBindingSpec::Layer(approval) = out.ui.keys["approval"].get_ref() else {
            panic!("{:?}", out.ui.keys);
        };
        let keys = |name: &str| approval[name].get_ref().keys();
        assert_eq!(keys("approve_once"), ["Y"]);
        assert_eq!(keys("deny"), ["z"]);
        assert_eq!(keys("abort_turn"), ["ctrl+g"]);
    }

    #[test]
    fn a_full_merge_keeps_the_users_keys_and_joins_rules_and_hooks() {
        let (user, _) = layer(USER);
        let (project, set) = layer(PROJECT);
        let out = merge(&user, &project, &set, Reach::Full, true).unwrap();
        assert_eq!(out.default_provider.as_deref(), Some("work"));
        assert!(out.providers.contains_key("work"));
        assert!(!out.servers["mine"].from_project);
        assert!(out.servers["x"].from_project);
        assert_eq!(out.policy.mode.as_ref().unwrap().get_ref(), "full-auto");
        let deny: Vec<&str> = out
            .policy
            .deny
            .iter()
            .map(|r| r.get_ref().as_str())
            .collect();
        assert_eq!(deny, ["*__delete_*"]);
        assert_eq!(out.policy.allow.len(), 1);
        // Per key inside a tool's table: the user's timeout stays, the allowlist is the
        // project's.
        assert!(out.tools.shell.enabled);
        assert_eq!(out.tools.shell.allow, ["sh"]);
        assert_eq!(out.tools.shell.timeout_secs, 7);
        assert_eq!(out.ui.theme.as_deref(), Some("light"));
        assert!(!out.ui.mouse);
        let hooks: Vec<&str> = out
            .hooks
            .pre_tool_use
            .iter()
            .map(|h| h.command.get_ref()[0].as_str())
            .collect();
        assert_eq!(hooks, ["user-hook", "project-hook"]);
    }

    #[test]
    fn a_cosmetic_merge_takes_only_how_the_screen_looks() {
        let (user, _) = layer(USER);
        let (project, set) = layer(PROJECT);
        let out = merge(&user, &project, &set, Reach::Cosmetic, true).unwrap();
        let mut expected = user.clone();
        expected.ui.mouse = false;
        assert_eq!(out, expected);
    }

    #[test]
    fn has_follows_dotted_paths() {
        let (_, set) = layer(PROJECT);
        assert!(has(&set, &["tools", "shell", "allow"]));
        assert!(!has(&set, &["tools", "shell", "env"]));
        assert!(!has(&set, &["default_provider"]));
        assert!(is_cosmetic(&["ui", "mouse"]));
        assert!(!is_cosmetic(&["ui", "keys"]));
    }
}
