//! The TUI state machine under load: the catalog filter over 10,000 tools (per
//! keystroke), and a streamed answer of 20,000 small deltas (per event, and a frame
//! drawn for it).

mod support;

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::agent::AgentEvent;
use switchboard::config::Config;
use switchboard::keymap::Keymap;
use switchboard::theme::Theme;
use switchboard::tui::boot::initial_state;
use switchboard::tui::state::{CatalogEntry, Pane, State};
use switchboard::tui::ui::render;
use switchboard::tui::{Msg, update};

fn state() -> State {
    initial_state(
        &Config::default(),
        Keymap::default(),
        "default".into(),
        vec![],
    )
}

fn catalog_state() -> State {
    let mut s = state();
    s.focus = Pane::Catalog;
    s.catalog.tools = (0..10_000)
        .map(|i| CatalogEntry {
            server: format!("server{}", i % 50),
            name: format!("server{}__tool_{i}", i % 50),
            title: Some(format!("Tool number {i}")),
            description: format!("Does thing {i} with the weather, files and the network."),
            ..CatalogEntry::default()
        })
        .collect();
    // The lower-cased haystacks are made once per catalog, on first use.
    s.filter.query = "x".into();
    black_box(s.visible_catalog().len());
    s
}

/// A state whose filter remembers nothing (its entries keep their haystacks).
fn fresh_filter(s: &State, query: &str) -> State {
    let mut s = s.clone();
    s.filter.query = query.into();
    s
}

/// The previous filter: a hand-written subsequence matcher over text lower-cased on
/// every call, no memory between keystrokes. The reference for the ratios.
fn reference_filter(s: &State, query: &str) -> usize {
    let query = query.to_lowercase();
    let sub = |n: &str, h: &str| {
        let mut h = h.chars();
        n.chars().all(|c| h.any(|x| x == c))
    };
    let mut ranked: Vec<(u8, &CatalogEntry)> = s
        .catalog
        .tools
        .iter()
        .filter_map(|e| {
            let name = e.name.to_lowercase();
            let title = e.title.as_deref().unwrap_or_default().to_lowercase();
            let rank = if name.starts_with(&query)
                || name
                    .split("__")
                    .nth(1)
                    .is_some_and(|t| t.starts_with(&query))
            {
                0
            } else if name.contains(&query) || title.contains(&query) {
                1
            } else if sub(&query, &name) || sub(&query, &title) {
                2
            } else if e.server.to_lowercase().contains(&query)
                || e.description.to_lowercase().contains(&query)
            {
                3
            } else {
                return None;
            };
            Some((rank, e))
        })
        .collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    ranked.len()
}

const TYPED: &str = "weather";

fn filter(c: &mut Criterion) {
    let s = catalog_state();
    // A first keystroke: nothing remembered, every entry checked.
    for query in ["w", "wea", "tool_99"] {
        c.bench_function(&format!("catalog filter 10k tools, query {query:?}"), |b| {
            b.iter_batched_ref(
                || fresh_filter(&s, query),
                |s| black_box(s.visible_catalog().len()),
                BatchSize::LargeInput,
            );
        });
    }
    // Typing a word: each keystroke narrows what the previous one matched.
    c.bench_function(
        "catalog filter 10k tools, typing \"weather\" (7 keystrokes)",
        |b| {
            b.iter_batched_ref(
                || fresh_filter(&s, ""),
                |s| {
                    for n in 1..=TYPED.len() {
                        s.filter.query = TYPED[..n].into();
                        black_box(s.visible_catalog().len());
                    }
                },
                BatchSize::LargeInput,
            );
        },
    );
    // The ratios: a forgotten memo is set aside, to be dropped outside the timing.
    let mut st = fresh_filter(&s, "");
    let mut set_aside = Vec::new();
    for query in ["w", "wea", "tool_99"] {
        st.filter.query = query.into();
        support::print_ratio(
            &format!("catalog filter 10k tools, first keystroke {query:?}"),
            "the previous matcher",
            15,
            || {
                set_aside.push(std::mem::take(&mut st.filter.memo));
                black_box(st.visible_catalog().len());
            },
            || {
                black_box(reference_filter(&s, query));
            },
        );
    }
    let ratio = support::print_ratio(
        "catalog filter 10k tools, typing \"weather\" (7 keystrokes)",
        "the previous matcher",
        15,
        || {
            set_aside.push(std::mem::take(&mut st.filter.memo));
            for n in 1..=TYPED.len() {
                st.filter.query = TYPED[..n].into();
                black_box(st.visible_catalog().len());
            }
        },
        || {
            for n in 1..=TYPED.len() {
                black_box(reference_filter(&s, &TYPED[..n]));
            }
        },
    );
    drop(set_aside);
    black_box(ratio);
}

/// 20,000 small deltas into one answer (a paragraph break every 40).
fn stream_into(s: &mut State) {
    for i in 0..20_000 {
        update(
            s,
            Msg::Agent(Box::new(AgentEvent::TextDelta {
                run_id: "r".into(),
                text: if i % 40 == 0 {
                    "\n\n".into()
                } else {
                    format!("word{i} ")
                },
            })),
        );
    }
}

fn streaming(c: &mut Criterion) {
    let theme = Theme::fallback_default();
    c.bench_function("20k text deltas through update", |b| {
        b.iter(|| {
            let mut s = state();
            stream_into(&mut s);
            black_box(s.chat.len())
        });
    });
    // The frame cost at the end of such a stream (the largest transcript).
    let mut s = state();
    stream_into(&mut s);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap_or_else(|e| panic!("{e}"));
    c.bench_function("frame after 20k deltas (100x30)", |b| {
        b.iter(|| {
            terminal
                .draw(|f| render(&s, &theme, f))
                .unwrap_or_else(|e| panic!("{e}"));
        });
    });
}

criterion_group!(benches, filter, streaming);
criterion_main!(benches);
