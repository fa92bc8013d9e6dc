//! Logging in from the TUI, the real binary in a pseudo-terminal against the fake
//! OAuth server: the server shows `needs login`, `l` opens the page through
//! `$BROWSER` and the server connects; without a browser the redirect URL is pasted
//! into the overlay; Esc cancels a login.
#![allow(clippy::unwrap_used)]

use crate::support;

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::oauth::{Fake, browser_script};
use crate::support::pty::{Session, spawn_with};

const TAB: &[u8] = b"\t";

fn config(home: &Path, url: &str) {
    let config = format!("[servers.remote]\nurl = {url:?}\n");
    // The person's own config (a folder's would first ask to be trusted).
    std::fs::create_dir_all(home.join("config/switchboard")).unwrap();
    std::fs::write(home.join("config/switchboard/config.toml"), config).unwrap();
}

/// Every file under `dir`, as text.
fn all_text(dir: &Path) -> String {
    let mut out = String::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.push_str(&all_text(&path));
        } else if !path.to_string_lossy().contains("/oauth/") {
            out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
        }
    }
    out
}

/// Quits with `q` from the Servers pane and checks no token reached a log, audit
/// or session file.
fn quit_and_check_secrets(mut s: Session, fake: &Fake) {
    s.send(b"q");
    s.wait_for("EXIT=0");
    let state = all_text(&s.home.path().join("state"));
    assert!(
        state.contains("logged in"),
        "the log has the login: {state}"
    );
    for token in &fake.state().issued {
        assert!(!state.contains(token.as_str()), "token {token} leaked");
        assert!(!s.text().contains(token.as_str()), "token on screen");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn l_opens_the_page_and_the_server_connects() {
    let fake = Fake::start(3600).await;
    let url = fake.url();
    let s = tokio::task::spawn_blocking(move || {
        let mut s = spawn_with(
            |home, cmd| {
                config(home, &url);
                cmd.env("BROWSER", browser_script(home));
            },
            "",
        );
        s.wait_screen("l to log in");
        s.send(TAB);
        s.send(b"l");
        s.wait_screen("logged in to remote");
        s.wait_screen("1 tool");
        s
    })
    .await
    .unwrap();
    assert_eq!(fake.state().authorizations, 1);
    tokio::task::block_in_place(|| quit_and_check_secrets(s, &fake));
}

/// A `$BROWSER` that cannot open anything but leaves the URL where the test can
/// find it (as a person would copy it from the overlay).
fn no_browser(home: &Path) -> String {
    let body = "echo \"$1\" > \"$(dirname \"$0\")/url.txt\"\nexit 1\n";
    support::oauth::write_script(home, "nobrowser.sh", body)
}

fn wait_file(path: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.trim().is_empty()
        {
            return text.trim().to_owned();
        }
        assert!(Instant::now() < deadline, "no URL at {}", path.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_cancels_and_a_pasted_redirect_finishes_the_login() {
    let fake = Fake::start(3600).await;
    let url = fake.url();
    let mut s = tokio::task::spawn_blocking(move || {
        let mut s = spawn_with(
            |home, cmd| {
                config(home, &url);
                cmd.env("BROWSER", no_browser(home));
            },
            "",
        );
        s.wait_screen("l to log in");
        s.send(TAB);
        s.send(b"l");
        s.wait_screen("Log in to remote");
        s.wait_screen("No browser opened");
        s.send(b"\x1b");
        s.wait_screen("login to remote cancelled");
        std::fs::remove_file(s.home.path().join("url.txt")).unwrap();
        s.send(b"l");
        s
    })
    .await
    .unwrap();
    let url_file = s.home.path().join("url.txt");
    let auth_url = tokio::task::spawn_blocking(move || wait_file(&url_file))
        .await
        .unwrap();
    // The browser elsewhere: follow the authorization page to its redirect.
    let client = switchboard::tls::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = client.get(&auth_url).send().await.unwrap();
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with("http://127.0.0.1:"), "{location}");
    let s = tokio::task::spawn_blocking(move || {
        s.wait_screen("paste the final redirect URL");
        s.send(format!("\x1b[200~{location}\x1b[201~").as_bytes());
        s.send(b"\r");
        s.wait_screen("logged in to remote");
        s.wait_screen("1 tool");
        s
    })
    .await
    .unwrap();
    assert_eq!(fake.state().authorizations, 1, "the page was opened once");
    tokio::task::block_in_place(|| quit_and_check_secrets(s, &fake));
}
