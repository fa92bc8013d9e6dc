//! `switchboard call t echo` as a whole process, with five servers configured versus
//! one: a command that names a server starts only that one, so the other four (here
//! well-behaved test servers that would each take a spawn and a handshake) cost
//! nothing. The ratio printed is five-server time over one-server time, measured in
//! the same run (1.0 means the other servers are not waited for).
//!
//! `cargo bench --bench call_servers` (Cargo builds both binaries for benches).
#![allow(clippy::expect_used)] // set-up failures should abort the benchmark

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

const SWITCHBOARD: &str = env!("CARGO_BIN_EXE_switchboard");
const SERVER_BIN: &str = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");

fn project(servers: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = format!("[servers.t]\ncommand = {SERVER_BIN:?}\n");
    for i in 1..servers {
        let _ = write!(config, "\n[servers.other{i}]\ncommand = {SERVER_BIN:?}\n");
    }
    // The person's own config: a folder's would first have to be trusted.
    let user = dir.path().join("config/switchboard");
    std::fs::create_dir_all(&user).expect("config dir");
    std::fs::write(user.join("config.toml"), config).expect("config");
    dir
}

fn call(dir: &Path) {
    let out = Command::new(SWITCHBOARD)
        .args(["call", "t", "echo", "-a", "text=hi"])
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .output()
        .expect("run switchboard");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn bench_call(c: &mut Criterion) {
    let one = project(1);
    let five = project(5);
    let mut group = c.benchmark_group("call_t_echo");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("one server configured", |b| b.iter(|| call(one.path())));
    group.bench_function("five servers configured", |b| b.iter(|| call(five.path())));
    group.finish();

    // The ratio, from the same run: 20 calls each, interleaved.
    let (mut t1, mut t5) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..20 {
        let start = Instant::now();
        call(one.path());
        t1 += start.elapsed();
        let start = Instant::now();
        call(five.path());
        t5 += start.elapsed();
    }
    println!(
        "call t echo: one server {:.1} ms, five servers {:.1} ms, ratio five/one {:.2}",
        t1.as_secs_f64() * 1000.0 / 20.0,
        t5.as_secs_f64() * 1000.0 / 20.0,
        t5.as_secs_f64() / t1.as_secs_f64()
    );
}

criterion_group!(benches, bench_call);
criterion_main!(benches);
