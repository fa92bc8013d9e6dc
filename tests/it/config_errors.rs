//! Every config error names the file, line and column, and says what to do.

// Test helpers (outside #[test] fns) unwrap too: a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use switchboard::config::{ConfigError, ErrorKind};
use switchboard::settings::parse_str;

fn error(text: &str) -> ConfigError {
    parse_str(text, Path::new("switchboard.toml")).unwrap_err()
}

fn message(text: &str) -> String {
    error(text).to_string()
}

fn kind(text: &str) -> ErrorKind {
    error(text).located_detail().unwrap().kind
}

#[test]
fn syntax_error() {
    let text = "[ui]\nmouse = true\ntheme = dark\n";
    assert_eq!(
        message(text),
        "switchboard.toml:3:9: invalid TOML: string values must be quoted, expected literal string"
    );
    assert_eq!(kind(text), ErrorKind::Syntax);
}

#[test]
fn syntax_error_duplicate_key() {
    assert_eq!(
        message("[ui]\nmouse = true\nmouse = false\n"),
        "switchboard.toml:3:1: invalid TOML: duplicate key"
    );
}

#[test]
fn unknown_key_nested_with_suggestion() {
    let text = "[servers.weather]\ncomand = \"npx\"\n";
    assert_eq!(
        message(text),
        "switchboard.toml:2:1: unknown key `comand` in [servers.weather]\n  hint: did you mean `command`?"
    );
    assert_eq!(kind(text), ErrorKind::UnknownKey);
}

#[test]
fn unknown_key_top_level_with_suggestion() {
    assert_eq!(
        message("default_provider = \"scripted\"\n\n[server.weather]\ncommand = \"x\"\n"),
        "switchboard.toml:3:2: unknown key `server` at the top level\n  hint: did you mean `servers`?"
    );
}

#[test]
fn unknown_key_lists_expected_keys_when_nothing_is_close() {
    assert_eq!(
        message("[skills]\nzzzzzz = 1\n"),
        "switchboard.toml:2:1: unknown key `zzzzzz` in [skills]\n  hint: expected keys: `enabled`, `paths`, `allow`"
    );
}

#[test]
fn unknown_key_in_inline_table() {
    assert_eq!(
        message("ui = { mouse = true, colour = \"x\" }\n"),
        "switchboard.toml:1:22: unknown key `colour` in [ui]\n  hint: expected keys: `theme`, `mouse`, `show_logs`, `keys`"
    );
}

#[test]
fn wrong_type() {
    let text = "# comment\n\n[ui]\nmouse = \"yes\"\n";
    assert_eq!(
        message(text),
        "switchboard.toml:4:9: `ui.mouse`: expected a boolean, found a string"
    );
    assert_eq!(kind(text), ErrorKind::WrongType);
}

#[test]
fn wrong_type_in_spanned_value() {
    assert_eq!(
        message("[policy]\nmode = 3\n"),
        "switchboard.toml:2:8: `policy.mode`: expected a string, found an integer"
    );
}

#[test]
fn wrong_type_array_expected() {
    assert_eq!(
        message("[policy]\nallow = \"weather.*\"\n"),
        "switchboard.toml:2:9: `policy.allow`: expected an array, found a string"
    );
}

#[test]
fn wrong_type_quoted_key_and_range() {
    assert_eq!(
        message("[policy.max_calls]\n\"search.fetch\" = -1\n"),
        "switchboard.toml:2:18: `policy.max_calls.\"search.fetch\"`: expected a non-negative integer, found -1"
    );
}

#[test]
fn wrong_type_key_binding() {
    assert_eq!(
        message("[ui.keys]\nquit = 3\n"),
        "switchboard.toml:2:8: `ui.keys.quit`: expected a key (\"ctrl+l\") or a list of keys"
    );
}

#[test]
fn invalid_enum_value_with_suggestion() {
    let text = "[providers.x]\nkind = \"openia\"\n";
    assert_eq!(
        message(text),
        "switchboard.toml:2:8: `providers.x.kind`: unknown value `openia`\n  hint: did you mean `openai`?"
    );
    assert_eq!(kind(text), ErrorKind::InvalidValue);
}

#[test]
fn invalid_enum_value_lists_accepted_values() {
    assert_eq!(
        message("[servers.a]\ncommand = \"x\"\nannotations = \"maybe\"\n"),
        "switchboard.toml:3:15: `servers.a.annotations`: unknown value `maybe`\n  hint: accepted values: `trust`, `ignore`"
    );
}

#[test]
fn missing_required_key() {
    let text = "[providers.x]\nmodel = \"m\"\n";
    assert_eq!(
        message(text),
        "switchboard.toml:1:1: missing required key `kind` in [providers.x]"
    );
    assert_eq!(kind(text), ErrorKind::MissingKey);
}

#[test]
fn policy_mode_must_be_known() {
    assert_eq!(
        message("[policy]\nmode = \"full-autp\"\n"),
        "switchboard.toml:2:8: `policy.mode`: unknown value `full-autp`\n  hint: did you mean `full-auto`?"
    );
    assert_eq!(
        message("[policy]\nmode = \"yolo\"\n"),
        "switchboard.toml:2:8: `policy.mode`: unknown value `yolo`\n  hint: accepted values: `read-only`, `ask`, `auto-edit`, `full-auto`, `plan`"
    );
}

#[test]
fn policy_always_ask_entries_must_be_tool_name_globs() {
    assert_eq!(
        message("[policy]\nmode = \"plan\"\nalways_ask = [\"shell\", \"github__[x\"]\n"),
        "switchboard.toml:3:24: `policy.always_ask[1]`: not a glob: unclosed character class; missing ']'"
    );
    assert_eq!(
        message("[policy]\nalways_ask = [\"fs(write:*)\"]\n"),
        "switchboard.toml:2:15: `policy.always_ask[0]`: `fs(write:*)` has arguments, but always_ask takes tool-name globs only (for arguments write an `ask` rule)"
    );
    assert_eq!(
        message("[policy]\nalways_ask = [\" \"]\n"),
        "switchboard.toml:2:15: `policy.always_ask[0]`: is empty: write a tool-name glob such as `shell` or `github__*`"
    );
}

#[test]
fn policy_confirm_delete_must_be_known() {
    assert_eq!(
        message("[policy]\nconfirm_delete = \"triple\"\n"),
        "switchboard.toml:2:18: `policy.confirm_delete`: unknown value `triple`\n  hint: accepted values: `single`, `double`"
    );
}

#[test]
fn policy_effects_must_be_known() {
    assert_eq!(
        message("[policy.effects]\n\"fs.rm\" = \"destroy\"\n"),
        "switchboard.toml:2:11: `policy.effects.\"fs.rm\"`: unknown value `destroy`\n  hint: accepted values: `read`, `compute`, `write`, `delete`, `unknown`"
    );
}

#[test]
fn server_needs_command_or_url() {
    let text = "[servers.ok]\ncommand = \"x\"\n\n[servers.empty]\nargs = [\"-v\"]\n";
    assert_eq!(
        message(text),
        "switchboard.toml:4:1: `servers.empty`: set one of `command` (stdio) or `url` (HTTP)\n  hint: add `command = \"…\"` to start a local process, or `url = \"https://…\"` for a remote server"
    );
    assert_eq!(kind(text), ErrorKind::InvalidValue);
}

#[test]
fn server_must_not_set_both_command_and_url() {
    assert_eq!(
        message("[servers.both]\ncommand = \"x\"\nurl = \"http://h\"\n"),
        "switchboard.toml:3:1: `servers.both`: set only one of `command` (stdio) or `url` (HTTP), not both\n  hint: a server is either a local process or a remote endpoint"
    );
}

#[test]
fn server_transport_must_be_known() {
    assert_eq!(
        message("[servers.a]\nurl = \"http://h\"\ntype = \"htp\"\n"),
        "switchboard.toml:3:8: `servers.a.type`: unknown value `htp`\n  hint: did you mean `http`?"
    );
}

#[test]
fn default_provider_must_exist() {
    assert_eq!(
        message("default_provider = \"opnai\"\n[providers.openai]\nkind = \"openai\"\n"),
        "switchboard.toml:1:20: `default_provider`: no provider named `opnai`\n  hint: did you mean `openai`?"
    );
    assert_eq!(
        message("default_provider = \"zzzzzz\"\n"),
        "switchboard.toml:1:20: `default_provider`: no provider named `zzzzzz`\n  hint: add a [providers.zzzzzz] table, or use one of `scripted`"
    );
}

#[test]
fn scripted_provider_needs_no_table() {
    let config = parse_str("default_provider = \"scripted\"\n", Path::new("c.toml")).unwrap();
    assert_eq!(config.default_provider.as_deref(), Some("scripted"));
}

#[test]
fn first_problem_in_the_file_is_reported() {
    let text = "default_provider = \"nope\"\n[policy]\nmode = \"yolo\"\n";
    assert!(message(text).starts_with("switchboard.toml:1:20: `default_provider`"));
}

#[test]
fn other_modules_report_through_at() {
    let text = "[policy]\nallow = [\"ok\", \"bad__rule\"]\n";
    let config = parse_str(text, Path::new("c.toml")).unwrap();
    let rule = &config.policy.allow[1];
    let err = ConfigError::at(
        Path::new("c.toml"),
        text,
        rule.span(),
        "policy.allow[1]",
        "rules cannot contain spaces",
        Some("write `server.tool`".into()),
    );
    assert_eq!(
        err.to_string(),
        "c.toml:2:16: `policy.allow[1]`: rules cannot contain spaces\n  hint: write `server.tool`"
    );
}

#[test]
fn invalid_policy_rule_is_located() {
    let text = "[policy]\nallow = [\"fs(write:\"]\n";
    let err = switchboard::settings::parse_str(text, std::path::Path::new("sb.toml")).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("sb.toml:2:10: `policy.allow[0]`"), "{msg}");
}

#[test]
fn conflicting_key_binding_is_located() {
    let text = "[ui.keys]\nhelp = \"q\"\n";
    let err = switchboard::settings::parse_str(text, std::path::Path::new("sb.toml")).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with("sb.toml:2:8: `ui.keys.help`: key q is bound to both"),
        "{msg}"
    );
}

#[test]
fn serve_values_are_checked_where_they_are() {
    let mode = message("[serve]\nexpose = [\"t\"]\n\n[serve.clients.desk]\nmode = \"yolo\"\n");
    assert!(
        mode.starts_with("switchboard.toml:5:8: ") && mode.contains("serve.clients.desk.mode"),
        "{mode}"
    );
    let token = message("[serve]\ntoken_env = \"NOT A NAME\"\n");
    assert!(
        token.starts_with("switchboard.toml:2:")
            && token.contains("not an environment variable name"),
        "{token}"
    );
    let client = message("[serve.clients.ci]\nmode = \"ask\"\ntoken_env = \"SB-CI\"\n");
    assert!(
        client.starts_with("switchboard.toml:3:")
            && client.contains("serve.clients.ci.token_env")
            && client.contains("not an environment variable name"),
        "{client}"
    );
    let origin = message("[serve]\nallowed_origins = [\"localhost\"]\n");
    assert!(
        origin.starts_with("switchboard.toml:2:") && origin.contains("scheme"),
        "{origin}"
    );
    let key = message("[serve]\ntoken = \"x\"\n");
    assert!(
        key.starts_with("switchboard.toml:2:1: unknown key `token`"),
        "{key}"
    );
}
