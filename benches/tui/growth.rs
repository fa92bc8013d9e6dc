//! How costs grow with the work: the catalog filter per keystroke at 1,000 / 10,000 /
//! 100,000 tools, and a frame at 500 / 5,000 / 50,000 transcript entries. Each size is
//! measured against the size ten times smaller, interleaved in the same run, so each
//! `RATIO growth …` line reads as the curve: ≈ 10× is linear, ≈ 1× is flat.
//!
//! `cargo bench --bench tui -- growth` skips criterion's own measurements (no bench
//! is named so); every group's RATIO lines print, these last.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::theme::Theme;
use switchboard::tui::frame_cache::TranscriptCache;
use switchboard::tui::state::{Filter, Pane, State, Unmade};
use switchboard::tui::ui::render;
use switchboard::tui::update;

use super::{Draw, catalog_state_of, changed_catalog, delta, long_transcript_of, state, support};

const TOOLS: [usize; 3] = [1_000, 10_000, 100_000];
const ENTRIES: [usize; 3] = [500, 5_000, 50_000];
const ROUNDS: usize = 11;
const TYPED: &str = "weather";

pub fn growth(_c: &mut Criterion) {
    filter_growth();
    frame_growth();
}

/// Times `run` on each size, sizes interleaved in each of `ROUNDS` rounds, each run on
/// a value `prepare` made (and dropped) outside the timing; the median per size.
fn per_size<T>(
    sizes: usize,
    mut prepare: impl FnMut(usize) -> T,
    mut run: impl FnMut(usize, &mut T),
) -> Vec<Duration> {
    let mut times = vec![Vec::with_capacity(ROUNDS); sizes];
    for _ in 0..ROUNDS {
        for (size, times) in times.iter_mut().enumerate() {
            let mut value = prepare(size);
            let start = Instant::now();
            run(size, &mut value);
            times.push(start.elapsed());
            drop(value);
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_unstable();
            t[t.len() / 2]
        })
        .collect()
}

/// One RATIO line per size against the size before it.
fn report(what: &str, unit: &str, sizes: &[usize], times: &[Duration]) {
    for i in 1..sizes.len() {
        support::report(
            &format!("growth: {what}, {} {unit}", sizes[i]),
            &format!("{} {unit}", sizes[i - 1]),
            times[i],
            times[i - 1],
        );
    }
}

fn filter_growth() {
    let states: Vec<State> = TOOLS.iter().map(|&n| catalog_state_of(n)).collect();
    let with_query = |s: &State, query: &str| {
        let mut s = s.clone();
        s.catalog.filter = Filter {
            query: query.into(),
            ..Filter::default()
        };
        s
    };
    // A first keystroke: nothing remembered, every entry checked.
    let times = per_size(
        TOOLS.len(),
        |i| with_query(&states[i], "w"),
        |_, s| {
            black_box(s.catalog.visible().len());
        },
    );
    report(
        "catalog filter, first keystroke \"w\"",
        "tools",
        &TOOLS,
        &times,
    );
    // Typing a word, per keystroke: each narrows what the previous one matched.
    let times = per_size(
        TOOLS.len(),
        |i| with_query(&states[i], ""),
        |_, s| {
            for n in 1..=TYPED.len() {
                s.catalog.filter.query = TYPED[..n].into();
                black_box(s.catalog.visible().len());
            }
        },
    );
    let keystrokes = u32::try_from(TYPED.len()).unwrap_or(1);
    let per_key: Vec<Duration> = times.iter().map(|t| *t / keystrokes).collect();
    report(
        "catalog filter, per keystroke typing \"weather\"",
        "tools",
        &TOOLS,
        &per_key,
    );
    // The first keystroke after one server (a fiftieth of the tools) was listed
    // again: its entries are new values whose haystacks are made on this keystroke.
    let changed: Vec<_> = states.iter().map(changed_catalog).collect();
    let times = per_size(
        TOOLS.len(),
        |i| {
            let mut s = with_query(&states[i], "w");
            s.catalog.items.refresh(changed[i].clone());
            s
        },
        |_, s| {
            black_box(s.catalog.visible().len());
        },
    );
    report(
        "catalog filter, first keystroke \"w\" right after one server's relist",
        "tools",
        &TOOLS,
        &times,
    );
    // As the TUI goes: the catalog arrives with no query, the worker makes the new
    // entries' haystacks (`UiCmd::MakeHaystacks`), a frame is drawn, and then the
    // person types `w`. The frame pays what dropping the old catalog left to the
    // allocator (glibc consolidates its freed small chunks on the next large
    // allocation), so the keystroke does not.
    let theme = Theme::fallback_default();
    let mut term = Terminal::new(TestBackend::new(160, 50)).unwrap_or_else(|e| panic!("{e}"));
    let times = per_size(
        TOOLS.len(),
        |i| {
            let mut s = with_query(&states[i], "");
            let unmade = s.catalog.items.refresh(changed[i].clone());
            s.catalog
                .items
                .fill(unmade.into_iter().map(Unmade::make).collect());
            term.draw(|f| render(&s, &theme, f))
                .unwrap_or_else(|e| panic!("{e}"));
            s.catalog.filter.query = "w".into();
            s
        },
        |_, s| {
            black_box(s.catalog.visible().len());
        },
    );
    report(
        "catalog filter, first keystroke \"w\" after one server's relist, its haystacks made by the worker and a frame drawn",
        "tools",
        &TOOLS,
        &times,
    );
}

type Term = Terminal<TestBackend>;

/// Each session's frame per size, `before` (timed too) run on its state first.
fn frames(
    sessions: &mut [(State, Term)],
    draw: Draw,
    mut before: impl FnMut(&mut State),
) -> Vec<Duration> {
    per_size(
        sessions.len(),
        |_| (),
        |i, ()| {
            let (s, term) = &mut sessions[i];
            before(s);
            draw(term, s);
        },
    )
}

fn frame_growth() {
    let theme = Theme::fallback_default();
    let draw = |term: &mut Term, s: &State| {
        term.draw(|f| render(s, &theme, f))
            .unwrap_or_else(|e| panic!("{e}"));
    };
    let terminal = || Terminal::new(TestBackend::new(160, 50)).unwrap_or_else(|e| panic!("{e}"));
    let mut sessions: Vec<(State, Term)> = ENTRIES
        .iter()
        .map(|&n| {
            let mut s = state();
            s.focus = Pane::Chat;
            long_transcript_of(&mut s, n);
            let mut term = terminal();
            draw(&mut term, &s);
            (s, term)
        })
        .collect();
    // A frame in which nothing changed (a key that moves nothing, a tick).
    let times = frames(&mut sessions, &draw, |_| {});
    report(
        "frame (160x50), nothing changed",
        "entries",
        &ENTRIES,
        &times,
    );
    // A frame while an answer streams in: a delta through `update` before each.
    let mut n = 0;
    let times = frames(&mut sessions, &draw, |s| {
        update(s, delta(n, true));
        n += 1;
    });
    report("frame (160x50), a delta each", "entries", &ENTRIES, &times);
    // The first frame of a session: every entry laid out (no cache to reuse).
    let mut cold: Vec<(State, Term)> = sessions
        .into_iter()
        .map(|(mut s, term)| {
            s.chat.layout = TranscriptCache::uncached();
            (s, term)
        })
        .collect();
    let times = frames(&mut cold, &draw, |_| {});
    report(
        "first frame (160x50), every entry laid out",
        "entries",
        &ENTRIES,
        &times,
    );
}
