#![allow(clippy::unwrap_used)]
//! Overlays as a stack: the top one takes the keys, closing it shows the one it was
//! opened over, and the approval card and a server's question sit below and above
//! them.

use crate::support::tui::state;

use switchboard::keymap::{Key, KeyCode, Layer};
use switchboard::tools::ToolEffect;
use switchboard::tui::palette::PaletteState;
use switchboard::tui::state::{CatalogEntry, Overlay, Pane, State};
use switchboard::tui::{Cmd, Msg, update};

fn run(state: &mut State, keys: impl IntoIterator<Item = Key>) -> Vec<Cmd> {
    keys.into_iter()
        .flat_map(|k| update(state, Msg::Key(k)))
        .collect()
}

fn esc() -> Key {
    Key::plain(KeyCode::Esc)
}

/// The catalog focused on one tool.
fn catalog() -> State {
    let mut s = state();
    s.focus = Pane::Catalog;
    s.catalog.items.tools = vec![CatalogEntry {
        server: "builtin".into(),
        name: "fs".into(),
        effect: Some(ToolEffect::Write),
        schema: Some(serde_json::json!({"type": "object", "properties": {}})),
        ..CatalogEntry::default()
    }];
    s
}

#[test]
fn the_palette_opened_over_a_detail_closes_back_to_it() {
    let mut s = catalog();
    run(&mut s, [Key::plain(KeyCode::Enter), Key::char('j')]);
    run(&mut s, [Key::ctrl('p')]);
    assert_eq!(s.overlays.len(), 2);
    assert_eq!(s.layer(), Layer::Palette, "the top takes the keys");
    run(&mut s, [esc()]);
    assert_eq!(
        s.overlays.top(),
        Some(&Overlay::Detail {
            scroll: 1,
            raw: false
        }),
        "the detail below, as it was left"
    );
    run(&mut s, [esc()]);
    assert!(s.overlays.is_empty());
    assert_eq!(s.layer(), Layer::Normal);
}

#[test]
fn help_over_the_palette_returns_to_the_palette() {
    let mut s = state();
    run(
        &mut s,
        [Key::ctrl('p'), Key::char('x'), Key::plain(KeyCode::F(1))],
    );
    assert_eq!(s.layer(), Layer::Help);
    run(&mut s, [esc()]);
    assert_eq!(
        s.overlays.top(),
        Some(&Overlay::Palette(PaletteState {
            query: "x".into(),
            selected: 0
        }))
    );
}

#[test]
fn the_form_closes_back_to_the_detail_it_was_opened_from() {
    let mut s = catalog();
    run(&mut s, [Key::plain(KeyCode::Enter), Key::char('r')]);
    run(&mut s, [Key::char('c')]);
    assert!(matches!(s.overlays.top(), Some(Overlay::Form(_))));
    run(&mut s, [esc()]);
    assert_eq!(
        s.overlays.top(),
        Some(&Overlay::Detail {
            scroll: 0,
            raw: true
        }),
        "the detail keeps its raw view"
    );
}

#[test]
fn sending_a_form_closes_the_stack_it_was_opened_from() {
    let mut s = catalog();
    run(&mut s, [Key::plain(KeyCode::Enter), Key::char('c')]);
    let cmds = run(&mut s, [Key::plain(KeyCode::Enter)]);
    assert!(!cmds.is_empty(), "the call is sent");
    assert!(s.overlays.is_empty(), "the result shows in the transcript");
}

#[test]
fn tab_closes_every_overlay() {
    let mut s = catalog();
    run(&mut s, [Key::plain(KeyCode::Enter), Key::ctrl('p')]);
    assert_eq!(s.overlays.len(), 2);
    run(&mut s, [Key::plain(KeyCode::Tab)]);
    assert!(s.overlays.is_empty());
}

#[test]
fn the_layers_stack_from_the_pane_up() {
    let mut s = state();
    assert_eq!(s.layers(), vec![Layer::Composer]);
    s.focus = Pane::Chat;
    s.overlays.push(Overlay::Help { scroll: 0 });
    s.overlays.push(Overlay::Wire);
    assert_eq!(s.layers(), vec![Layer::Normal, Layer::Help, Layer::Wire]);
    s.wire.editing = true;
    assert_eq!(s.layer(), Layer::Filter, "the Wire view's filter");
    s.overlays.pop();
    assert_eq!(s.layer(), Layer::Help);
}
