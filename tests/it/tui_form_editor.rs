#![allow(clippy::unwrap_used)]
//! Ctrl+E in the argument form: the value being typed goes to the external editor as
//! a command, and what comes back replaces it (or explains why not).

use crate::support;
use serde_json::json;
use switchboard::keymap::{Key, Keymap};
use switchboard::tui::form::{FormState, FormTarget};
use switchboard::tui::state::{Overlay, State};
use switchboard::tui::{Cmd, Msg, UiCmd, update};

fn with_form() -> State {
    let mut s = State::new(Keymap::default(), "default".into(), vec!["default".into()]);
    let schema = json!({
        "type": "object",
        "properties": {
            "content": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "mode": {"type": "string", "enum": ["fast", "slow"]}
        },
        "required": ["content"]
    });
    let mut form = FormState::for_schema(FormTarget::Tool("notes".into()), &schema);
    form.fields[0].value = "draft".into();
    s.overlays.replace_top(Overlay::Form(form));
    s
}

fn form(s: &State) -> &FormState {
    match s.overlays.top() {
        Some(Overlay::Form(f)) => f,
        other => panic!("no form: {other:?}"),
    }
}

fn ctrl_e(s: &mut State) -> Vec<Cmd> {
    update(s, Msg::Key(Key::ctrl('e')))
}

#[test]
fn ctrl_e_sends_the_value_and_the_answer_replaces_it() {
    let mut s = with_form();
    assert_eq!(
        ctrl_e(&mut s),
        vec![Cmd::Ui(UiCmd::EditExternally {
            text: "draft".into(),
            suffix: ".txt".into()
        })]
    );
    update(&mut s, Msg::Edited(Ok("line one\nline two".into())));
    let mut expected = with_form();
    if let Some(Overlay::Form(f)) = expected.overlays.top_mut() {
        f.fields[0].value = "line one\nline two".into();
    }
    assert_eq!(s, expected);
    let args = form(&s).to_args().unwrap();
    assert_eq!(args["content"], "line one\nline two");
}

#[test]
fn json_fields_and_raw_mode_edit_as_json_and_choices_are_not_typed() {
    let mut s = with_form();
    update(
        &mut s,
        Msg::Key(Key::plain(switchboard::keymap::KeyCode::Down)),
    );
    assert_eq!(
        ctrl_e(&mut s),
        vec![Cmd::Ui(UiCmd::EditExternally {
            text: "[]".into(),
            suffix: ".json".into()
        })]
    );
    update(
        &mut s,
        Msg::Key(Key::plain(switchboard::keymap::KeyCode::Down)),
    );
    assert_eq!(ctrl_e(&mut s), vec![]);
    assert_eq!(
        form(&s).error.as_deref(),
        Some("choose this value with ←/→")
    );

    update(&mut s, Msg::Key(Key::ctrl('r')));
    let cmds = ctrl_e(&mut s);
    assert!(
        matches!(&cmds[..], [Cmd::Ui(UiCmd::EditExternally { text, suffix })] if suffix == ".json" && text.contains("\"content\"")),
        "{cmds:?}"
    );
}

#[test]
fn a_failed_edit_keeps_the_value_and_says_why() {
    let mut s = with_form();
    ctrl_e(&mut s);
    update(
        &mut s,
        Msg::Edited(Err("vi exited with exit status: 1; value unchanged".into())),
    );
    assert_eq!(form(&s).fields[0].value, "draft");
    assert_eq!(
        form(&s).error.as_deref(),
        Some("vi exited with exit status: 1; value unchanged")
    );
    // An answer that arrives after the form closed changes nothing.
    update(
        &mut s,
        Msg::Key(Key::plain(switchboard::keymap::KeyCode::Esc)),
    );
    update(&mut s, Msg::Edited(Ok("late".into())));
    assert_eq!(s.overlays.top().cloned(), None);
}

#[test]
fn nested_objects_start_from_a_skeleton_and_are_checked_before_sending() {
    let mut s = State::new(Keymap::default(), "default".into(), vec!["default".into()]);
    let schema = json!({
        "type": "object",
        "properties": {
            "options": {"type": "object", "properties": {
                "days": {"type": "integer"},
                "hourly": {"type": "boolean"}
            }, "required": ["days"]},
            "stops": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}
            }, "required": ["name"]}}
        },
        "required": ["options"]
    });
    s.overlays.replace_top(Overlay::Form(FormState::for_schema(
        FormTarget::Tool("weather".into()),
        &schema,
    )));
    assert_eq!(
        ctrl_e(&mut s),
        vec![Cmd::Ui(UiCmd::EditExternally {
            text: "{\n  \"days\": 0\n}".into(),
            suffix: ".json".into()
        })]
    );
    update(
        &mut s,
        Msg::Key(Key::plain(switchboard::keymap::KeyCode::Down)),
    );
    assert_eq!(
        ctrl_e(&mut s),
        vec![Cmd::Ui(UiCmd::EditExternally {
            text: "[\n  {\n    \"name\": \"\"\n  }\n]".into(),
            suffix: ".json".into()
        })]
    );

    // The whole is checked against the schema: a nested required field is named.
    update(&mut s, Msg::Edited(Ok("[{}]".into())));
    let Some(Overlay::Form(f)) = s.overlays.top_mut() else {
        panic!()
    };
    f.fields[0].value = r#"{"hourly": "yes"}"#.into();
    assert_eq!(
        f.to_args().unwrap_err(),
        "options.days: required (and 2 more)"
    );
    f.fields[0].value = r#"{"days": 2}"#.into();
    f.fields[1].value = r#"[{"name": "Lyon"}]"#.into();
    assert_eq!(
        serde_json::Value::Object(f.to_args().unwrap()),
        json!({"options": {"days": 2}, "stops": [{"name": "Lyon"}]})
    );
}

#[test]
fn an_object_field_lists_its_fields() {
    let mut s = State::new(Keymap::default(), "default".into(), vec!["default".into()]);
    let schema = json!({"type": "object", "properties": {
        "options": {"type": "object", "description": "How to fetch", "properties": {
            "days": {"type": "integer"}, "hourly": {"type": "boolean"}
        }, "required": ["days"]}
    }});
    s.overlays.replace_top(Overlay::Form(FormState::for_schema(
        FormTarget::Tool("weather".into()),
        &schema,
    )));
    insta::assert_snapshot!(support::tui::shot(&s, 100, 14));
}
