//! The TUI state machine under load: the catalog filter over 10,000 tools (per
//! keystroke), and a streamed answer of 20,000 small deltas (per event, and a frame
//! drawn for it).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
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

fn filter(c: &mut Criterion) {
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
    for query in ["w", "wea", "tool_99"] {
        s.filter.query = query.into();
        c.bench_function(&format!("catalog filter 10k tools, query {query:?}"), |b| {
            b.iter(|| black_box(s.visible_catalog().len()));
        });
    }
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
