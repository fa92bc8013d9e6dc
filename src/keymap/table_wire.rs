//! The keys of the Wire view (F7): moving through the captured messages, the filter,
//! a message in full, export and "copy as command". The filter line itself is typed in
//! the Filter layer (Enter keeps it, Esc clears it).

use super::action::{Action as A, Layer, Layer::Wire as L};
use super::key::{Key, KeyCode as C};
use super::table::{Row, k};

pub(super) fn rows() -> Vec<Row> {
    vec![
        (Layer::Global, k(C::F(7)), A::ShowWire, "wire view", None),
        (
            L,
            k(C::Up),
            A::Up,
            "previous message (details: scroll)",
            None,
        ),
        (L, Key::char('k'), A::Up, "previous message", None),
        (
            L,
            k(C::Down),
            A::Down,
            "next message (details: scroll)",
            None,
        ),
        (L, Key::char('j'), A::Down, "next message", None),
        (L, k(C::PageUp), A::PageUp, "page up", None),
        (L, k(C::PageDown), A::PageDown, "page down", None),
        (L, k(C::Home), A::Top, "oldest", None),
        (L, Key::char('g'), A::Top, "oldest", None),
        (
            L,
            k(C::End),
            A::Bottom,
            "newest (follow new messages)",
            None,
        ),
        (
            L,
            Key::char('G'),
            A::Bottom,
            "newest (follow new messages)",
            None,
        ),
        (
            L,
            k(C::Enter),
            A::Activate,
            "the message in full (pretty JSON)",
            Some("open"),
        ),
        (
            L,
            Key::char('/'),
            A::Filter,
            "filter: server:NAME method:PREFIX error, words",
            Some("filter"),
        ),
        (
            L,
            Key::char('x'),
            A::ExportWire,
            "export the shown messages (JSONL)",
            Some("export"),
        ),
        (
            L,
            Key::char('c'),
            A::CopyCommand,
            "copy the command that repeats the request (OSC 52)",
            Some("copy cmd"),
        ),
        (L, k(C::Esc), A::Close, "back / close", Some("close")),
    ]
}
