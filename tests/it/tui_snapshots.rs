#![allow(clippy::unwrap_used)]
//! Every visible TUI state drawn on a fixed-size TestBackend and snapshotted.
//! Snapshots keep only symbols, so a few cell styles are asserted directly.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier};
use switchboard::config::{Config, ServerConfig};
use switchboard::keymap::Keymap;
use switchboard::theme::{Theme, ThemeSet};
use switchboard::tui::boot::initial_state;
use switchboard::tui::palette::PaletteState;
use switchboard::tui::state::{CatalogTab, LogLevel, LogLine, Overlay, Pane, State};
use switchboard::tui::ui::render;

fn themes() -> ThemeSet {
    ThemeSet::new(None)
}

fn fresh(config: &Config) -> State {
    initial_state(
        config,
        Keymap::default(),
        "default".into(),
        themes().names(),
    )
}

fn draw(state: &State, theme: &Theme, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut state = state.clone();
    state.size = (w, h);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| render(&state, theme, f)).unwrap();
    terminal
}

fn default_theme() -> Theme {
    themes().load("default").unwrap()
}

#[test]
fn first_launch_without_config() {
    let state = fresh(&Config::default());
    insta::assert_snapshot!(
        "first_launch_100x30",
        draw(&state, &default_theme(), 100, 30).backend()
    );
    insta::assert_snapshot!(
        "first_launch_60x20",
        draw(&state, &default_theme(), 60, 20).backend()
    );
}

#[test]
fn configured_servers_are_listed_with_their_transport() {
    let mut config = Config::default();
    config.servers.insert(
        "weather".into(),
        ServerConfig {
            command: Some("weather-mcp".into()),
            ..ServerConfig::default()
        },
    );
    config.servers.insert(
        "files".into(),
        ServerConfig {
            command: Some("files-mcp".into()),
            sandbox: Some(switchboard::config::SandboxSetting::On(true)),
            ..ServerConfig::default()
        },
    );
    config.servers.insert(
        "search".into(),
        ServerConfig {
            url: Some("https://example.com/mcp".into()),
            enabled: Some(false),
            ..ServerConfig::default()
        },
    );
    let mut state = fresh(&config);
    state.focus = Pane::Servers;
    insta::assert_snapshot!(draw(&state, &default_theme(), 100, 30).backend());
}

#[test]
fn help_overlay() {
    let mut state = fresh(&Config::default());
    state.overlays.replace_top(Overlay::Help { scroll: 0 });
    insta::assert_snapshot!(
        "help_100x30",
        draw(&state, &default_theme(), 100, 30).backend()
    );
    insta::assert_snapshot!(
        "help_60x20",
        draw(&state, &default_theme(), 60, 20).backend()
    );
    // At its end: the composer's slash commands.
    state
        .overlays
        .replace_top(Overlay::Help { scroll: u16::MAX });
    let end = draw(&state, &default_theme(), 100, 30)
        .backend()
        .to_string();
    assert!(end.contains("/read SERVER URI"), "{end}");
    insta::assert_snapshot!("help_commands_100x30", end);
}

#[test]
fn command_palette() {
    let mut state = fresh(&Config::default());
    state
        .overlays
        .replace_top(Overlay::Palette(PaletteState::default()));
    insta::assert_snapshot!(
        "palette_100x30",
        draw(&state, &default_theme(), 100, 30).backend()
    );
    state.overlays.replace_top(Overlay::Palette(PaletteState {
        query: "th".into(),
        selected: 1,
    }));
    insta::assert_snapshot!(
        "palette_filtered_60x20",
        draw(&state, &default_theme(), 60, 20).backend()
    );
}

#[test]
fn each_catalog_tab_empty() {
    for tab in CatalogTab::ALL {
        let mut state = fresh(&Config::default());
        state.focus = Pane::Catalog;
        state.catalog.tab = tab;
        insta::assert_snapshot!(
            format!("catalog_{}_empty", tab.title().to_lowercase()),
            draw(&state, &default_theme(), 100, 30).backend()
        );
    }
}

#[test]
fn long_log_is_sanitised() {
    let mut state = fresh(&Config::default());
    state.show_logs = true;
    state.focus = Pane::Logs;
    let hostile = [
        "\x1b[31mred\x1b[0m text",
        "clipboard \x1b]52;c;aGVsbG8=\x07grab",
        "link \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ here",
        "cursor \x1b[2J\x1b[Hhome",
        "bell\x07 and \u{9b}31m c1",
        "bidi \u{202e}txet desrever",
    ];
    for i in 0..40 {
        state.logs.lines.push_back(LogLine {
            level: [
                LogLevel::Info,
                LogLevel::Warn,
                LogLevel::Error,
                LogLevel::Debug,
            ][i % 4],
            target: "switchboard::mcp".into(),
            message: format!("{i:02} {}", hostile[i % hostile.len()]),
        });
    }
    let terminal = draw(&state, &default_theme(), 100, 30);
    let text = format!("{}", terminal.backend());
    assert!(!text.contains('\x1b'), "no escape reaches the screen");
    assert!(text.contains("link click here"));
    insta::assert_snapshot!("long_log_100x30", terminal.backend());
    insta::assert_snapshot!(
        "long_log_60x20",
        draw(&state, &default_theme(), 60, 20).backend()
    );
}

/// The style of the cell at (x, y).
fn cell(terminal: &Terminal<TestBackend>, x: u16, y: u16) -> ratatui::buffer::Cell {
    terminal.backend().buffer()[(x, y)].clone()
}

#[test]
fn each_theme_styles_focus_and_status() {
    let state = fresh(&Config::default());
    for name in ["default", "light", "high-contrast"] {
        let theme = themes().load(name).unwrap();
        let terminal = draw(&state, &theme, 100, 30);
        insta::assert_snapshot!(format!("theme_{name}"), terminal.backend());
        // The composer (focused) border uses border_focus; Servers uses border.
        let focused = cell(&terminal, 30, 28);
        let unfocused = cell(&terminal, 0, 0);
        assert_eq!(focused.symbol(), "┗", "{name}: composer is focused");
        assert_ne!(
            focused.style(),
            unfocused.style(),
            "{name}: focus is visible"
        );
    }
    let default = draw(&state, &default_theme(), 100, 30);
    let focus = cell(&default, 30, 28);
    assert!(
        matches!(
            focus.fg,
            Color::Cyan
                | Color::LightCyan
                | Color::Yellow
                | Color::Blue
                | Color::Magenta
                | Color::Green
        ),
        "default theme uses an ANSI colour for focus, got {:?}",
        focus.fg
    );
    let hc = draw(&state, &themes().load("high-contrast").unwrap(), 100, 30);
    assert_eq!(
        cell(&hc, 50, 10).bg,
        Color::Black,
        "high-contrast fills the frame"
    );
}

#[test]
fn no_color_keeps_focus_visible_without_colours() {
    let state = fresh(&Config::default());
    let theme = default_theme().without_colors();
    let terminal = draw(&state, &theme, 100, 30);
    for y in 0..30 {
        for x in 0..100 {
            let c = cell(&terminal, x, y);
            assert_eq!(
                (c.fg, c.bg),
                (Color::Reset, Color::Reset),
                "colour at {x},{y}"
            );
        }
    }
    // The focused pane still stands out: thick border and a marker in the title.
    assert_eq!(cell(&terminal, 30, 28).symbol(), "┗");
    let _ = Modifier::BOLD;
}

fn weather_tool() -> switchboard::tui::state::CatalogEntry {
    switchboard::tui::state::CatalogEntry {
        server: "weather".into(),
        name: "weather__forecast".into(),
        title: Some("Forecast".into()),
        description: "Forecast for a city.\x1b]52;c;ZXZpbA==\x07 Days are counted from today."
            .into(),
        effect: Some(switchboard::tools::ToolEffect::Read),
        schema: Some(serde_json::json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Oslo"},
                "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
                "options": {"type": "object", "properties": {
                    "days": {"type": "integer", "description": "1 to 14"},
                    "hourly": {"type": "boolean"}
                }, "required": ["days"]}
            },
            "required": ["city"]
        })),
        facts: vec![("annotations".into(), "readOnlyHint".into())],
        ..Default::default()
    }
}

#[test]
fn catalog_with_tools_filter_and_detail() {
    let mut state = fresh(&Config::default());
    state.focus = Pane::Catalog;
    state.catalog.items.tools = switchboard::tools::builtin_specs::BUILTIN_NAMES
        .iter()
        .filter_map(|n| switchboard::tools::builtin_specs::builtin_spec(n))
        .map(|s| switchboard::tui::boot::tool_entry(&s))
        .chain([weather_tool()])
        .collect();
    insta::assert_snapshot!(
        "catalog_tools",
        draw(&state, &default_theme(), 100, 30).backend()
    );
    state.catalog.filter.query = "fore".into();
    state.catalog.filter.editing = true;
    insta::assert_snapshot!(
        "catalog_filtered",
        draw(&state, &default_theme(), 100, 30).backend()
    );
    state.overlays.replace_top(Overlay::Detail {
        scroll: 0,
        raw: false,
    });
    let detail = draw(&state, &default_theme(), 100, 30);
    assert!(!format!("{}", detail.backend()).contains('\x1b'));
    insta::assert_snapshot!("tool_detail_nested_schema", detail.backend());
    state.overlays.replace_top(Overlay::Detail {
        scroll: 0,
        raw: true,
    });
    insta::assert_snapshot!(
        "tool_detail_raw_60x20",
        draw(&state, &default_theme(), 60, 20).backend()
    );
}

#[test]
fn call_form_from_the_detail_view() {
    use switchboard::keymap::{Key, KeyCode};
    use switchboard::tui::{CallCmd, Cmd, Msg, update};
    let mut state = fresh(&Config::default());
    state.focus = Pane::Catalog;
    state.catalog.items.tools = vec![weather_tool()];
    update(&mut state, Msg::Key(Key::plain(KeyCode::Enter)));
    update(&mut state, Msg::Key(Key::char('c')));
    assert!(matches!(state.overlays.top(), Some(Overlay::Form(_))));
    // Enter with the required city empty is refused in the form, nothing is sent.
    assert_eq!(
        update(&mut state, Msg::Key(Key::plain(KeyCode::Enter))),
        vec![]
    );
    insta::assert_snapshot!(
        "call_form_error",
        draw(&state, &default_theme(), 100, 30).backend()
    );
    for c in "Oslo".chars() {
        update(&mut state, Msg::Key(Key::char(c)));
    }
    update(&mut state, Msg::Key(Key::plain(KeyCode::Down)));
    update(&mut state, Msg::Key(Key::plain(KeyCode::Right)));
    insta::assert_snapshot!(
        "call_form_filled",
        draw(&state, &default_theme(), 100, 30).backend()
    );
    let cmds = update(&mut state, Msg::Key(Key::plain(KeyCode::Enter)));
    let [Cmd::Call(CallCmd::CallTool { tool, args, .. })] = cmds.as_slice() else {
        panic!("{cmds:?}");
    };
    assert_eq!(tool, "weather__forecast");
    assert_eq!(
        serde_json::Value::Object(args.clone()),
        serde_json::json!({"city": "Oslo", "units": "imperial"})
    );
    assert_eq!(state.overlays.top().cloned(), None);
}

/// Only the rows on screen are built: a selection far down shows the rows above it
/// with itself on the last row, as the list widget scrolls; one near the top shows
/// the first screen.
#[test]
fn a_long_catalog_shows_the_window_around_the_selection() {
    let mut state = fresh(&Config::default());
    state.focus = Pane::Catalog;
    state.catalog.items.tools = (0..500)
        .map(|i| switchboard::tui::state::CatalogEntry {
            server: "many".into(),
            name: format!("many__tool_{i:03}"),
            effect: Some(switchboard::tools::ToolEffect::Read),
            ..Default::default()
        })
        .collect();
    state.catalog.sel = 321;
    let screen = format!("{}", draw(&state, &default_theme(), 100, 30).backend());
    assert!(screen.contains("tool_321") && !screen.contains("tool_322"));
    assert!(!screen.contains("tool_000"));
    insta::assert_snapshot!("catalog_long_scrolled", screen);
    state.catalog.sel = 2;
    let screen = format!("{}", draw(&state, &default_theme(), 100, 30).backend());
    assert!(screen.contains("tool_000") && screen.contains("tool_002"));
    // Past the end: the last entry, as the widget would clamp it.
    state.catalog.sel = 900;
    let screen = format!("{}", draw(&state, &default_theme(), 100, 30).backend());
    assert!(screen.contains("tool_499"));
}
