//! `switchboard mcp search` and `mcp install` against a stand-in MCP Registry on
//! 127.0.0.1: the v0.1 shapes served from `tests/fixtures/registry/servers.json`,
//! three servers a page, with `search` (names only, as the real one), `cursor`,
//! `updated_since` and `versions/latest`.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::cli::Sandbox;

/// Servers per page, whatever `limit` asks (the registry may send fewer).
const PAGE: usize = 3;

pub(crate) fn fixture() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/registry/servers.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    value["servers"].as_array().unwrap().clone()
}

/// The registry on its own runtime thread; dropping it closes its port.
pub(crate) struct StandIn {
    pub(crate) url: String,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StandIn {
    pub(crate) fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, is_ready) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let server = MockServer::builder().listener(listener).start().await;
                Mock::given(wiremock::matchers::method("GET"))
                    .respond_with(Registry {
                        servers: fixture(),
                        seen,
                    })
                    .mount(&server)
                    .await;
                ready.send(()).unwrap();
                let _ = stopped.await;
            });
        });
        is_ready.recv_timeout(Duration::from_secs(30)).unwrap();
        Self {
            url,
            requests,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct Registry {
    servers: Vec<Value>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Respond for Registry {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let path = request.url.path();
        let query = request.url.query().unwrap_or_default();
        self.seen.lock().unwrap().push(format!("{path}?{query}"));
        if path == "/v0.1/servers" {
            return ResponseTemplate::new(200).set_body_json(self.page(request));
        }
        let name = path
            .strip_prefix("/v0.1/servers/")
            .and_then(|rest| rest.strip_suffix("/versions/latest"))
            .map(|name| name.replace("%2F", "/"));
        match self
            .servers
            .iter()
            .find(|s| Some(s["server"]["name"].as_str().unwrap()) == name.as_deref())
        {
            Some(entry) => ResponseTemplate::new(200).set_body_json(entry),
            None => ResponseTemplate::new(404).set_body_json(json!({"error": "Server not found"})),
        }
    }
}

impl Registry {
    fn page(&self, request: &Request) -> Value {
        let param = |key: &str| {
            request
                .url
                .query_pairs()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.into_owned())
        };
        let search = param("search").unwrap_or_default();
        let since = param("updated_since").unwrap_or_default();
        let start: usize = param("cursor").map_or(0, |c| c.parse().unwrap());
        let matching: Vec<&Value> = self
            .servers
            .iter()
            .filter(|s| s["server"]["name"].as_str().unwrap().contains(&search))
            .filter(|s| {
                let meta = &s["_meta"]["io.modelcontextprotocol.registry/official"];
                meta["updatedAt"].as_str().unwrap() >= since.as_str()
            })
            .collect();
        let end = (start + PAGE).min(matching.len());
        let next = (end < matching.len()).then(|| end.to_string());
        json!({
            "servers": matching[start..end],
            "metadata": {"nextCursor": next, "count": end - start},
        })
    }
}

/// Fails naming the first of `needles` that `text` does not hold.
fn has_all(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "no {needle:?} in:\n{text}");
    }
}

/// `mcp install NAME --registry URL --yes EXTRA…`.
fn install(sb: &Sandbox, url: &str, name: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["mcp", "install", name, "--registry", url, "--yes"];
    args.extend(extra);
    sb.run(&args)
}

/// Installing `name` fails (exit 1) saying `needle`.
fn refused(sb: &Sandbox, url: &str, name: &str, needle: &str) {
    let (code, _, err) = install(sb, url, name, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(needle), "no {needle:?} in:\n{err}");
}

fn search(sb: &Sandbox, url: &str, query: &[&str]) -> (i32, String, String) {
    let mut args = vec!["mcp", "search", "--registry", url];
    args.extend(query);
    sb.run(&args)
}

#[test]
fn registry_search_hides_deleted_marks_deprecated_and_follows_pages() {
    let registry = StandIn::start();
    let sb = Sandbox::new();
    let (code, out, err) = search(&sb, &registry.url, &["weather"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("io.github.acme/weather "), "{out}");
    assert!(
        lines[0].contains("1.2.3") && lines[0].contains(" npm "),
        "{out}"
    );
    assert!(lines[0].contains("Acme Weather: Forecasts"), "{out}");
    assert!(
        lines[1].starts_with("io.github.old/legacy-weather"),
        "{out}"
    );
    assert!(lines[1].contains("(deprecated)"), "{out}");
    assert!(
        !out.contains("weather-gone"),
        "deleted entries are hidden: {out}"
    );
    // The whole list was read, page after page, and kept.
    let requests = registry.requests();
    assert!(
        requests.iter().any(|r| r.contains("search=weather")),
        "{requests:?}"
    );
    assert!(
        requests.iter().any(|r| r.contains("cursor=3")),
        "{requests:?}"
    );
    assert!(
        requests.iter().any(|r| r.contains("cursor=6")),
        "{requests:?}"
    );

    // Words only a description holds are found through the kept list.
    let (code, out, err) = search(&sb, &registry.url, &["sea", "levels"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("io.github.zed/tide-tables"), "{out}");
    assert!(out.contains(" oci "), "{out}");
    // The second sync asks only for what changed since the first.
    assert!(
        registry
            .requests()
            .iter()
            .any(|r| r.contains("updated_since=")),
        "{:?}",
        registry.requests()
    );

    // JSON, and untrusted text never reaches the terminal raw.
    let (code, out, _) = search(&sb, &registry.url, &["bundle", "--json"]);
    assert_eq!(code, 0);
    let value: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value["servers"][0]["name"], "io.github.zed/bundle");
    assert_eq!(value["servers"][0]["installs_as"], "mcpb");
    assert_eq!(value["cached"], Value::Null);
    let (_, out, _) = search(&sb, &registry.url, &["bundle"]);
    assert!(!out.contains('\u{1b}'), "{out:?}");
}

#[test]
fn registry_down_names_the_url_and_the_cache_says_its_age() {
    let sb = Sandbox::new();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let (code, _, err) = search(&sb, &url, &["weather"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(&format!("the registry at {url} could not be reached")),
        "{err}"
    );

    let registry = StandIn::start();
    let url = registry.url.clone();
    let (code, _, err) = search(&sb, &url, &["tides"]);
    assert_eq!(code, 0, "{err}");
    drop(registry);
    // Make the kept list three hours old.
    let dir = sb.cache_home().join("switchboard/registry");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut cache: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let synced = cache["synced_at"].as_u64().unwrap();
    cache["synced_at"] = json!(synced - 3 * 3_600);
    std::fs::write(&file, cache.to_string()).unwrap();

    let (code, out, err) = search(&sb, &url, &["sea"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("io.github.zed/tide-tables"), "{out}");
    assert!(
        err.contains(&format!("the registry at {url} could not be reached")),
        "{err}"
    );
    assert!(err.contains("cached 3 h ago"), "{err}");
    let (_, out, _) = search(&sb, &url, &["sea", "--json"]);
    let value: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value["cached"]["age"], "3 h");
}

#[test]
fn registry_install_npm_writes_npx_and_secret_references_only() {
    let registry = StandIn::start();
    let sb = Sandbox::new();
    let secret = "sk-very-secret-value-123";
    let weather = [
        "mcp",
        "install",
        "io.github.acme/weather",
        "--registry",
        &registry.url,
    ];
    // A secret given as a value is refused, and nothing is written.
    let mut with_value = weather.to_vec();
    with_value.extend(["--yes", "--env", "WEATHER_API_KEY=sk-very-secret-value-123"]);
    let (code, _, err) = sb.run(&with_value);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--env WEATHER_API_KEY"), "{err}");
    assert!(!sb.user_file().exists());
    // Without --yes and without a terminal, nothing is written either.
    let (code, out, err) = sb.run_env(&weather, &[("WEATHER_API_KEY", secret)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("command: npx -y @acme/weather-mcp@1.2.3"),
        "{out}"
    );
    assert!(err.contains("--yes"), "{err}");
    assert!(!sb.user_file().exists());

    let mut yes = weather.to_vec();
    yes.push("--yes");
    let (code, out, err) = sb.run_env(&yes, &[("WEATHER_API_KEY", secret)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("env: WEATHER_API_KEY=${WEATHER_API_KEY}"),
        "{out}"
    );
    assert!(out.contains("added stdio server weather"), "{out}");
    let text = std::fs::read_to_string(sb.user_file()).unwrap();
    has_all(
        &text,
        &[
            "[servers.weather]",
            "command = \"npx\"",
            "args = [\"-y\", \"@acme/weather-mcp@1.2.3\"]",
            "WEATHER_API_KEY = \"${WEATHER_API_KEY}\"",
            "WEATHER_UNITS = \"metric\"",
        ],
    );
    assert!(!text.contains(secret), "{text}");

    // The name is taken now: said before anything is asked.
    let (code, _, err) = sb.run_env(&yes, &[("WEATHER_API_KEY", secret)]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`weather` is already configured"), "{err}");
    assert!(err.contains("--name KEY"), "{err}");

    // pypi, into the project file, under a name of one's own.
    let extra = ["--scope", "project", "--name", "notes", "--arg", "db=my.db"];
    let (code, _, err) = install(&sb, &registry.url, "io.github.acme/py-notes", &extra);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(sb.project_file()).unwrap();
    assert!(
        text.contains(
            "[servers.notes]\ncommand = \"uvx\"\nargs = [\"notes-mcp==0.4.0\", \"--db\", \"my.db\"]"
        ),
        "{text}"
    );
}

#[test]
fn registry_install_remote_writes_url_and_headers() {
    let registry = StandIn::start();
    let sb = Sandbox::new();
    // The URL's variable has no default: with --yes it must be given.
    refused(&sb, &registry.url, "com.example/hosted", "--arg tenant");
    let given = ["--arg", "tenant=acme"];
    let (code, out, err) = install(&sb, &registry.url, "com.example/hosted", &given);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("url: https://mcp.example.com/acme/mcp"),
        "{out}"
    );
    let text = std::fs::read_to_string(sb.user_file()).unwrap();
    has_all(
        &text,
        &[
            "type = \"http\"",
            "url = \"https://mcp.example.com/acme/mcp\"",
            "Authorization = \"Bearer ${TOKEN}\"",
            "X-Team = \"core\"",
        ],
    );

    // What cannot be installed says why; an unknown name says where it looked.
    let url = &registry.url;
    refused(&sb, url, "io.github.zed/bundle", "MCP bundle (mcpb)");
    let unknown = format!("no server named `no/such` in the registry at {url}");
    refused(&sb, url, "no/such", &unknown);
    refused(&sb, url, "io.github.old/weather-gone", "deleted");
}

#[test]
fn registry_url_comes_from_the_config() {
    let registry = StandIn::start();
    let sb = Sandbox::new();
    crate::support::write(
        &sb.user_file(),
        &format!("[mcp]\nregistry = \"{}\"\n", registry.url),
    );
    let (code, out, err) = sb.run(&["mcp", "search", "tides"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("io.github.zed/tide-tables"), "{out}");
    crate::support::write(&sb.user_file(), "[mcp]\nregistry = \"ftp://nope\"\n");
    let (code, _, err) = sb.run(&["mcp", "search", "tides"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("mcp.registry"), "{err}");
}

#[test]
fn registry_install_asks_on_a_terminal_and_confirms() {
    let registry = StandIn::start();
    let args = format!("mcp install com.example/hosted --registry {}", registry.url);
    let mut s = crate::support::pty::spawn(&args);
    s.wait_for("{tenant} in the URL (your tenant) (required): ");
    s.send(b"acme\r");
    s.wait_for("header X-Team [core]: ");
    s.send(b"\r");
    s.wait_for("url: https://mcp.example.com/acme/mcp");
    s.wait_for("Write it? [y/N] ");
    s.send(b"y\r");
    s.wait_for("EXIT=0");
    let file = s.home.path().join("config/switchboard/config.toml");
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains("[servers.hosted]"), "{text}");
    assert!(text.contains("X-Team = \"core\""), "{text}");

    // Saying no writes nothing.
    let mut s = crate::support::pty::spawn(&format!("{args} --arg tenant=acme"));
    s.wait_for("header X-Team [core]: ");
    s.send(b"blue\r");
    s.wait_for("header: X-Team=blue");
    s.wait_for("Write it? [y/N] ");
    s.send(b"n\r");
    s.wait_for("EXIT=1");
    assert!(
        !s.home
            .path()
            .join("config/switchboard/config.toml")
            .exists()
    );
}
