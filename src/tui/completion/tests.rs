use serde_json::json;

use super::*;
use crate::tui::state::Pane;

fn tool(name: &str, schema: serde_json::Value) -> CatalogEntry {
    CatalogEntry {
        server: name.split("__").next().unwrap_or_default().into(),
        name: name.into(),
        description: format!("the {name} tool"),
        schema: Some(schema),
        ..CatalogEntry::default()
    }
}

fn catalog() -> Catalog {
    let weather = json!({"type": "object", "properties": {
        "units": {"type": "string"}, "city": {"type": "string"}, "days": {"type": "integer"}
    }, "required": ["city"]});
    Catalog {
        tools: vec![
            tool("fs__read_file", json!({"type": "object"})),
            tool("weather__forecast", weather),
            tool("fs__write_file", json!({"type": "object"})),
        ],
        prompts: vec![CatalogEntry {
            server: "every".into(),
            name: "simple_prompt".into(),
            ..CatalogEntry::default()
        }],
        ..Catalog::default()
    }
}

fn texts(line: &str) -> Vec<String> {
    candidates(line, &catalog(), &Narrowing::default())
        .into_iter()
        .map(|c| c.text)
        .collect()
}

#[test]
fn a_slash_lists_the_commands_starting_so_with_their_usage() {
    let all = candidates("/", &catalog(), &Narrowing::default());
    assert_eq!(all.len(), COMMANDS.len());
    assert_eq!(all[0].detail, "/call TOOL k=v …");
    assert_eq!(texts("/sa"), ["/save", "/save!", "/save-case"]);
    assert!(texts("//x").is_empty());
    assert!(texts("hello").is_empty());
}

#[test]
fn call_lists_tools_fuzzily_then_arguments_required_first() {
    assert_eq!(texts("/call ").len(), 3);
    assert_eq!(texts("/call wrf")[0], "fs__write_file");
    assert!(!texts("/call wrf").contains(&"fs__read_file".to_string()));
    assert_eq!(texts("/call fore"), ["weather__forecast"]);
    let args = candidates(
        "/call weather__forecast ",
        &catalog(),
        &Narrowing::default(),
    );
    let shown: Vec<(&str, &str)> = args
        .iter()
        .map(|c| (c.text.as_str(), c.detail.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            ("city=", "string · required"),
            ("units=", "string"),
            ("days=", "integer")
        ]
    );
    assert_eq!(texts("/call weather__forecast city=Oslo d"), ["days="]);
    assert_eq!(
        texts("/call weather__forecast city=Oslo "),
        ["units=", "days="]
    );
    assert!(texts("/call weather__forecast city=Os").is_empty());
    assert!(texts("/call nope ").is_empty());
}

#[test]
fn prompt_lists_servers_then_that_servers_prompt_names() {
    assert_eq!(texts("/prompt "), ["every"]);
    assert_eq!(texts("/prompt every s"), ["simple_prompt"]);
    assert!(texts("/prompt other s").is_empty());
}

fn composing(text: &str) -> State {
    let mut state = State::new(crate::keymap::Keymap::default(), "default".into(), vec![]);
    state.catalog.items = catalog();
    state.focus = Pane::Composer;
    state.composer.set_text(text);
    state
}

#[test]
fn tab_accepts_down_moves_esc_closes_and_typing_reopens() {
    let mut state = composing("/ca");
    assert!(key(&mut state, Key::plain(KeyCode::Tab)));
    assert_eq!(state.composer.text(), "/call ");
    assert!(key(&mut state, Key::plain(KeyCode::Down)));
    assert_eq!(state.composer.popup.sel, 1);
    assert!(key(&mut state, Key::plain(KeyCode::Enter)));
    assert_eq!(state.composer.text(), "/call weather__forecast ");
    assert!(key(&mut state, Key::plain(KeyCode::Tab)));
    assert_eq!(state.composer.text(), "/call weather__forecast city=");
    // Esc closes the popup, not the composer; the text stays.
    let mut state = composing("/call ");
    assert!(key(&mut state, Key::plain(KeyCode::Esc)));
    assert!(shown(&state).is_empty());
    assert_eq!(state.composer.text(), "/call ");
    assert!(!key(&mut state, Key::plain(KeyCode::Up)));
    assert!(key(&mut state, Key::plain(KeyCode::Tab)));
    assert_eq!(shown(&state).len(), 3);
}

#[test]
fn enter_on_a_complete_command_is_left_to_send() {
    let mut state = composing("/help");
    assert!(!key(&mut state, Key::plain(KeyCode::Enter)));
    assert_eq!(state.composer.text(), "/help");
    // `/model` is highlighted, but `/mode` is a command as typed.
    let mut state = composing("/mode");
    assert!(!key(&mut state, Key::plain(KeyCode::Enter)));
    assert!(key(&mut state, Key::plain(KeyCode::Tab)));
    assert_eq!(state.composer.text(), "/model ");
}
