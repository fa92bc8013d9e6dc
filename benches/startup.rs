//! The whole binary in a pseudo-terminal (100×30), in a fresh workspace and fresh XDG
//! directories:
//!
//! - the first frame (`--exit-after-first-frame` prints the time from `main` to the
//!   first frame drawn) with 20 stdio servers configured versus none, interleaved,
//!   as medians and a RATIO 20/0 (1.0: the servers, which connect in the background,
//!   do not delay the first frame);
//! - the idle resident set (VmRSS) of the TUI once its 20 stdio servers are all
//!   connected, against the TUI with none, from the same run;
//! - `on_demand`: the first frame and the idle RSS with 100 servers that start on
//!   demand (`[mcp] start = "on_demand"`), against none, with a RATIO each (1.0: a
//!   hundred servers cost nothing until used; none of them is spawned).
//!
//! `cargo bench --bench startup` (Cargo builds both binaries, release, for benches);
//! `cargo bench --bench startup -- on_demand` for one part.
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const SWITCHBOARD: &str = env!("CARGO_BIN_EXE_switchboard");
const SERVER_BIN: &str = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");
const ROUNDS: usize = 15;
const SERVERS: usize = 20;
/// Servers configured to start on demand in the `on_demand` part.
const ON_DEMAND: usize = 100;

/// A workspace whose (user) config has `servers` stdio test servers.
fn workspace(servers: usize) -> tempfile::TempDir {
    workspace_with(servers, "")
}

/// As [`workspace`], the config starting with `head`.
fn workspace_with(servers: usize, head: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = head.to_owned();
    for i in 0..servers {
        let _ = write!(config, "[servers.s{i}]\ncommand = {SERVER_BIN:?}\n\n");
    }
    // The person's own config: a folder's would first ask to be trusted.
    let user = dir.path().join("config/switchboard");
    std::fs::create_dir_all(&user).expect("config dir");
    std::fs::write(user.join("config.toml"), config).expect("config");
    dir
}

/// The binary running in a pseudo-terminal; its output collected by a thread.
struct Run {
    output: Arc<Mutex<Vec<u8>>>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

/// The primary device attributes request (crossterm sends it after its keyboard
/// enhancement query, and waits up to 2 s for the answer), and the answer of a
/// VT220-class terminal without the kitty keyboard protocol.
const DA1: &[u8] = b"\x1b[c";
const DA1_ANSWER: &[u8] = b"\x1b[?62;22c";

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

impl Run {
    fn start(dir: &Path, args: &[&str]) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 30,
                cols: 100,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("pty");
        let mut cmd = CommandBuilder::new(SWITCHBOARD);
        cmd.args(args);
        cmd.cwd(dir);
        cmd.env("HOME", dir);
        cmd.env("XDG_CONFIG_HOME", dir.join("config"));
        cmd.env("XDG_STATE_HOME", dir.join("state"));
        cmd.env("XDG_DATA_HOME", dir.join("data"));
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).expect("spawn");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = Arc::new(Mutex::new(pair.master.take_writer().expect("writer")));
        let output = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&output);
        let answer = Arc::clone(&writer);
        std::thread::spawn(move || {
            let _master = pair.master; // open as long as there is output to read
            let mut buf = [0u8; 8192];
            let mut answered = 0;
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut out = sink.lock().expect("output");
                out.extend_from_slice(&buf[..n]);
                // Answer as a terminal would (a real one answers within a round trip).
                let asked = count(&out, DA1);
                drop(out);
                if asked > answered {
                    answered = asked;
                    let mut w = answer.lock().expect("writer");
                    let _ = w.write_all(DA1_ANSWER);
                    let _ = w.flush();
                }
            }
        });
        Self {
            output,
            writer,
            child,
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().expect("output")).into_owned()
    }

    fn screen(&self) -> String {
        let mut parser = vt100::Parser::new(30, 100, 0);
        parser.process(&self.output.lock().expect("output"));
        parser.screen().contents()
    }

    fn pid(&self) -> u32 {
        self.child.process_id().expect("pid")
    }

    /// Tab out of the composer, then `q`; waits for the exit.
    fn quit(mut self) {
        if let Ok(mut w) = self.writer.lock() {
            let _ = w.write_all(b"\tq");
            let _ = w.flush();
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One `--exit-after-first-frame` run: (the first frame it reports, the whole run).
fn first_frame(dir: &Path) -> (Duration, Duration) {
    let start = Instant::now();
    let mut run = Run::start(dir, &["--exit-after-first-frame"]);
    let status = run.child.wait().expect("wait");
    let wall = start.elapsed();
    // The reader thread drains the last bytes after the exit.
    let deadline = Instant::now() + Duration::from_secs(5);
    let ms = loop {
        let text = run.text();
        if let Some(ms) = text
            .split("first frame: ")
            .nth(1)
            .and_then(|rest| rest.split(" ms").next())
            .and_then(|ms| ms.trim().parse::<f64>().ok())
        {
            break ms;
        }
        assert!(
            Instant::now() < deadline,
            "no first frame reported ({status:?}):\n{text}"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    (Duration::from_secs_f64(ms / 1000.0), wall)
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn bench_first_frame() {
    let none = workspace(0);
    let many = workspace(SERVERS);
    let _ = first_frame(none.path());
    let _ = first_frame(many.path());
    let (mut f0, mut f20, mut w0, mut w20) = (vec![], vec![], vec![], vec![]);
    for _ in 0..ROUNDS {
        let (f, w) = first_frame(none.path());
        f0.push(f);
        w0.push(w);
        let (f, w) = first_frame(many.path());
        f20.push(f);
        w20.push(w);
    }
    let (f0, f20) = (median(&mut f0), median(&mut f20));
    let (w0, w20) = (median(&mut w0), median(&mut w20));
    println!(
        "first frame, median of {ROUNDS}: no servers {:.2} ms, {SERVERS} servers {:.2} ms \
         (whole run {:.1} ms vs {:.1} ms)",
        ms(f0),
        ms(f20),
        ms(w0),
        ms(w20)
    );
    println!(
        "RATIO first frame, {SERVERS} stdio servers: {:.2} ms vs no servers {:.2} ms → {:.3}× the reference's time",
        ms(f20),
        ms(f0),
        f20.as_secs_f64() / f0.as_secs_f64()
    );
}

/// VmRSS of `pid` in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// The TUI's children that are still running (its servers), over all its threads
/// (a child is listed under the thread that spawned it).
fn children(pid: u32) -> usize {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .map(|s| s.split_whitespace().count())
        .sum()
}

/// The idle RSS of the TUI once `servers` servers are connected (the Servers pane
/// shows none connecting, and it has them all as children), after a settling pause.
fn idle_rss(servers: usize) -> u64 {
    let dir = workspace(servers);
    let run = Run::start(dir.path(), &[]);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let screen = run.screen();
        if screen.contains("Servers")
            && !screen.contains("connecting")
            && children(run.pid()) >= servers
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "servers did not connect:\n{}",
            run.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(3));
    let rss = rss_kib(run.pid());
    run.quit();
    rss
}

fn bench_rss() {
    let base = idle_rss(0);
    let many = idle_rss(SERVERS);
    #[allow(clippy::cast_precision_loss)] // KiB counts are far below 2^52
    let (base_mb, many_mb) = (base as f64 / 1024.0, many as f64 / 1024.0);
    println!(
        "idle RSS: no servers {base_mb:.1} MiB, {SERVERS} stdio servers connected \
         {many_mb:.1} MiB ({} KiB per server)",
        many.saturating_sub(base) / SERVERS as u64
    );
    println!(
        "RATIO idle RSS, {SERVERS} stdio servers: {many_mb:.1} MiB vs no servers {base_mb:.1} MiB → {:.3}× the reference's",
        many_mb / base_mb
    );
}

/// The idle RSS of the TUI whose servers all start on demand: once the Servers pane
/// is drawn, after the same settling pause; none of them may have been spawned.
fn idle_rss_on_demand(dir: &Path, servers: usize) -> u64 {
    let run = Run::start(dir, &[]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !run.screen().contains("Servers") {
        assert!(
            Instant::now() < deadline,
            "no Servers pane:\n{}",
            run.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(3));
    let spawned = children(run.pid());
    assert_eq!(
        spawned, 0,
        "{spawned} of {servers} on-demand servers were spawned"
    );
    let rss = rss_kib(run.pid());
    run.quit();
    rss
}

fn bench_on_demand() {
    let head = "[mcp]\nstart = \"on_demand\"\n\n";
    let none = workspace_with(0, head);
    let many = workspace_with(ON_DEMAND, head);
    let _ = first_frame(none.path());
    let _ = first_frame(many.path());
    let (mut f0, mut fn_) = (vec![], vec![]);
    for _ in 0..ROUNDS {
        f0.push(first_frame(none.path()).0);
        fn_.push(first_frame(many.path()).0);
    }
    let (f0, fn_) = (median(&mut f0), median(&mut fn_));
    println!(
        "first frame, median of {ROUNDS}: no servers {:.2} ms, {ON_DEMAND} on-demand servers {:.2} ms",
        ms(f0),
        ms(fn_)
    );
    println!(
        "RATIO first frame, {ON_DEMAND} on-demand servers: {:.2} ms vs no servers {:.2} ms → {:.3}× the reference's time",
        ms(fn_),
        ms(f0),
        fn_.as_secs_f64() / f0.as_secs_f64()
    );
    let base = idle_rss_on_demand(none.path(), 0);
    let idle = idle_rss_on_demand(many.path(), ON_DEMAND);
    #[allow(clippy::cast_precision_loss)] // KiB counts are far below 2^52
    let (base_mb, idle_mb) = (base as f64 / 1024.0, idle as f64 / 1024.0);
    println!(
        "idle RSS: no servers {base_mb:.1} MiB, {ON_DEMAND} on-demand servers (none spawned) {idle_mb:.1} MiB"
    );
    println!(
        "RATIO idle RSS, {ON_DEMAND} on-demand servers: {idle_mb:.1} MiB vs no servers {base_mb:.1} MiB → {:.3}× the reference's",
        idle_mb / base_mb
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a filter picks one part.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.as_deref().is_none_or(|f| "first_frame".contains(f)) {
        bench_first_frame();
    }
    if filter.as_deref().is_none_or(|f| "rss".contains(f)) {
        bench_rss();
    }
    if filter.as_deref().is_none_or(|f| "on_demand".contains(f)) {
        bench_on_demand();
    }
}
