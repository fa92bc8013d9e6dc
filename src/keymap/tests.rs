use std::collections::BTreeMap;

use super::*;
use crate::config::UiConfig;

fn overrides(toml_text: &str) -> BTreeMap<String, toml::Spanned<KeyBindingSpec>> {
    #[derive(serde::Deserialize)]
    struct Wrap {
        ui: UiConfig,
    }
    let w: Wrap = toml::from_str(toml_text).unwrap();
    w.ui.keys
}

#[test]
fn default_table_has_no_conflicts() {
    let km = Keymap::with_overrides(&BTreeMap::new()).unwrap();
    assert_eq!(km, Keymap::default());
}

#[test]
fn layer_lookup_falls_back_to_global() {
    let km = Keymap::default();
    assert_eq!(km.lookup(Layer::Normal, Key::char('q')), Some(Action::Quit));
    assert_eq!(km.lookup(Layer::Composer, Key::char('q')), None);
    assert_eq!(
        km.lookup(Layer::Composer, Key::ctrl('c')),
        Some(Action::Interrupt)
    );
    assert_eq!(
        km.lookup(Layer::Approval, Key::char('N')),
        Some(Action::DenyWithReason)
    );
}

#[test]
fn override_replaces_every_default_key_of_the_action() {
    let km = Keymap::with_overrides(&overrides("[ui.keys]\nquit = \"ctrl+q\"\n")).unwrap();
    assert_eq!(km.lookup(Layer::Normal, Key::char('q')), None);
    assert_eq!(km.lookup(Layer::Normal, Key::ctrl('q')), Some(Action::Quit));
    let km = Keymap::with_overrides(&overrides("[ui.keys]\ndown = [\"J\", \"ctrl+n\"]\n")).unwrap();
    assert_eq!(km.lookup(Layer::Normal, Key::char('j')), None);
    assert_eq!(km.lookup(Layer::Help, Key::ctrl('n')), Some(Action::Down));
}

#[test]
fn conflicts_and_bad_entries_are_errors_at_the_value() {
    let text = "[ui.keys]\nhelp = \"q\"\n";
    let errs = Keymap::with_overrides(&overrides(text)).unwrap_err();
    assert!(!errs.is_empty());
    assert_eq!(errs[0].key, "ui.keys.help");
    assert!(errs[0].message.contains("bound to both"), "{errs:?}");
    assert_eq!(&text[errs[0].span.clone()], "\"q\"");

    let errs = Keymap::with_overrides(&overrides("[ui.keys]\nqiut = \"x\"\n")).unwrap_err();
    assert_eq!(errs[0].message, "unknown action `qiut`");
    assert_eq!(errs[0].hint.as_deref(), Some("did you mean `quit`?"));

    let errs = Keymap::with_overrides(&overrides("[ui.keys]\nquit = \"hyper+x\"\n")).unwrap_err();
    assert_eq!(errs[0].message, "unknown modifier `hyper`");
}

#[test]
fn global_override_conflicting_with_a_layer_key_is_reported() {
    let errs = Keymap::with_overrides(&overrides("[ui.keys]\ntoggle_logs = \"j\"\n")).unwrap_err();
    assert!(errs[0].message.contains("`down`"), "{errs:?}");
}

#[test]
fn hints_come_from_the_table() {
    let km = Keymap::default();
    assert_eq!(km.hint(Layer::Normal, Action::Help), "?");
    assert_eq!(km.hint(Layer::Composer, Action::Palette), "Ctrl+P");
    assert_eq!(edit_distance("kitten", "sitting"), 3);
}

#[test]
fn the_built_in_table_parses_and_binds_every_action() {
    let bindings = table::built_in().unwrap();
    for action in Action::ALL {
        assert!(
            bindings.iter().any(|b| b.action == *action),
            "default.toml binds no key to `{}`",
            action.name()
        );
    }
    for layer in Layer::ALL {
        assert!(bindings.iter().any(|b| b.layer == layer), "{layer:?}");
    }
    assert_eq!(Keymap::default().bindings(), bindings.as_slice());
}

#[test]
fn the_built_in_tables_order_is_the_status_bars() {
    let km = Keymap::default();
    let labels = |layer| {
        km.hints(layer, false)
            .into_iter()
            .map(|(_, label, key)| format!("{key} {label}"))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        labels(Layer::Detail),
        ["Esc close", "PgDn scroll", "r raw", "c call"]
    );
    assert_eq!(
        labels(Layer::Ask),
        ["Enter accept", "Ctrl+D decline", "Esc cancel"]
    );
    assert_eq!(km.hint(Layer::Normal, Action::Up), "↑");
    assert_eq!(km.keys_for(Layer::Ask, Action::Deny)[1], Key::char('n'));
}

#[test]
fn a_layer_table_rebinds_the_action_in_that_layer_only() {
    let km = Keymap::with_overrides(&overrides(
        "[ui.keys.approval]\napprove_once = \"Y\"\ndeny = { keys = \"x\", label = \"no\" }\n",
    ))
    .unwrap();
    assert_eq!(
        km.lookup(Layer::Approval, Key::char('Y')),
        Some(Action::ApproveOnce)
    );
    assert_eq!(km.lookup(Layer::Approval, Key::char('y')), None);
    // The ask layer keeps its own keys for the same actions.
    assert_eq!(
        km.lookup(Layer::Ask, Key::char('y')),
        Some(Action::ApproveOnce)
    );
    let hints = km.hints(Layer::Approval, false);
    let labels: Vec<_> = hints.iter().map(|(_, l, k)| format!("{k} {l}")).collect();
    // In place: the status bar keeps its order.
    assert_eq!(labels, ["Y approve", "x no", "Esc abort"]);
}

#[test]
fn a_layer_table_can_add_an_action_with_its_description() {
    let km = Keymap::with_overrides(&overrides("[ui.keys.tasks]\nshow_wire = \"w\"\n")).unwrap();
    assert_eq!(
        km.lookup(Layer::Tasks, Key::char('w')),
        Some(Action::ShowWire)
    );
    let b = km
        .bindings()
        .iter()
        .find(|b| b.layer == Layer::Tasks && b.action == Action::ShowWire);
    assert_eq!(
        b.map(|b| b.help.as_str()),
        Some(Action::ShowWire.description())
    );
}

#[test]
fn layer_tables_report_unknown_names_and_bad_text() {
    let errs = Keymap::with_overrides(&overrides("[ui.keys.aproval]\ndeny = \"x\"\n")).unwrap_err();
    assert_eq!(errs[0].message, "unknown layer `aproval`");
    assert_eq!(errs[0].hint.as_deref(), Some("did you mean `approval`?"));

    let errs = Keymap::with_overrides(&overrides("[ui.keys]\napproval = \"x\"\n")).unwrap_err();
    assert_eq!(errs[0].message, "unknown action `approval`");
    assert!(
        errs[0]
            .hint
            .as_deref()
            .unwrap()
            .contains("[ui.keys.approval]")
    );

    let errs = Keymap::with_overrides(&overrides(
        "[ui.keys.approval]\ndeny = { keys = \"x\", label = \"a\\u001b[2J\" }\n",
    ))
    .unwrap_err();
    assert_eq!(errs[0].key, "ui.keys.approval.deny");
    assert!(errs[0].message.contains("plain text"), "{errs:?}");

    let errs =
        Keymap::with_overrides(&overrides("[ui.keys.approval]\ndeny = \"y\"\n")).unwrap_err();
    assert!(errs[0].message.contains("bound to both"), "{errs:?}");
}

#[test]
fn the_reference_lists_every_action_and_layer() {
    let md = reference_markdown();
    for action in Action::ALL {
        assert!(md.contains(&format!(
            "| `{}` | {} |",
            action.name(),
            action.description()
        )));
    }
    for layer in Layer::ALL {
        assert!(
            md.contains(&format!("`[ui.keys.{}]`", layer.name())),
            "{}",
            layer.name()
        );
    }
    assert!(
        md.contains("| `y` | `approve_once` | approve once |"),
        "{md}"
    );
}
