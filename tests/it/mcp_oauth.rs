//! OAuth for remote servers against a fake authorization server and MCP endpoint on
//! 127.0.0.1: `mcp login` through a `$BROWSER` script, stored tokens used by later
//! commands, refresh on expiry, step-up with a cap, logout, `needs login` exit 3, and
//! no token value in the state files.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Output;

use crate::support::oauth::{Fake, browser_script};
use crate::support::trust_folder;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new(url: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = format!("[servers.remote]\nurl = {url:?}\n");
        std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
        trust_folder(dir.path(), &dir.path().join("state"));
        Self { dir }
    }

    fn state(&self) -> std::path::PathBuf {
        self.dir.path().join("state")
    }

    /// Runs switchboard (stdin not a terminal) with `$BROWSER` set or unset.
    async fn run(&self, args: &[&str], browser: bool) -> Output {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env("XDG_STATE_HOME", self.state())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("BROWSER")
            .stdin(std::process::Stdio::null())
            .args(args);
        if browser {
            cmd.env("BROWSER", browser_script(self.dir.path()));
        }
        tokio::task::spawn_blocking(move || cmd.output().unwrap())
            .await
            .unwrap()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn all_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            all_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_stores_tokens_that_later_commands_use_and_logout_forgets() {
    let fake = Fake::start(3600).await;
    let env = Env::new(&fake.url());

    let out = env.run(&["mcp", "login", "remote"], true).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("remote: logged in (issuer http://127.0.0.1:"),
        "{stdout}"
    );
    assert!(stdout.contains("scopes tools offline_access"), "{stdout}");
    assert_eq!(fake.state().requested_scopes, ["tools offline_access"]);

    let mut files = Vec::new();
    all_files(&env.state().join("switchboard/oauth"), &mut files);
    assert_eq!(files.len(), 1, "{files:?}");
    let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    // A later command, without a browser, uses the stored token.
    let out = env
        .run(&["call", "remote", "echo", "--approve", "full-auto"], false)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("echoed"));
    assert_eq!(fake.state().authorizations, 1);

    let status = text(&env.run(&["mcp", "auth-status"], false).await.stdout);
    assert!(
        status.contains("remote") && status.contains("logged in (issuer"),
        "{status}"
    );

    // No token value in the log, audit or session files.
    let issued = fake.state().issued.clone();
    let mut files = Vec::new();
    all_files(&env.state(), &mut files);
    all_files(&env.dir.path().join("data"), &mut files);
    let others: Vec<_> = files
        .iter()
        .filter(|f| !f.starts_with(env.state().join("switchboard/oauth")))
        .collect();
    assert!(
        others.iter().any(|f| f.ends_with("audit.jsonl")),
        "{others:?}"
    );
    for file in others {
        let content = std::fs::read_to_string(file).unwrap_or_default();
        for token in &issued {
            assert!(
                !content.contains(token.as_str()),
                "{token} in {}",
                file.display()
            );
        }
        assert!(
            !content.contains("refresh:"),
            "a refresh token in {}",
            file.display()
        );
    }

    let out = env.run(&["mcp", "logout", "remote"], false).await;
    assert_eq!(text(&out.stdout), "remote: logged out\n");
    let status = text(&env.run(&["mcp", "auth-status"], false).await.stdout);
    assert!(
        status.contains("needs login: run `switchboard mcp login remote`"),
        "{status}"
    );

    // Headless, with nowhere to show a page: exit 3 naming the command.
    let out = env
        .run(&["call", "remote", "echo", "--approve", "full-auto"], false)
        .await;
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("needs login: run `switchboard mcp login remote`"),
        "{}",
        text(&out.stderr)
    );
    // `servers` reports; it does not log in, even with a browser at hand.
    let servers = text(&env.run(&["servers"], true).await.stdout);
    assert!(servers.contains("needs login"), "{servers}");
    assert_eq!(fake.state().authorizations, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headless_commands_log_in_through_browser_and_refresh_expired_tokens() {
    // Tokens that are already expired when issued: every use refreshes first.
    let fake = Fake::start(0).await;
    let env = Env::new(&fake.url());
    let out = env
        .run(&["call", "remote", "echo", "--approve", "full-auto"], true)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(fake.state().authorizations, 1);
    let before = fake.state().refreshes;
    let out = env
        .run(&["call", "remote", "echo", "--approve", "full-auto"], false)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(fake.state().refreshes > before, "no refresh grant");
    assert_eq!(fake.state().authorizations, 1, "a refresh, not a new login");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_up_asks_for_the_union_and_gives_up_after_the_cap() {
    let fake = Fake::start(3600).await;
    fake.state().call_needs_scope = Some("admin".into());
    let env = Env::new(&fake.url());
    let out = env
        .run(&["call", "remote", "echo", "--approve", "full-auto"], true)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        fake.state().requested_scopes,
        ["tools offline_access", "tools offline_access admin"]
    );

    // A scope the server never grants: at most MAX_LOGIN_ROUNDS logins, then exit 3.
    fake.state().call_needs_scope = Some("never".into());
    let before = fake.state().authorizations;
    let out = env
        .run(&["call", "remote", "echo", "--approve", "full-auto"], true)
        .await;
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("gave up after 3 logins in a row"),
        "{stderr}"
    );
    assert_eq!(
        fake.state().authorizations - before,
        switchboard::mcp::MAX_LOGIN_ROUNDS
    );
}

/// Over SSH: no browser opens, the URL is printed, and the person pastes the final
/// redirect URL at the prompt (stdin is a terminal).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redirect_url_can_be_pasted_when_no_browser_opens() {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::{Read as _, Write as _};
    use std::sync::{Arc, Mutex};

    let fake = Fake::start(3600).await;
    let env = Env::new(&fake.url());
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let bin = env!("CARGO_BIN_EXE_switchboard");
    let mut cmd = CommandBuilder::new("sh");
    cmd.arg("-c");
    cmd.arg(format!("'{bin}' mcp login remote; echo \"EXIT=$?\""));
    cmd.cwd(env.dir.path());
    cmd.env("HOME", env.dir.path());
    cmd.env("XDG_STATE_HOME", env.state());
    cmd.env("BROWSER", "false");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut writer = pair.master.take_writer().unwrap();
    let output = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&output);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    let wait_for = |needle: &str| {
        // A hang guard, not a speed check.
        for _ in 0..600 {
            if output.lock().unwrap().contains(needle) {
                return output.lock().unwrap().clone();
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("no {needle:?} in:\n{}", output.lock().unwrap());
    };
    let shown = wait_for("or paste the redirect URL");
    let url = shown
        .split_whitespace()
        .find(|w| w.contains("/authorize?"))
        .unwrap()
        .to_owned();
    let client = switchboard::tls::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = client.get(&url).send().await.unwrap();
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    writeln!(writer, "{location}").unwrap();
    let done = wait_for("EXIT=");
    assert!(done.contains("remote: logged in (issuer"), "{done}");
    assert!(done.contains("EXIT=0"), "{done}");
    let _ = child.wait();
    assert_eq!(fake.state().issued.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_authorization_server_drops_the_old_tokens() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let fake = Fake::start(3600).await;
    let env = Env::new(&fake.url());
    let out = env.run(&["mcp", "login", "remote"], true).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // The resource now names another authorization server (it migrated).
    let moved = MockServer::start().await;
    let base = moved.uri();
    Mock::given(method("GET"))
        .and(path("/.well-known/oauth-authorization-server"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
        })))
        .mount(&moved)
        .await;
    Mock::given(method("GET"))
        .and(path("/.well-known/oauth-protected-resource/mcp"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "resource": fake.url(),
            "authorization_servers": [base],
        })))
        .with_priority(1)
        .mount(&fake.server)
        .await;

    // The old tokens are still valid at the resource, but they were minted by the
    // old issuer: they are not sent, and the server needs a new login.
    let out = env
        .run(&["call", "remote", "echo", "--approve", "full-auto"], false)
        .await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("needs login: run `switchboard mcp login remote`"),
        "{}",
        text(&out.stderr)
    );
    let mut files = Vec::new();
    all_files(&env.state().join("switchboard/oauth"), &mut files);
    for file in files {
        let content = std::fs::read_to_string(&file).unwrap();
        for token in &fake.state().issued {
            assert!(!content.contains(token.as_str()), "old token kept");
        }
    }
}
