//! Loading: the full example file, and the search order over temporary directories.

// Test helpers (outside #[test] fns) unwrap too: a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

use switchboard::config::{AnnotationTrust, Config, KeyBindingSpec, ProviderKind, load};
use switchboard::paths::{CandidateOrigin, Dirs};
use switchboard::settings::parse_str;
use tempfile::TempDir;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/config")
        .join(name)
}

#[test]
fn full_file_parses_every_section() {
    let path = fixture("full.toml");
    let text = fs::read_to_string(&path).unwrap();
    let config = parse_str(&text, &path).unwrap();

    assert_eq!(config.default_provider.as_deref(), Some("claude"));

    assert_eq!(config.ui.theme.as_deref(), Some("high-contrast"));
    assert!(!config.ui.mouse);
    assert!(config.ui.show_logs);
    assert_eq!(
        config.ui.keys["send"].get_ref(),
        &KeyBindingSpec::Many(vec!["enter".into(), "ctrl+s".into()])
    );
    assert_eq!(config.ui.keys["quit"].get_ref().keys(), vec!["ctrl+q"]);

    let weather = &config.servers["weather"];
    assert_eq!(weather.command.as_deref(), Some("npx"));
    assert_eq!(weather.args, ["-y", "@example/weather-mcp"]);
    assert_eq!(weather.env["UNITS"], "metric");
    assert_eq!(weather.cwd.as_deref(), Some(Path::new("/srv/weather")));
    assert_eq!(weather.transport.as_deref(), Some("stdio"));
    assert_eq!(weather.enabled, Some(true));
    assert_eq!(weather.startup_timeout, Some(10.0));
    assert_eq!(weather.tool_timeout, Some(60.0));
    assert_eq!(weather.disabled_tools, ["delete_forecast"]);
    assert_eq!(weather.annotations, Some(AnnotationTrust::Trust));

    let search = &config.servers["search"];
    assert_eq!(search.url.as_deref(), Some("https://mcp.example.com/mcp"));
    assert_eq!(search.headers["X-Team"], "tools");
    assert_eq!(search.bearer_token_env_var.as_deref(), Some("SEARCH_TOKEN"));
    assert_eq!(
        search.enabled_tools.as_deref(),
        Some(&["search".to_owned(), "fetch".to_owned()][..])
    );
    assert_eq!(search.annotations, Some(AnnotationTrust::Ignore));

    let claude = &config.providers["claude"];
    assert_eq!(claude.kind, ProviderKind::Anthropic);
    assert_eq!(claude.max_tokens, Some(4096));
    assert_eq!(claude.temperature, Some(0.2));
    assert_eq!(claude.timeout, Some(120.0));
    assert_eq!(config.providers["local"].headers["X-Client"], "switchboard");
    assert_eq!(config.providers["replay"].kind, ProviderKind::Scripted);

    let policy = &config.policy;
    assert_eq!(
        policy.mode.as_ref().map(|m| m.get_ref().as_str()),
        Some("ask")
    );
    assert_eq!(policy.allow[0].get_ref(), "weather__*");
    assert_eq!(policy.ask[0].get_ref(), "search__fetch");
    assert_eq!(policy.deny[0].get_ref(), "weather__delete_forecast");
    assert_eq!(policy.effects["search.fetch"].get_ref(), "compute");
    assert_eq!(
        policy.confirm_delete.as_ref().map(|c| c.get_ref().as_str()),
        Some("double")
    );
    assert!(policy.audit_arguments);
    assert!(policy.audit_log.is_some());
    assert_eq!(policy.max_calls["search.fetch"], 20);

    assert_eq!(config.skills.paths, [PathBuf::from("~/skills")]);
    assert_eq!(config.skills.allow.as_ref().map(Vec::len), Some(2));
}

#[test]
fn spans_point_into_the_source() {
    let path = fixture("full.toml");
    let text = fs::read_to_string(&path).unwrap();
    let config = parse_str(&text, &path).unwrap();
    let allow = &config.policy.allow[0];
    assert_eq!(&text[allow.span()], "\"weather__*\"");
}

#[test]
fn empty_file_is_the_defaults() {
    assert_eq!(
        parse_str("", Path::new("e.toml")).unwrap(),
        Config::default()
    );
}

/// A sandbox with a working directory and a user config home.
struct Sandbox {
    _root: TempDir,
    dirs: Dirs,
}

impl Sandbox {
    fn new() -> Self {
        let root = TempDir::new().unwrap();
        let cwd = root.path().join("project");
        fs::create_dir_all(&cwd).unwrap();
        let dirs = Dirs::new(
            cwd,
            root.path().join("config"),
            root.path().join("state"),
            root.path().join("data"),
        );
        Self { _root: root, dirs }
    }

    fn write_project(&self, text: &str) -> PathBuf {
        let path = self.dirs.cwd.join("switchboard.toml");
        fs::write(&path, text).unwrap();
        path
    }

    fn write_user(&self, text: &str) -> PathBuf {
        let path = self.dirs.user_config_file();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    fn write_explicit(&self, text: &str) -> PathBuf {
        let path = self.dirs.cwd.join("other.toml");
        fs::write(&path, text).unwrap();
        path
    }
}

#[test]
fn explicit_beats_project_beats_user() {
    let sb = Sandbox::new();
    let user = sb.write_user("[ui]\ntheme = \"user\"\n");
    let loaded = load(&sb.dirs, None).unwrap();
    let source = loaded.source.unwrap();
    assert_eq!((source.path, source.origin), (user, CandidateOrigin::User));
    assert_eq!(loaded.config.ui.theme.as_deref(), Some("user"));
    assert_eq!(loaded.text, "[ui]\ntheme = \"user\"\n");

    let project = sb.write_project("[ui]\ntheme = \"project\"\n");
    let loaded = load(&sb.dirs, None).unwrap();
    let source = loaded.source.unwrap();
    assert_eq!(
        (source.path, source.origin),
        (project, CandidateOrigin::Project)
    );
    assert_eq!(loaded.config.ui.theme.as_deref(), Some("project"));

    let explicit = sb.write_explicit("[ui]\ntheme = \"explicit\"\n");
    let loaded = load(&sb.dirs, Some(&explicit)).unwrap();
    let source = loaded.source.unwrap();
    assert_eq!(
        (source.path, source.origin),
        (explicit, CandidateOrigin::Explicit)
    );
    assert_eq!(loaded.config.ui.theme.as_deref(), Some("explicit"));
}

#[test]
fn relative_explicit_path_is_taken_from_cwd() {
    let sb = Sandbox::new();
    sb.write_explicit("[ui]\ntheme = \"explicit\"\n");
    let loaded = load(&sb.dirs, Some(Path::new("other.toml"))).unwrap();
    assert_eq!(loaded.config.ui.theme.as_deref(), Some("explicit"));
}

#[test]
fn no_file_anywhere_gives_the_defaults() {
    let sb = Sandbox::new();
    let loaded = load(&sb.dirs, None).unwrap();
    assert_eq!(loaded.source, None);
    assert_eq!(loaded.config, Config::default());
    assert_eq!(loaded.text, "");
}

#[test]
fn missing_explicit_file_is_an_error_naming_it() {
    let sb = Sandbox::new();
    sb.write_project("");
    let missing = sb.dirs.cwd.join("nope.toml");
    let err = load(&sb.dirs, Some(&missing)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: cannot read config: No such file or directory (os error 2)",
            missing.display()
        )
    );
}

#[test]
fn errors_in_a_found_file_name_that_file() {
    let sb = Sandbox::new();
    let project = sb.write_project("[ui]\nmouse = 1\n");
    let err = load(&sb.dirs, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:2:9: `ui.mouse`: expected a boolean, found an integer",
            project.display()
        )
    );
}
