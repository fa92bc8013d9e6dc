//! The TUI state machine under load: the catalog filter over 10,000 tools (per
//! keystroke), a streamed answer of 20,000 small deltas (per event, and a frame
//! drawn for it), and a frame with 10,000 catalog rows and a 5,000-entry transcript
//! (against the same frame laid out without the transcript cache), also while an
//! answer streams in, a delta before each frame (against the frame with nothing
//! streaming).

#[path = "tui/growth.rs"]
mod growth;
mod support;

use std::cell::{Cell, RefCell};
use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::agent::AgentEvent;
use switchboard::catalog_filter::HaystackCell;
use switchboard::config::Config;
use switchboard::gate::CallId;
use switchboard::keymap::Keymap;
use switchboard::policy::Origin;
use switchboard::theme::Theme;
use switchboard::tui::boot::initial_state;
use switchboard::tui::cards::{CardKind, CardStatus, ToolCard};
use switchboard::tui::frame_cache::TranscriptCache;
use switchboard::tui::state::{Catalog, CatalogEntry, ChatEntry, ChatKind, Pane, State};
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
    catalog_state_of(10_000)
}

/// A Catalog-focused state with `tools` tools over 50 servers, haystacks made.
fn catalog_state_of(tools: usize) -> State {
    let mut s = state();
    s.focus = Pane::Catalog;
    s.catalog.items.tools = (0..tools)
        .map(|i| CatalogEntry {
            server: format!("server{}", i % 50),
            name: format!("server{}__tool_{i}", i % 50),
            title: Some(format!("Tool number {i}")),
            description: format!("Does thing {i} with the weather, files and the network."),
            ..CatalogEntry::default()
        })
        .collect();
    // The lower-cased haystacks are made once per catalog, on first use.
    s.catalog.filter.query = "x".into();
    black_box(s.catalog.visible().len());
    s
}

/// A state whose filter remembers nothing (its entries keep their haystacks).
fn fresh_filter(s: &State, query: &str) -> State {
    let mut s = s.clone();
    s.catalog.filter.query = query.into();
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
        .items
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
                |s| black_box(s.catalog.visible().len()),
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
                        s.catalog.filter.query = TYPED[..n].into();
                        black_box(s.catalog.visible().len());
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
        st.catalog.filter.query = query.into();
        support::print_ratio(
            &format!("catalog filter 10k tools, first keystroke {query:?}"),
            "the previous matcher",
            15,
            || {
                set_aside.push(std::mem::take(&mut st.catalog.filter.memo));
                black_box(st.catalog.visible().len());
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
            set_aside.push(std::mem::take(&mut st.catalog.filter.memo));
            for n in 1..=TYPED.len() {
                st.catalog.filter.query = TYPED[..n].into();
                black_box(st.catalog.visible().len());
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
/// The catalog as a relist of one server leaves it: every entry a new value (as
/// `hub_view::catalog` makes them, haystacks not made), `server7`'s 200 tools with a
/// new description.
fn changed_catalog(s: &State) -> Catalog {
    let mut changed = s.catalog.items.clone();
    for e in &mut changed.tools {
        *e = CatalogEntry {
            search: HaystackCell::default(),
            ..e.clone()
        };
        if e.server == "server7" {
            e.description.push_str(" Now with radar.");
        }
    }
    changed
}

/// The first keystroke after a catalog change: the unchanged entries keep their
/// haystacks (`Catalog::refresh`), against every haystack made again.
fn after_change(c: &mut Criterion) {
    let s = catalog_state();
    let changed = changed_catalog(&s);
    let after = |keep: bool| {
        let mut st = s.clone();
        if keep {
            st.catalog.items.refresh(changed.clone());
        } else {
            st.catalog.items = changed.clone();
        }
        st.catalog.filter = switchboard::tui::state::Filter {
            query: "w".into(),
            ..Default::default()
        };
        st
    };
    let label = "catalog filter 10k tools, first keystroke \"w\" after a change of 200";
    c.bench_function(label, |b| {
        b.iter_batched_ref(
            || after(true),
            |st| black_box(st.catalog.visible().len()),
            BatchSize::LargeInput,
        );
    });
    let rounds = 15;
    let mut kept: Vec<State> = (0..=rounds).map(|_| after(true)).collect();
    let mut remade: Vec<State> = (0..=rounds).map(|_| after(false)).collect();
    let (mut done_kept, mut done_remade) = (Vec::new(), Vec::new());
    let ratio = support::print_ratio(
        label,
        "every haystack made again",
        rounds,
        || {
            if let Some(st) = kept.pop() {
                black_box(st.catalog.visible().len());
                done_kept.push(st);
            }
        },
        || {
            if let Some(st) = remade.pop() {
                black_box(st.catalog.visible().len());
                done_remade.push(st);
            }
        },
    );
    black_box(ratio);
}

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
            black_box(s.chat.entries.len())
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

/// A long session: 5,000 entries of questions, Markdown answers and finished cards.
fn long_transcript(s: &mut State) {
    long_transcript_of(s, 5_000);
}

/// A session of `entries` entries, as [`long_transcript`].
fn long_transcript_of(s: &mut State, entries: usize) {
    s.chat.entries = (0..entries)
        .map(|i| match i % 4 {
            0 => ChatEntry::new(
                ChatKind::User,
                format!("Question {i}: what is in the files?"),
            ),
            1 => ChatEntry::new(
                ChatKind::Assistant,
                format!(
                    "## Answer {i}\n\nThe **weather** tool says it is *mild*; see `notes.md`.\n\n\
                     - first point, long enough to wrap at the pane's width once or twice\n\
                     - second point\n\n```rust\nfn main() {{ println!(\"{i}\"); }}\n```\n"
                ),
            ),
            2 => {
                let mut card = ToolCard::new(
                    CallId(format!("call_{i}")),
                    "r".into(),
                    CardKind::Tool,
                    Origin::Model,
                );
                card.tool = "fs".into();
                card.args = format!(r#"{{"operation":"read","path":"file{i}.txt"}}"#);
                card.status = CardStatus::Ok;
                card.duration_ms = Some(12);
                card.result = Some(format!("line one of {i}\nline two\nline three"));
                let mut entry = ChatEntry::new(ChatKind::Tool, "");
                entry.card = Some(card);
                entry
            }
            _ => ChatEntry::new(ChatKind::Note, format!("note {i}")),
        })
        .collect();
}

fn big_frame(c: &mut Criterion) {
    let theme = Theme::fallback_default();
    let mut s = catalog_state();
    s.catalog.filter.query.clear();
    s.focus = Pane::Chat;
    long_transcript(&mut s);
    let mut uncached = s.clone();
    uncached.chat.layout = TranscriptCache::uncached();
    let terminal = || Terminal::new(TestBackend::new(160, 50)).unwrap_or_else(|e| panic!("{e}"));
    let draw = |terminal: &mut Terminal<TestBackend>, s: &State| {
        terminal
            .draw(|f| render(s, &theme, f))
            .unwrap_or_else(|e| panic!("{e}"));
    };
    let (mut cached_term, mut uncached_term) = (terminal(), terminal());
    // The first frame lays out everything; the ones after reuse it.
    draw(&mut cached_term, &s);
    c.bench_function(
        "frame 10k catalog rows + 5k-entry transcript (160x50)",
        |b| {
            b.iter(|| draw(&mut cached_term, &s));
        },
    );
    let ratio = support::print_ratio(
        "frame 10k catalog rows + 5k-entry transcript (160x50)",
        "the frame without the transcript cache",
        15,
        || draw(&mut cached_term, &s),
        || draw(&mut uncached_term, &uncached),
    );
    black_box(ratio);
    streaming_frames(c, &s, &draw);
}

/// Delta `n` of a stream of answers: words, a paragraph break every 40 deltas when
/// `paragraphs`, and a new answer every 2,000 deltas (so the answer streaming in is
/// as long whatever number of frames criterion draws: at most ~16 KB).
fn delta(n: usize, paragraphs: bool) -> Msg {
    let text = if paragraphs && n.is_multiple_of(40) {
        "\n\n".to_string()
    } else {
        format!("word{n} ")
    };
    Msg::Agent(Box::new(AgentEvent::TextDelta {
        run_id: format!("r{}", n / 2_000),
        text,
    }))
}

/// A state in which an answer has streamed in for `deltas` deltas, drawn once.
fn streamed(
    s: &State,
    deltas: usize,
    paragraphs: bool,
    term: &mut Terminal<TestBackend>,
    draw: Draw,
) -> State {
    let mut streaming = s.clone();
    for n in 0..deltas {
        update(&mut streaming, delta(n, paragraphs));
    }
    draw(term, &streaming);
    streaming
}

type Draw<'a> = &'a dyn Fn(&mut Terminal<TestBackend>, &State);

/// The big frame while an answer streams in, a delta (through `update`) before each
/// frame. Two references in the same run, 1,000 deltas (~8 KB) into an answer: the
/// same frame drawn again without a delta (what the delta costs: `update` and the
/// layout), and the frame with nothing streaming (whose transcript shows sparser
/// lines, so it draws fewer cells).
fn streaming_frames(c: &mut Criterion, s: &State, draw: Draw) {
    let terminal = || Terminal::new(TestBackend::new(160, 50)).unwrap_or_else(|e| panic!("{e}"));
    for (label, paragraphs) in [
        ("a delta each", true),
        ("a delta each, one paragraph", false),
    ] {
        let name = format!("frame 10k catalog rows + 5k-entry transcript, {label}");
        let mut term = terminal();
        let mut streaming = streamed(s, 1, paragraphs, &mut term, draw);
        let mut n = 1;
        c.bench_function(&name, |b| {
            b.iter(|| {
                update(&mut streaming, delta(n, paragraphs));
                n += 1;
                draw(&mut term, &streaming);
            });
        });
        drop(streaming);
        let (mut again_term, mut still_term) = (terminal(), terminal());
        draw(&mut still_term, s);
        let streaming = RefCell::new(streamed(s, 1_000, paragraphs, &mut term, draw));
        draw(&mut again_term, &streaming.borrow());
        let n = Cell::new(1_000);
        let next = || {
            update(&mut streaming.borrow_mut(), delta(n.get(), paragraphs));
            n.set(n.get() + 1);
        };
        let ratio = support::print_ratio(
            &name,
            "the same frame drawn again without a delta",
            15,
            || {
                next();
                draw(&mut term, &streaming.borrow());
            },
            || draw(&mut again_term, &streaming.borrow()),
        );
        black_box(ratio);
        let ratio = support::print_ratio(
            &name,
            "the frame with nothing streaming",
            15,
            || {
                next();
                draw(&mut term, &streaming.borrow());
            },
            || draw(&mut still_term, s),
        );
        black_box(ratio);
    }
}

criterion_group!(
    benches,
    filter,
    after_change,
    streaming,
    big_frame,
    growth::growth
);
criterion_main!(benches);
