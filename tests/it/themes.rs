//! Built-in themes, theme files, `extends`, fallbacks and error messages.

// Test helpers outside `#[test]` functions unwrap too.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;

use switchboard::theme::{Color, Role, StyleSpec, Theme, ThemeError, ThemeSet};
use tempfile::TempDir;

const BUILTINS: [&str; 3] = ["default", "high-contrast", "light"];

fn user_dir(files: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new().unwrap();
    for (name, text) in files {
        fs::write(dir.path().join(format!("{name}.toml")), text).unwrap();
    }
    dir
}

fn set_for(dir: &TempDir) -> ThemeSet {
    ThemeSet::new(Some(dir.path().to_path_buf()))
}

fn load_error(files: &[(&str, &str)], name: &str) -> (String, TempDir) {
    let dir = user_dir(files);
    let error = set_for(&dir).load(name).unwrap_err();
    (error.to_string(), dir)
}

fn file_in(dir: &TempDir, name: &str) -> String {
    Path::new(dir.path())
        .join(format!("{name}.toml"))
        .display()
        .to_string()
}

#[test]
fn every_builtin_loads_and_resolves_every_role() {
    let set = ThemeSet::new(None);
    assert_eq!(set.names(), BUILTINS);
    for name in BUILTINS {
        let theme = set.load(name).unwrap();
        assert_eq!(theme.name, name);
        for role in Role::ALL {
            let style = theme.style(*role);
            let text = theme.style(Role::Text);
            if *role != Role::Text {
                // Every built-in sets something for every role beyond plain text.
                assert!(style != StyleSpec::default() || text == StyleSpec::default());
            }
        }
    }
}

#[test]
fn builtins_set_every_role_explicitly() {
    for name in BUILTINS {
        let text = fs::read_to_string(format!("themes/{name}.toml")).unwrap();
        for role in Role::ALL {
            let key = format!("\n{} = ", role.name());
            assert!(text.contains(&key), "{name} does not set `{}`", role.name());
        }
    }
}

#[test]
fn default_uses_only_ansi_colours() {
    let theme = ThemeSet::new(None).load("default").unwrap();
    for role in Role::ALL {
        let style = theme.style(*role);
        for color in [style.fg, style.bg].into_iter().flatten() {
            assert!(color.is_ansi(), "{} uses {color}", role.name());
        }
    }
}

#[test]
fn builtins_look_right() {
    let set = ThemeSet::new(None);
    for name in BUILTINS {
        let theme = set.load(name).unwrap();
        let style = |role| theme.style(role);
        assert_ne!(style(Role::BorderFocus), style(Role::Border), "{name}");
        assert_ne!(style(Role::User), style(Role::Assistant), "{name}");
        assert_ne!(style(Role::TabActive), style(Role::TabInactive), "{name}");
        let selection = style(Role::Selection);
        assert!(selection.reversed || selection.bg.is_some(), "{name}");
        let effects = [
            Role::EffectRead,
            Role::EffectCompute,
            Role::EffectWrite,
            Role::EffectDelete,
            Role::EffectUnknown,
        ]
        .map(|role| style(role).fg);
        for (i, a) in effects.iter().enumerate() {
            for b in &effects[i + 1..] {
                assert_ne!(a, b, "{name}: effect colours must differ");
            }
        }
    }
    let default = set.load("default").unwrap();
    assert_eq!(default.style(Role::EffectRead).fg, Some(Color::Green));
    assert_eq!(default.style(Role::EffectCompute).fg, Some(Color::Cyan));
    assert_eq!(default.style(Role::EffectWrite).fg, Some(Color::Yellow));
    assert_eq!(default.style(Role::EffectDelete).fg, Some(Color::Red));
    assert_eq!(default.style(Role::EffectUnknown).fg, Some(Color::Magenta));
    let high = set.load("high-contrast").unwrap();
    assert!(high.style(Role::Selection).reversed);
    assert!(Role::ALL.iter().all(|role| !high.style(*role).dim));
}

#[test]
fn light_has_no_pale_text() {
    let theme = ThemeSet::new(None).load("light").unwrap();
    for role in Role::ALL {
        if let Some(fg) = theme.style(*role).fg {
            let pale = matches!(
                fg,
                Color::White
                    | Color::Gray
                    | Color::Yellow
                    | Color::LightRed
                    | Color::LightGreen
                    | Color::LightYellow
                    | Color::LightBlue
                    | Color::LightMagenta
                    | Color::LightCyan
            );
            assert!(!pale, "light.{} uses {fg}", role.name());
        }
    }
}

#[test]
fn extends_palette_and_fallbacks() {
    let dir = user_dir(&[
        (
            "base",
            r##"
name = "base"
[palette]
accent = "#102030"
[styles]
text = { fg = "white" }
title = { fg = "accent", bold = true }
warning = "yellow"
error = "red"
"##,
        ),
        (
            "child",
            r#"
name = "child"
extends = "base"
[palette]
accent = "magenta"
[styles]
error = { fg = "light-red", underline = true }
"#,
        ),
    ]);
    let set = set_for(&dir);
    let base = set.load("base").unwrap();
    assert_eq!(
        base.style(Role::Title).fg,
        Some(Color::Rgb(0x10, 0x20, 0x30))
    );
    // Fallbacks: border_focus → title, effect_unknown → warning, log_error → error,
    // tab_active → title, status_warn → warning, user → text.
    assert_eq!(base.style(Role::BorderFocus), base.style(Role::Title));
    assert_eq!(base.style(Role::EffectUnknown).fg, Some(Color::Yellow));
    assert_eq!(base.style(Role::StatusWarn).fg, Some(Color::Yellow));
    assert_eq!(base.style(Role::LogError).fg, Some(Color::Red));
    assert_eq!(base.style(Role::TabActive), base.style(Role::Title));
    assert_eq!(base.style(Role::User).fg, Some(Color::White));

    let child = set.load("child").unwrap();
    assert_eq!(child.name, "child");
    // The child's palette retints the parent's styles.
    assert_eq!(child.style(Role::Title).fg, Some(Color::Magenta));
    assert!(child.style(Role::Title).bold);
    // A role style is replaced whole, and fallbacks see the child's value.
    let error = child.style(Role::Error);
    assert_eq!((error.fg, error.underline), (Some(Color::LightRed), true));
    assert_eq!(child.style(Role::ToolError), error);
    assert_eq!(child.style(Role::Text).fg, Some(Color::White));
}

#[test]
fn text_falls_back_to_the_empty_style() {
    let dir = user_dir(&[("bare", "name = \"bare\"\n")]);
    let theme = set_for(&dir).load("bare").unwrap();
    for role in Role::ALL {
        assert_eq!(theme.style(*role), StyleSpec::default(), "{}", role.name());
    }
}

#[test]
fn palette_entries_can_name_earlier_entries_and_shorthand_sets_fg() {
    let dir = user_dir(&[(
        "p",
        "[palette]\nsea = 31\naccent = \"sea\"\n[styles]\nborder_focus = \"accent\"\nborder = 8\n",
    )]);
    let theme = set_for(&dir).load("p").unwrap();
    assert_eq!(
        theme.style(Role::BorderFocus),
        StyleSpec::fg(Color::Indexed(31))
    );
    assert_eq!(theme.style(Role::Border), StyleSpec::fg(Color::Indexed(8)));
}

#[test]
fn extending_a_builtin() {
    let dir = user_dir(&[(
        "mine",
        "extends = \"default\"\n[palette]\naccent = \"magenta\"\n",
    )]);
    let theme = set_for(&dir).load("mine").unwrap();
    let default = Theme::fallback_default();
    assert_eq!(theme.style(Role::BorderFocus).fg, Some(Color::Magenta));
    assert_eq!(
        theme.style(Role::EffectDelete),
        default.style(Role::EffectDelete)
    );
}

#[test]
fn unknown_colour_error_has_position() {
    let text = "name = \"ocean\"\n\n[styles]\ntext = \"reset\"\n\ntitle = { bold = true,\n  fg = \"blurple\" }\n";
    let (message, dir) = load_error(&[("ocean", text)], "ocean");
    assert_eq!(
        message,
        format!(
            "{}:7:8: unknown colour `blurple` for `title.fg`",
            file_in(&dir, "ocean")
        )
    );
}

#[test]
fn unknown_colour_in_palette() {
    let (message, dir) = load_error(&[("p", "[palette]\naccent = \"#12345\"\n")], "p");
    assert_eq!(
        message,
        format!(
            "{}:2:10: unknown colour `#12345` for `palette.accent`",
            file_in(&dir, "p")
        )
    );
}

#[test]
fn unknown_role_error() {
    let (message, dir) = load_error(
        &[("r", "[styles]\ntext = \"red\"\ntitel = \"blue\"\n")],
        "r",
    );
    assert_eq!(
        message,
        format!(
            "{}:3:1: unknown role `titel` in [styles]",
            file_in(&dir, "r")
        )
    );
}

#[test]
fn unknown_top_level_key_error() {
    let (message, dir) = load_error(&[("k", "name = \"k\"\ncolours = {}\n")], "k");
    assert_eq!(
        message,
        format!(
            "{}:2:1: unknown key `colours` (expected `name`, `extends`, `palette` or `styles`)",
            file_in(&dir, "k")
        )
    );
}

#[test]
fn unknown_attribute_and_wrong_types() {
    let (message, dir) = load_error(
        &[("a", "[styles]\ntitle = { fg = \"red\", blink = true }\n")],
        "a",
    );
    assert_eq!(
        message,
        format!(
            "{}:2:23: unknown style attribute `blink` for `title` \
             (expected fg, bg, bold, dim, italic, underline, reversed)",
            file_in(&dir, "a")
        )
    );
    let (message, dir) = load_error(&[("b", "[styles]\ntitle = { bold = \"yes\" }\n")], "b");
    assert_eq!(
        message,
        format!(
            "{}:2:18: `title.bold` must be true or false",
            file_in(&dir, "b")
        )
    );
    let (message, _dir) = load_error(&[("c", "[styles]\ntitle = [1]\n")], "c");
    assert!(
        message.ends_with("2:9: `title` must be a colour: a name, \"#rrggbb\", \"#rgb\" or 0-255"),
        "{message}"
    );
}

#[test]
fn toml_syntax_error_has_position() {
    let (message, dir) = load_error(&[("s", "name = \"s\"\n[styles\n")], "s");
    assert!(
        message.starts_with(&format!("{}:2:", file_in(&dir, "s"))),
        "{message}"
    );
}

#[test]
fn not_found_lists_available_themes() {
    let error = ThemeSet::new(None).load("x").unwrap_err();
    assert!(matches!(error, ThemeError::NotFound { .. }));
    assert_eq!(
        error.to_string(),
        "theme `x` not found (available: default, high-contrast, light)"
    );
    assert!(ThemeSet::new(None).load("../default").is_err());
}

#[test]
fn extends_unknown_theme_points_at_the_line() {
    let (message, dir) = load_error(&[("e", "name = \"e\"\nextends = \"nope\"\n")], "e");
    assert_eq!(
        message,
        format!(
            "{}:2:11: extends unknown theme `nope` (available: default, e, high-contrast, light)",
            file_in(&dir, "e")
        )
    );
}

#[test]
fn cycles_are_detected() {
    let files = [
        ("a", "extends = \"b\"\n"),
        ("b", "extends = \"a\"\n"),
        ("c", "extends = \"a\"\n"),
        ("self", "extends = \"self\"\n"),
    ];
    let (message, _dir) = load_error(&files, "a");
    assert_eq!(message, "theme `a` extends itself through a → b → a");
    let (message, _dir) = load_error(&files, "c");
    assert_eq!(message, "theme `a` extends itself through a → b → a");
    let (message, _dir) = load_error(&files, "self");
    assert_eq!(message, "theme `self` extends itself through self → self");
}

#[test]
fn user_directory_shadows_builtins_and_adds_names() {
    let dir = user_dir(&[
        // Shadows the built-in, extending it (its own name means the built-in).
        (
            "default",
            "name = \"default\"\nextends = \"default\"\n[styles]\ntitle = \"red\"\n",
        ),
        ("ocean", "[styles]\ntext = \"blue\"\n"),
    ]);
    fs::write(dir.path().join("notes.txt"), "not a theme").unwrap();
    let set = set_for(&dir);
    assert_eq!(set.names(), ["default", "high-contrast", "light", "ocean"]);
    let default = set.load("default").unwrap();
    assert_eq!(default.style(Role::Title), StyleSpec::fg(Color::Red));
    let builtin = ThemeSet::new(None).load("default").unwrap();
    assert_eq!(
        default.style(Role::EffectRead),
        builtin.style(Role::EffectRead)
    );
    assert_eq!(
        set.load("ocean").unwrap().style(Role::Text).fg,
        Some(Color::Blue)
    );
}

#[test]
fn missing_user_directory_means_builtins_only() {
    let set = ThemeSet::new(Some("/nonexistent/switchboard/themes".into()));
    assert_eq!(set.names(), BUILTINS);
    assert!(set.load("light").is_ok());
}

#[test]
fn without_colors_keeps_modifiers() {
    for name in BUILTINS {
        let theme = ThemeSet::new(None).load(name).unwrap();
        let plain = theme.without_colors();
        for role in Role::ALL {
            let (before, after) = (theme.style(*role), plain.style(*role));
            assert_eq!((after.fg, after.bg), (None, None));
            assert_eq!(after.bold, before.bold);
            assert!(after.reversed || !before.reversed);
        }
        assert!(plain.style(Role::Selection).reversed, "{name}");
        assert!(plain.style(Role::BorderFocus).bold, "{name}");
        assert_ne!(plain.style(Role::TabActive), plain.style(Role::TabInactive));
    }
}

#[test]
fn fallback_default_is_the_builtin_default() {
    let theme = Theme::fallback_default();
    assert_eq!(theme, ThemeSet::new(None).load("default").unwrap());
    let colorless = Theme::colorless();
    assert!(colorless.style(Role::Selection).reversed);
    assert!(
        Role::ALL
            .iter()
            .all(|role| colorless.style(*role).fg.is_none())
    );
}
