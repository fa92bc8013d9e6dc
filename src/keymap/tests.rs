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
