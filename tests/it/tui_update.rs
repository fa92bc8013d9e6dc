#![allow(clippy::unwrap_used)]
//! `update` as a pure function: state + message in, whole state and commands compared.

use crate::support::tui::state;

use switchboard::keymap::{Key, KeyCode, Mods};
use switchboard::tui::composer::Composer;
use switchboard::tui::msg::{Mouse, MouseKind, ServerCmd, SessionCmd, UiCmd};
use switchboard::tui::palette::PaletteState;
use switchboard::tui::state::{
    CatalogEntry, CatalogTab, ChatEntry, ChatKind, LogLevel, LogLine, Notice, NoticeLevel, Overlay,
    Pane, State, TailScroll,
};
use switchboard::tui::{Cmd, Msg, update};

fn key(c: char) -> Msg {
    Msg::Key(Key::char(c))
}

fn code(code: KeyCode) -> Msg {
    Msg::Key(Key::plain(code))
}

fn ctrl(c: char) -> Msg {
    Msg::Key(Key::ctrl(c))
}

fn run(state: &mut State, msgs: impl IntoIterator<Item = Msg>) -> Vec<Cmd> {
    msgs.into_iter().flat_map(|m| update(state, m)).collect()
}

#[test]
fn tab_cycles_focus_through_visible_panes() {
    let mut s = state();
    assert_eq!(s.focus, Pane::Composer);
    let cmds = run(&mut s, [code(KeyCode::Tab)]);
    assert_eq!(cmds, vec![]);
    let mut expected = state();
    expected.focus = Pane::Servers;
    assert_eq!(s, expected);

    // F6 goes back (Shift+Tab switches the permission mode).
    run(&mut s, [code(KeyCode::F(6))]);
    assert_eq!(s.focus, Pane::Composer);

    // Logs join the cycle only while shown.
    run(&mut s, [ctrl('l'), code(KeyCode::Tab)]);
    assert_eq!(s.focus, Pane::Logs);
    run(&mut s, [ctrl('l')]);
    assert!(!s.show_logs);
    assert_eq!(
        s.focus,
        Pane::Chat,
        "hiding logs moves focus away from them"
    );
}

#[test]
fn q_quits_outside_the_composer_but_types_inside_it() {
    let mut s = state();
    let cmds = run(&mut s, [key('q')]);
    assert_eq!(cmds, vec![]);
    assert_eq!(s.composer, Composer::with_text("q"));
    assert!(!s.quit);

    let mut s = state();
    s.focus = Pane::Chat;
    let cmds = run(&mut s, [key('q')]);
    assert_eq!(cmds, vec![Cmd::Ui(UiCmd::Quit)]);
    assert!(s.quit);
}

#[test]
fn ctrl_c_twice_quits_from_the_composer_and_first_press_clears_input() {
    let mut s = state();
    run(&mut s, [key('h'), key('i')]);
    let cmds = run(&mut s, [ctrl('c')]);
    assert_eq!(cmds, vec![]);
    let mut expected = state();
    expected.interrupt_armed = true;
    expected.status.notice = Some(Notice {
        level: NoticeLevel::Warn,
        text: "input cleared; press Ctrl+C again to quit".into(),
    });
    assert_eq!(s, expected);
    assert_eq!(run(&mut s, [ctrl('c')]), vec![Cmd::Ui(UiCmd::Quit)]);
}

#[test]
fn any_other_key_disarms_the_quit_confirmation() {
    let mut s = state();
    run(&mut s, [ctrl('c'), key('x')]);
    assert!(!s.interrupt_armed);
    assert_eq!(s.status.notice, None);
    assert_eq!(run(&mut s, [ctrl('c')]), vec![]);
}

#[test]
fn enter_sends_and_alt_enter_adds_a_line() {
    let mut s = state();
    s.status.provider = "scripted".into();
    run(
        &mut s,
        [
            key('a'),
            Msg::Key(Key::new(KeyCode::Enter, Mods::ALT)),
            key('b'),
        ],
    );
    assert_eq!(s.composer.text(), "a\nb");
    let cmds = run(&mut s, [code(KeyCode::Enter)]);
    assert_eq!(
        cmds,
        vec![Cmd::Session(SessionCmd::Op(
            switchboard::agent::Op::UserTurn {
                text: "a\nb".into()
            }
        ))]
    );
    assert_eq!(s.composer, Composer::default());
    assert_eq!(s.chat.entries, vec![ChatEntry::new(ChatKind::User, "a\nb")]);
    // Blank input sends nothing.
    assert_eq!(run(&mut s, [key(' '), code(KeyCode::Enter)]), vec![]);
}

#[test]
fn sending_without_a_provider_says_so() {
    let mut s = state();
    run(&mut s, [key('h'), code(KeyCode::Enter)]);
    assert_eq!(s.chat.entries.len(), 2);
    assert_eq!(s.chat.entries[1].kind, ChatKind::Note);
}

#[test]
fn paste_goes_into_the_composer_verbatim() {
    let mut s = state();
    s.focus = Pane::Chat;
    run(&mut s, [Msg::Paste("line one\r\nline two".into())]);
    assert_eq!(s.focus, Pane::Composer);
    assert_eq!(s.composer.text(), "line one\nline two");
}

#[test]
fn palette_filters_and_switches_theme_through_a_command() {
    let mut s = state();
    run(&mut s, [ctrl('p')]);
    assert_eq!(
        s.overlays.top().cloned(),
        Some(Overlay::Palette(PaletteState::default()))
    );
    run(&mut s, "light".chars().map(key));
    assert_eq!(
        s.overlays.top().cloned(),
        Some(Overlay::Palette(PaletteState {
            query: "light".into(),
            selected: 0
        }))
    );
    let cmds = run(&mut s, [code(KeyCode::Enter)]);
    assert_eq!(cmds, vec![Cmd::Ui(UiCmd::LoadTheme("light".into()))]);
    assert_eq!(s.overlays.top().cloned(), None);

    // The runtime answers; the state records the new theme.
    run(
        &mut s,
        [Msg::ThemeApplied {
            name: "light".into(),
            error: None,
        }],
    );
    assert_eq!(s.theme_name, "light");
    run(
        &mut s,
        [Msg::ThemeApplied {
            name: "ocean".into(),
            error: Some("theme `ocean` not found".into()),
        }],
    );
    assert_eq!(s.theme_name, "light");
    assert_eq!(
        s.status.notice,
        Some(Notice {
            level: NoticeLevel::Error,
            text: "theme `ocean` not found".into()
        })
    );
}

#[test]
fn palette_escape_closes_and_toggle_logs_runs() {
    let mut s = state();
    run(&mut s, [ctrl('p'), code(KeyCode::Esc)]);
    assert_eq!(s, state());
    run(&mut s, [ctrl('p')]);
    run(&mut s, "logs".chars().map(key));
    run(&mut s, [code(KeyCode::Enter)]);
    assert!(s.show_logs);
}

#[test]
fn help_opens_with_question_mark_and_scrolls() {
    let mut s = state();
    s.focus = Pane::Chat;
    run(&mut s, [key('?'), code(KeyCode::Down), code(KeyCode::Down)]);
    assert_eq!(s.overlays.top().cloned(), Some(Overlay::Help { scroll: 2 }));
    // By pages (the screen less the popup's margin and border), and no further than
    // the last row: Up after End moves at once.
    let page = switchboard::tui::help::page(&s);
    let rows = switchboard::tui::help::rows(&s.keymap).len();
    assert!(rows > 2 * page, "{rows} rows, page {page}");
    run(&mut s, [code(KeyCode::PageDown)]);
    assert_eq!(help_scroll(&s), 2 + page);
    run(&mut s, [code(KeyCode::End)]);
    assert_eq!(help_scroll(&s), rows - page);
    run(&mut s, [code(KeyCode::PageDown), code(KeyCode::Up)]);
    assert_eq!(help_scroll(&s), rows - page - 1);
    run(&mut s, [code(KeyCode::Home)]);
    assert_eq!(help_scroll(&s), 0);
    run(&mut s, [code(KeyCode::Esc)]);
    assert_eq!(s.overlays.top().cloned(), None);
}

fn help_scroll(s: &State) -> usize {
    match s.overlays.top() {
        Some(Overlay::Help { scroll }) => usize::from(*scroll),
        other => panic!("{other:?}"),
    }
}

#[test]
fn help_lists_the_slash_commands_and_help_stays_out_of_the_transcript() {
    let mut s = state();
    let rows = switchboard::tui::help::rows(&s.keymap);
    for c in switchboard::tui::slash::COMMANDS {
        assert!(
            rows.contains(&switchboard::tui::help::HelpRow::Command(c)),
            "{}",
            c.name
        );
    }
    let before = s.chat.entries.len();
    for c in "/help".chars() {
        run(&mut s, [key(c)]);
    }
    run(&mut s, [code(KeyCode::Enter)]);
    assert!(matches!(s.overlays.top(), Some(Overlay::Help { .. })));
    assert_eq!(s.chat.entries.len(), before, "/help leaves no line");
}

fn entries(n: usize) -> Vec<CatalogEntry> {
    (0..n)
        .map(|i| CatalogEntry {
            server: "srv".into(),
            name: format!("tool_{i}"),
            description: if i == 7 {
                "reads the weather".into()
            } else {
                String::new()
            },
            ..CatalogEntry::default()
        })
        .collect()
}

#[test]
fn catalog_selection_tabs_and_filter() {
    let mut s = state();
    s.focus = Pane::Catalog;
    s.catalog.items.tools = entries(10);
    run(&mut s, [code(KeyCode::Down), key('j'), key('G')]);
    assert_eq!(s.catalog.sel, 9);
    run(&mut s, [code(KeyCode::Down)]);
    assert_eq!(s.catalog.sel, 9, "selection stops at the end");
    run(&mut s, [key(']')]);
    assert_eq!((s.catalog.tab, s.catalog.sel), (CatalogTab::Resources, 0));
    run(&mut s, [key('['), key('[')]);
    assert_eq!(s.catalog.tab, CatalogTab::Prompts, "tabs wrap around");
    run(&mut s, [key(']')]);

    run(&mut s, [key('/')]);
    assert!(s.catalog.filter.editing);
    run(&mut s, "weat".chars().map(key));
    let names: Vec<_> = s.catalog.visible().iter().map(|e| e.name.clone()).collect();
    assert_eq!(names, vec!["tool_7"], "substring match on the description");
    run(&mut s, [code(KeyCode::Enter)]);
    assert!(!s.catalog.filter.editing);
    assert_eq!(s.catalog.filter.query, "weat");
    // `/` again starts a fresh filter: typing does not add to the kept one.
    run(&mut s, [key('/')]);
    assert!(s.catalog.filter.editing);
    assert_eq!(s.catalog.filter.query, "");
    run(&mut s, "tool_7".chars().map(key));
    assert_eq!(s.catalog.filter.query, "tool_7");
    run(&mut s, [code(KeyCode::Esc)]);
    run(&mut s, [key('/'), code(KeyCode::Esc)]);
    assert_eq!(s.catalog.filter.query, "");
}

#[test]
fn chat_scrolls_back_and_clamps_to_its_content() {
    let mut s = state();
    s.focus = Pane::Chat;
    s.chat.entries = (0..40)
        .map(|i| ChatEntry::new(ChatKind::User, format!("message {i}")))
        .collect();
    run(&mut s, [code(KeyCode::Up), code(KeyCode::Up)]);
    assert_eq!(s.chat.scroll, TailScroll(2));
    run(&mut s, [key('g')]);
    let top = s.chat.scroll.0;
    assert!(top > 50, "top is the oldest line: {top}");
    run(&mut s, [code(KeyCode::Up)]);
    assert_eq!(s.chat.scroll.0, top, "cannot scroll past the oldest line");
    run(&mut s, [key('G')]);
    assert_eq!(s.chat.scroll, TailScroll(0));
    // A taller terminal shows more, so the limit shrinks on resize.
    run(&mut s, [key('g'), Msg::Resize(100, 200)]);
    assert_eq!(s.chat.scroll, TailScroll(0));
}

#[test]
fn new_log_lines_keep_a_scrolled_view_in_place() {
    let mut s = state();
    s.show_logs = true;
    s.focus = Pane::Logs;
    let line = |i: usize| LogLine {
        level: LogLevel::Info,
        target: "t".into(),
        message: format!("line {i}"),
    };
    run(&mut s, (0..50).map(|i| Msg::Log(line(i))));
    run(&mut s, [code(KeyCode::PageUp)]);
    let before = s.logs.scroll.0;
    assert!(before > 0);
    run(&mut s, [Msg::Log(line(50))]);
    assert_eq!(s.logs.scroll.0, before + 1);
}

#[test]
fn mouse_click_focuses_and_wheel_scrolls_the_pane_under_the_pointer() {
    let mut s = state();
    s.size = (100, 30);
    run(
        &mut s,
        [Msg::Mouse(Mouse {
            kind: MouseKind::Click,
            column: 2,
            row: 2,
        })],
    );
    assert_eq!(s.focus, Pane::Servers);
    s.catalog.items.tools = entries(10);
    run(
        &mut s,
        [Msg::Mouse(Mouse {
            kind: MouseKind::ScrollDown,
            column: 2,
            row: 20,
        })],
    );
    assert_eq!(s.catalog.sel, 3);
    assert_eq!(s.focus, Pane::Servers, "the wheel does not move focus");
}

#[test]
fn enter_opens_the_detail_and_c_prepares_a_call() {
    let mut s = state();
    s.focus = Pane::Catalog;
    s.catalog.items.tools = vec![switchboard::tui::boot::tool_entry(
        &switchboard::tools::builtin_specs::fs_spec(),
    )];
    run(&mut s, [code(KeyCode::Enter)]);
    assert_eq!(
        s.overlays.top().cloned(),
        Some(Overlay::Detail {
            scroll: 0,
            raw: false
        })
    );
    run(&mut s, [key('r'), key('j')]);
    assert_eq!(
        s.overlays.top().cloned(),
        Some(Overlay::Detail {
            scroll: 1,
            raw: true
        })
    );
    // On a tool, c opens the argument form …
    run(&mut s, [key('c')]);
    assert!(matches!(s.overlays.top(), Some(Overlay::Form(_))));
    run(&mut s, [code(KeyCode::Esc)]);
    // … on a resource it writes the /read line into the composer.
    s.catalog.tab = CatalogTab::Resources;
    s.catalog.items.resources = vec![CatalogEntry {
        server: "files".into(),
        name: "todo".into(),
        facts: vec![("uri".into(), "file:///todo.md".into())],
        ..CatalogEntry::default()
    }];
    run(&mut s, [code(KeyCode::Enter), key('c')]);
    assert_eq!(s.overlays.top().cloned(), None);
    assert_eq!(s.focus, Pane::Composer);
    assert_eq!(s.composer.text(), "/read files file:///todo.md");
}

#[test]
fn filter_ranks_name_matches_before_description_matches() {
    let mut s = state();
    let e = |name: &str, description: &str| CatalogEntry {
        server: "srv".into(),
        name: name.into(),
        description: description.into(),
        ..CatalogEntry::default()
    };
    s.catalog.items.tools = vec![
        e("files", "read a forecast file"),
        e("srv__get_forecast", "weather"),
        e("fmt_ore", "formats ore"),
        e("list", "lists files under the workspace"),
    ];
    s.catalog.filter.query = "fore".into();
    let names: Vec<_> = s.catalog.visible().iter().map(|e| e.name.clone()).collect();
    assert_eq!(names, vec!["srv__get_forecast", "fmt_ore", "files"]);
}

#[test]
fn v_in_the_logs_pane_raises_the_level_shown() {
    let mut s = state();
    s.show_logs = true;
    s.focus = Pane::Logs;
    for (i, level) in [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Warn,
        LogLevel::Error,
    ]
    .into_iter()
    .enumerate()
    {
        run(
            &mut s,
            [Msg::Log(LogLine {
                level,
                target: "t".into(),
                message: format!("m{i}"),
            })],
        );
    }
    assert_eq!(s.logs.visible().len(), 4);
    // Each step also asks the MCP servers for the same level (logging/setLevel).
    let asked = |level: &str| vec![Cmd::Server(ServerCmd::SetLogLevel(level.into()))];
    assert_eq!(run(&mut s, [key('v')]), asked("info"));
    assert_eq!(s.logs.level, LogLevel::Info);
    assert_eq!(s.logs.visible().len(), 3);
    assert_eq!(run(&mut s, [key('v')]), asked("warning"));
    assert_eq!(run(&mut s, [key('v')]), asked("error"));
    assert_eq!(s.logs.visible().len(), 1, "errors only");
    assert_eq!(run(&mut s, [key('v')]), asked("debug"));
    assert_eq!(s.logs.visible().len(), 4, "back to everything");
}

#[test]
fn a_ui_failure_is_an_error_line_and_not_an_agent_event() {
    let mut s = state();
    s.turn.waiting_for_servers = true;
    let before = s.clone();
    let cmds = update(&mut s, Msg::Failed("disable t: no such server".into()));
    assert!(cmds.is_empty());
    let mut expected = before;
    expected
        .chat
        .entries
        .push(ChatEntry::new(ChatKind::Error, "disable t: no such server"));
    // No session produced it: the wait for servers is not ended by it.
    assert_eq!(s, expected);
}

/// Ctrl+U erases what was typed in the palette, as in a shell.
#[test]
fn ctrl_u_clears_the_palette_query() {
    use switchboard::tui::state::Overlay;
    let mut s = state();
    update(&mut s, Msg::Key(switchboard::keymap::Key::ctrl('p')));
    run(&mut s, "theme".chars().map(key));
    let query = |s: &State| match s.overlays.top() {
        Some(Overlay::Palette(p)) => p.query.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(query(&s), "theme");
    update(&mut s, Msg::Key(switchboard::keymap::Key::ctrl('u')));
    assert_eq!(query(&s), "");
}

/// The first note says where a task goes: the configured provider when there is one,
/// else the offline scripted one.
#[test]
fn the_welcome_names_the_configured_provider() {
    let toml = "default_provider = \"claude\"\n\n[providers.claude]\nkind = \"anthropic\"\nmodel = \"claude-sonnet-4-5\"\n";
    let config = switchboard::config::parse_str(toml, std::path::Path::new("c.toml")).unwrap();
    let welcome = |config: &switchboard::config::Config| {
        switchboard::tui::boot::initial_state(
            config,
            switchboard::keymap::Keymap::default(),
            "default".into(),
            vec![],
        )
        .chat
        .entries[0]
            .text
            .clone()
    };
    assert!(
        welcome(&config)
            .starts_with("Type a task below: it goes to claude (anthropic, claude-sonnet-4-5)."),
        "{}",
        welcome(&config)
    );
    assert_eq!(
        welcome(&switchboard::config::Config::default()),
        switchboard::tui::boot::OFFLINE_NOTE
    );
}

/// `/help` (like `/tasks` and `/wire`) opens a view and leaves the transcript alone.
#[test]
fn help_opens_and_stays_out_of_the_transcript() {
    use switchboard::tui::state::Overlay;
    let mut s = state();
    let before = s.chat.entries.len();
    update(&mut s, Msg::Paste("/help".into()));
    update(
        &mut s,
        Msg::Key(switchboard::keymap::Key::plain(KeyCode::Enter)),
    );
    assert!(matches!(s.overlays.top(), Some(Overlay::Help { .. })));
    assert_eq!(s.chat.entries.len(), before);
}
