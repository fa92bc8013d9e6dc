//! The ratio each bench prints: its subject against a reference measured in the same
//! run, interleaved (reference, subject, reference, ...) so that a busy machine slows
//! both alike, and reported as the ratio of the medians (or of the sums, for rounds too
//! short to stand alone).

use std::time::{Duration, Instant};

/// Times `subject` and `reference` `rounds` times each, alternating, and prints
/// `label: subject … vs reference … → ratio`. Returns subject / reference.
#[allow(dead_code)] // not every bench uses every helper
pub fn print_ratio(
    label: &str,
    reference_name: &str,
    rounds: usize,
    subject: impl FnMut(),
    reference: impl FnMut(),
) -> f64 {
    let (mut s, mut r) = interleave(rounds, subject, reference);
    let (s, r) = (median(&mut s), median(&mut r));
    report(label, reference_name, s, r)
}

/// Times `rounds` rounds of `subject` and of `reference`, alternating (reference,
/// subject, reference, ...), and prints `label: subject … vs reference … → ratio` with
/// each side's rounds summed: for loops of many short calls, where one round is too
/// short to stand alone. Returns subject / reference.
#[allow(dead_code)] // not every bench uses every helper
pub fn print_summed_ratio(
    label: &str,
    reference_name: &str,
    rounds: usize,
    subject: impl FnMut(),
    reference: impl FnMut(),
) -> f64 {
    let (s, r) = interleave(rounds, subject, reference);
    let (s, r) = (s.iter().sum(), r.iter().sum());
    report(label, reference_name, s, r)
}

/// Prints the `RATIO` line of `subject` against `reference`; returns the ratio.
#[allow(dead_code)] // not every bench uses every helper
pub fn report(label: &str, reference_name: &str, subject: Duration, reference: Duration) -> f64 {
    let ratio = subject.as_secs_f64() / reference.as_secs_f64();
    println!(
        "RATIO {label}: {} vs {reference_name} {} → {ratio:.3}× the reference's time",
        show(subject),
        show(reference)
    );
    ratio
}

/// Each run once untimed, then `rounds` timings of each, taken in turn.
fn interleave(
    rounds: usize,
    mut subject: impl FnMut(),
    mut reference: impl FnMut(),
) -> (Vec<Duration>, Vec<Duration>) {
    let (mut s, mut r) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    subject();
    reference();
    for _ in 0..rounds {
        r.push(time(&mut reference));
        s.push(time(&mut subject));
    }
    (s, r)
}

fn time(f: &mut impl FnMut()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn show(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.2} µs")
    }
}

/// A Read tool that does nothing: the gate's cost with no tool behind it.
#[allow(dead_code)] // not every bench uses every helper
pub struct Noop(pub switchboard::tools::ToolSpec);

#[async_trait::async_trait]
impl switchboard::tools::Tool for Noop {
    fn spec(&self) -> &switchboard::tools::ToolSpec {
        &self.0
    }

    async fn invoke(
        &self,
        _args: serde_json::Map<String, serde_json::Value>,
        _ctx: &switchboard::tools::ToolContext,
    ) -> switchboard::tools::ToolResult {
        switchboard::tools::ToolResult::text("ok")
    }
}
