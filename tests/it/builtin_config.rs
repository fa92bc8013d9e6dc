//! `[tools.*]` and `[skills]` configuration: defaults, unknown keys, and values that
//! parse but are wrong, each reported at file:line:col.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use switchboard::config::Config;
use switchboard::settings::parse_str;

fn error(toml: &str) -> String {
    parse_str(toml, Path::new("c.toml"))
        .unwrap_err()
        .to_string()
}

#[test]
fn defaults_are_the_safe_ones() {
    let config = Config::default();
    assert!(config.tools.shell.allow.is_empty());
    assert!(config.tools.http.allow_hosts.is_empty());
    assert!(!config.tools.http.allow_http);
    assert!(!config.tools.http.follow_redirects);
    assert_eq!(config.tools.http.allow_methods, ["GET"]);
    assert_eq!(config.tools.shell.max_output_bytes, 64 * 1024);
    assert!(config.skills.enabled && config.skills.allow.is_none());
}

#[test]
fn a_full_tools_section_parses() {
    let toml = r#"
[tools.fs]
enabled = true
root = "src"
allow_write = false
max_read_bytes = 1000
max_write_bytes = 1000
max_list_entries = 10

[tools.shell]
allow = ["git", "cargo"]
env = ["HOME", "RUST_LOG"]
timeout_secs = 10
max_timeout_secs = 60
max_output_bytes = 4096

[tools.http]
allow_hosts = ["api.github.com", "[::1]"]
allow_http = false
allow_methods = ["GET", "POST"]
allow_headers = ["accept"]
follow_redirects = true
max_request_bytes = 100
max_response_bytes = 100
timeout_secs = 5

[tools.memory]
enabled = false
dir = "/tmp/mem"

[skills]
enabled = true
paths = ["skills"]
allow = ["policy-writing"]
"#;
    let config = parse_str(toml, Path::new("c.toml")).unwrap();
    assert_eq!(config.tools.shell.allow, ["git", "cargo"]);
    assert!(!config.tools.memory.enabled);
}

#[test]
fn unknown_keys_are_named() {
    assert_eq!(
        error("[tools.shell]\nallowed = [\"git\"]\n"),
        "c.toml:2:1: unknown key `allowed` in [tools.shell]\n  hint: did you mean `allow`?"
    );
    assert!(error("[tools.ftp]\n").starts_with("c.toml:1:8: unknown key `ftp` in [tools]"));
}

#[test]
fn bad_values_are_located() {
    assert_eq!(
        error("[tools.shell]\nallow = [\"git\", \"/bin/sh\"]\n"),
        "c.toml:2:17: `tools.shell.allow[1]`: `/bin/sh` holds a `/`: list bare program names (found on PATH), not paths"
    );
    assert_eq!(
        error("[tools.http]\nallow_hosts = [\"https://example.com\"]\n"),
        "c.toml:2:16: `tools.http.allow_hosts[0]`: `https://example.com` holds a scheme: list host names only (`example.com`); `allow_http` decides the scheme"
    );
    assert!(
        error("[tools.http]\nallow_hosts = [\"example.com:8080\"]\n")
            .contains("is not a host name")
    );
    assert_eq!(
        error("[tools.fs]\nmax_read_bytes = 0\n"),
        "c.toml:2:18: `tools.fs.max_read_bytes`: must be greater than 0\n  hint: a limit of 0 would refuse every call; disable the tool with `enabled = false` instead"
    );
    assert!(
        error("[tools.http]\nallow_methods = [\"FETCH\"]\n").contains("unknown method `FETCH`")
    );
    assert!(
        error("[tools.shell]\nenv = [\"A-B\"]\n").contains("is not an environment variable name")
    );
    assert!(
        error("[tools.shell]\ntimeout_secs = 100\nmax_timeout_secs = 10\n")
            .contains("is above `max_timeout_secs` (10s)")
    );
}
