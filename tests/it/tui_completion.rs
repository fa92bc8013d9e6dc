#![allow(clippy::unwrap_used)]
//! The composer's completion popup driven through `update` with real keys, and drawn
//! on a TestBackend: slash commands, tools, then a tool's argument names.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::config::Config;
use switchboard::keymap::{Key, KeyCode, Keymap};
use switchboard::theme::ThemeSet;
use switchboard::tui::boot::initial_state;
use switchboard::tui::msg::Msg;
use switchboard::tui::state::{CatalogEntry, Pane, State};
use switchboard::tui::ui::render;
use switchboard::tui::update::update;

fn tool(name: &str, title: &str, schema: serde_json::Value) -> CatalogEntry {
    CatalogEntry {
        server: name.split("__").next().unwrap().into(),
        name: name.into(),
        title: Some(title.into()),
        // A server's text never reaches the terminal raw.
        description: format!("{title}.\x1b]52;c;ZXZpbA==\x07"),
        schema: Some(schema),
        ..CatalogEntry::default()
    }
}

fn state() -> State {
    let themes = ThemeSet::new(None);
    let mut s = initial_state(
        &Config::default(),
        Keymap::default(),
        "default".into(),
        themes.names(),
    );
    s.catalog.items.tools = vec![
        tool(
            "weather__forecast",
            "Forecast\x1b[31m",
            serde_json::json!({"type": "object", "properties": {
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "city": {"type": "string"},
                "days": {"type": "integer"}
            }, "required": ["city"]}),
        ),
        tool("fs__read_file", "Read a file", serde_json::json!({})),
        tool("fs__write_file", "Write a file", serde_json::json!({})),
    ];
    s.focus = Pane::Composer;
    s
}

fn keys(state: &mut State, keys: &[Key]) {
    for &k in keys {
        update(state, Msg::Key(k));
    }
}

fn typed(state: &mut State, text: &str) {
    for c in text.chars() {
        update(state, Msg::Key(Key::char(c)));
    }
}

fn screen(state: &State) -> String {
    let theme = ThemeSet::new(None).load("default").unwrap();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    terminal.draw(|f| render(state, &theme, f)).unwrap();
    format!("{}", terminal.backend())
}

#[test]
fn slash_shows_the_commands_and_tab_takes_the_highlighted_one() {
    let mut s = state();
    typed(&mut s, "/");
    insta::assert_snapshot!("completion_slash_commands", screen(&s));
    typed(&mut s, "ca");
    keys(&mut s, &[Key::plain(KeyCode::Tab)]);
    assert_eq!(s.composer.text(), "/call ");
    // Tab was the popup's: the focus stays in the composer.
    assert_eq!(s.focus, Pane::Composer);
}

#[test]
fn call_lists_tools_fuzzily_then_the_tools_arguments() {
    let mut s = state();
    typed(&mut s, "/call fore");
    let drawn = screen(&s);
    assert!(!drawn.contains("ZXZpbA"), "{drawn}");
    insta::assert_snapshot!("completion_tools", drawn);
    keys(&mut s, &[Key::plain(KeyCode::Enter)]);
    assert_eq!(s.composer.text(), "/call weather__forecast ");
    insta::assert_snapshot!("completion_arguments", screen(&s));
    keys(
        &mut s,
        &[Key::plain(KeyCode::Down), Key::plain(KeyCode::Tab)],
    );
    assert_eq!(s.composer.text(), "/call weather__forecast units=");
    // Esc closes the popup only; the composer keeps its text and the focus.
    typed(&mut s, "metric ");
    keys(&mut s, &[Key::plain(KeyCode::Esc)]);
    assert_eq!(s.focus, Pane::Composer);
    assert!(!screen(&s).contains("Tab complete"));
    assert_eq!(s.composer.text(), "/call weather__forecast units=metric ");
}
