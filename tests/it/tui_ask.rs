//! Servers that ask, on screen: the elicitation form built from `requestedSchema`
//! (defaults, titled and multi-select enums, required fields, validation), URL mode,
//! the sampling card; the keys that answer each, and snapshots of every state.
#![allow(clippy::unwrap_used)]

use crate::support;

use crate::support::tui::typed;
use serde_json::{Value, json};
use switchboard::keymap::{Key, KeyCode, Layer};
use switchboard::mcp::{
    Answer, Ask, ElicitationAnswer, ElicitationKind, ElicitationRequest, SamplingReply,
    SamplingRequest,
};
use switchboard::tui::ask::AskView;
use switchboard::tui::ask::elicit::{ElicitForm, FieldKind};
use switchboard::tui::ask::sampling::SampleStage;
use switchboard::tui::{AskCmd, Cmd, Msg, State, UiCmd, update};

fn trip() -> Value {
    json!({"type": "object", "properties": {
        "email": {"type": "string", "title": "Email", "format": "email", "description": "Where the ticket goes"},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 14, "default": 3},
        "class": {"type": "string", "title": "Class", "oneOf": [
            {"const": "eco", "title": "Economy"}, {"const": "biz", "title": "Business"}], "default": "eco"},
        "meals": {"type": "array", "title": "Meals", "items": {"type": "string", "enum": ["breakfast", "lunch", "dinner"]},
            "default": ["breakfast"]},
        "insured": {"type": "boolean", "title": "Insurance", "default": true},
        "seat": {"type": "string", "enum": ["a", "w"], "enumNames": ["Aisle", "Window"]}
    }, "required": ["email", "nights"]})
}

fn elicit(server: &str, message: &str, kind: ElicitationKind) -> Msg {
    Msg::Asked {
        id: 7,
        ask: Box::new(Ask::Elicit(ElicitationRequest {
            server: server.into(),
            message: message.into(),
            kind,
        })),
    }
}

fn asked_form(schema: Value) -> State {
    let mut s = support::tui::state();
    update(
        &mut s,
        elicit(
            "weather",
            "Tell us about your trip.",
            ElicitationKind::Form { schema },
        ),
    );
    s
}

fn key(s: &mut State, code: KeyCode) -> Vec<Cmd> {
    update(s, Msg::Key(Key::plain(code)))
}

fn answer(cmds: &[Cmd]) -> Answer {
    match cmds {
        [Cmd::Ask(AskCmd::Answer { id: 7, answer })] => (**answer).clone(),
        other => panic!("expected one answer, got {other:?}"),
    }
}

#[test]
fn the_form_follows_the_schema_with_defaults_and_titles() {
    let form = ElicitForm::from_schema(&trip());
    let by = |name: &str| form.fields.iter().find(|f| f.name == name).unwrap();
    assert_eq!(by("nights").value, "3");
    assert!(by("email").required && by("nights").required && !by("class").required);
    let FieldKind::Choice { options } = &by("class").kind else {
        panic!("class is a choice")
    };
    assert_eq!(
        options.iter().map(|o| o.title.as_str()).collect::<Vec<_>>(),
        ["Economy", "Business"]
    );
    assert_eq!(by("class").value, "eco");
    let FieldKind::Choice { options } = &by("seat").kind else {
        panic!("seat is a choice")
    };
    assert_eq!(options[1].title, "Window", "legacy enumNames");
    let FieldKind::Multi { chosen, .. } = &by("meals").kind else {
        panic!("meals is a multi-select")
    };
    assert_eq!(chosen, &[true, false, false]);
    assert_eq!(by("insured").value, "true");
    assert_eq!(form.content(), Err("Email is required".into()));
}

#[test]
fn validation_names_the_field_and_accept_sends_typed_values() {
    let mut s = asked_form(trip());
    assert_eq!(s.layer(), Layer::Ask);
    assert!(
        s.status
            .notice
            .as_ref()
            .unwrap()
            .text
            .starts_with("weather asks: Tell us")
    );
    // Fields in the schema's order.
    let names: Vec<String> = form(&s).fields.iter().map(|f| f.name.clone()).collect();
    assert_eq!(
        names,
        ["email", "nights", "class", "meals", "insured", "seat"]
    );
    assert!(key(&mut s, KeyCode::Enter).is_empty());
    assert_eq!(form(&s).error.as_deref(), Some("Email is required"));
    typed(&mut s, "ann");
    key(&mut s, KeyCode::Enter);
    assert_eq!(
        form(&s).error.as_deref(),
        Some("Email must be a valid email")
    );
    typed(&mut s, "@example.org");
    // Nights: out of range, then fixed.
    key(&mut s, KeyCode::Down);
    key(&mut s, KeyCode::Backspace);
    typed(&mut s, "20");
    key(&mut s, KeyCode::Enter);
    assert_eq!(
        form(&s).error.as_deref(),
        Some("Nights must be between 1 and 14")
    );
    key(&mut s, KeyCode::Backspace);
    // Class: → from Economy to Business.
    key(&mut s, KeyCode::Down);
    key(&mut s, KeyCode::Right);
    // Meals: → to lunch, Space picks it.
    key(&mut s, KeyCode::Down);
    key(&mut s, KeyCode::Right);
    typed(&mut s, " ");
    let cmds = key(&mut s, KeyCode::Enter);
    assert_eq!(
        answer(&cmds),
        Answer::Elicit(ElicitationAnswer::Accept(
            json!({"email": "ann@example.org", "nights": 2, "class": "biz",
                "meals": ["breakfast", "lunch"], "insured": true})
            .as_object()
            .cloned()
            .unwrap()
        ))
    );
    assert!(s.asks.is_empty());
    assert_eq!(s.layer(), Layer::Composer);
    assert_eq!(
        s.chat.entries.last().unwrap().text,
        "weather asked for input: accepted"
    );
}

fn form(s: &State) -> &ElicitForm {
    match &s.asks.front().unwrap().view {
        AskView::Form(f) => f,
        other => panic!("not a form: {other:?}"),
    }
}

#[test]
fn decline_and_cancel_are_told_apart() {
    let mut s = asked_form(trip());
    let cmds = update(&mut s, Msg::Key(Key::ctrl('d')));
    assert_eq!(answer(&cmds), Answer::Elicit(ElicitationAnswer::Decline));
    let mut s = asked_form(trip());
    // Letters are typed into the form, never taken as card keys.
    typed(&mut s, "n");
    assert_eq!(s.asks.len(), 1);
    let cmds = key(&mut s, KeyCode::Esc);
    assert_eq!(answer(&cmds), Answer::Elicit(ElicitationAnswer::Cancel));
    assert_eq!(
        s.chat.entries.last().unwrap().text,
        "weather asked for input: cancelled"
    );
}

#[test]
fn the_server_and_message_are_sanitised() {
    let mut s = support::tui::state();
    update(
        &mut s,
        elicit(
            "evil\x1b[31m",
            "hi\x1b]52;c;AAAA\x07 there",
            ElicitationKind::Form {
                schema: json!({"type": "object", "properties": {
                "x\x1b[2J": {"type": "string", "title": "T\x07itle"}}}),
            },
        ),
    );
    let shot = support::tui::shot(&s, 100, 30);
    assert!(!shot.contains('\x1b') && !shot.contains('\x07'), "{shot}");
    assert!(shot.contains("asks"), "{shot}");
}

#[test]
fn url_mode_opens_or_copies_only_when_asked() {
    let mut s = support::tui::state();
    update(
        &mut s,
        elicit(
            "bank",
            "Sign in to link your account",
            ElicitationKind::Url {
                url: "https://login.bank.example/auth?state=xyz".into(),
                elicitation_id: "e1".into(),
            },
        ),
    );
    insta::assert_snapshot!("ask_url", support::tui::shot(&s, 100, 30));
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('o'))),
        [Cmd::Ui(UiCmd::OpenUrl(
            "https://login.bank.example/auth?state=xyz".into()
        ))]
    );
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('c'))),
        [Cmd::Ui(UiCmd::CopyText(
            "https://login.bank.example/auth?state=xyz".into()
        ))]
    );
    let cmds = update(&mut s, Msg::Key(Key::char('y')));
    assert_eq!(
        answer(&cmds),
        Answer::Elicit(ElicitationAnswer::Accept(serde_json::Map::new()))
    );
    // Not a web page: shown, never opened.
    update(
        &mut s,
        elicit(
            "bank",
            "x",
            ElicitationKind::Url {
                url: "file:///etc/passwd".into(),
                elicitation_id: "e2".into(),
            },
        ),
    );
    assert!(update(&mut s, Msg::Key(Key::char('o'))).is_empty());
    assert_eq!(
        answer(&update(&mut s, Msg::Key(Key::char('n')))),
        Answer::Elicit(ElicitationAnswer::Decline)
    );
}

/// URLElicitationRequiredError (-32042): the failed call's pages come as URL cards
/// that open or copy them; nobody waits, so answering sends nothing.
#[test]
fn pages_a_failed_call_requires_come_as_url_cards_that_send_nothing() {
    let mut s = support::tui::state();
    let page = |url: &str, message: Option<&str>| switchboard::mcp::RequiredPage {
        url: url.into(),
        message: message.map(str::to_owned),
        elicitation_id: Some("e-1".into()),
    };
    update(
        &mut s,
        Msg::PagesRequired {
            server: "github".into(),
            request: "create_issue".into(),
            pages: vec![
                page(
                    "https://github.example/login/oauth?state=\u{1b}[31mx",
                    Some("Connect your account."),
                ),
                page("https://github.example/second", None),
            ],
        },
    );
    assert_eq!(s.asks.len(), 2);
    let screen = support::tui::shot(&s, 100, 30);
    assert!(
        screen.contains("create_issue failed until you visit this page; run it again after."),
        "{screen}"
    );
    assert!(!screen.contains('\u{1b}'));
    insta::assert_snapshot!("ask_url_required", screen);
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('o'))),
        [Cmd::Ui(UiCmd::OpenUrl(
            "https://github.example/login/oauth?state=\u{1b}[31mx".into()
        ))]
    );
    // Done: the card goes, nothing is sent (no AskCmd), a line says so.
    assert!(update(&mut s, Msg::Key(Key::plain(KeyCode::Enter))).is_empty());
    assert_eq!(s.asks.len(), 1);
    assert!(
        s.chat
            .entries
            .iter()
            .any(|e| e.text == "github asked to visit a page: done")
    );
    // A server's `gone` for an id of its own never takes these cards.
    update(&mut s, Msg::AskGone(0));
    assert_eq!(s.asks.len(), 1);
    assert!(update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))).is_empty());
    assert!(s.asks.is_empty());
}

#[test]
fn form_snapshots_defaults_titled_enum_multi_select_and_error() {
    let mut s = asked_form(trip());
    insta::assert_snapshot!("ask_form_defaults", support::tui::shot(&s, 100, 30));
    for _ in 0..3 {
        key(&mut s, KeyCode::Down);
    }
    key(&mut s, KeyCode::Right);
    typed(&mut s, " ");
    key(&mut s, KeyCode::Enter);
    insta::assert_snapshot!(
        "ask_form_multi_select_error",
        support::tui::shot(&s, 100, 30)
    );
}

fn sampling() -> Msg {
    Msg::Asked {
        id: 7,
        ask: Box::new(Ask::Sample(SamplingRequest {
            server: "research".into(),
            params: json!({
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Summarise the paper in one line."}}
                ],
                "systemPrompt": "You are terse.",
                "modelPreferences": {"hints": [{"name": "claude-sonnet"}], "intelligencePriority": 0.8, "costPriority": 0.3},
                "maxTokens": 200,
                "tools": [{"name": "lookup", "inputSchema": {"type": "object"}}]
            }),
        })),
    }
}

#[test]
fn sampling_is_approved_sent_shown_then_returned() {
    let mut s = support::tui::state();
    s.status.provider = "scripted".into();
    update(&mut s, sampling());
    insta::assert_snapshot!("ask_sampling_card", support::tui::shot(&s, 100, 30));
    let cmds = update(&mut s, Msg::Key(Key::char('y')));
    let [
        Cmd::Ask(AskCmd::Sample {
            id: 7,
            server,
            params,
        }),
    ] = cmds.as_slice()
    else {
        panic!("{cmds:?}")
    };
    assert_eq!(server, "research");
    assert_eq!(params["maxTokens"], 200);
    // Nothing goes back while the model works.
    assert!(update(&mut s, Msg::Key(Key::char('y'))).is_empty());
    let reply = SamplingReply {
        model: "offline".into(),
        role: "assistant".into(),
        content: json!({"type": "text", "text": "It proves P = NP, briefly."}),
        stop_reason: Some("endTurn".into()),
    };
    update(
        &mut s,
        Msg::Sampled {
            id: 7,
            result: Ok(reply.clone()),
        },
    );
    insta::assert_snapshot!("ask_sampling_reply", support::tui::shot(&s, 100, 30));
    // The person edits the reply before it goes back.
    update(&mut s, Msg::Edited(Ok("It does not.\n".into())));
    let cmds = update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    let Answer::Sample(Ok(sent)) = answer(&cmds) else {
        panic!("approved")
    };
    assert_eq!(
        sent.content,
        json!({"type": "text", "text": "It does not."})
    );
    assert_eq!(sent.model, "offline");
}

#[test]
fn sampling_can_be_declined_or_fail_and_the_messages_edited() {
    let mut s = support::tui::state();
    update(&mut s, sampling());
    let cmds = update(&mut s, Msg::Key(Key::ctrl('e')));
    let [Cmd::Ui(UiCmd::EditExternally { text, suffix })] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    assert_eq!(suffix, ".json");
    assert!(text.contains("Summarise the paper"), "{text}");
    update(
        &mut s,
        Msg::Edited(Ok(
            r#"[{"role": "user", "content": {"type": "text", "text": "Shorter."}}]"#.into(),
        )),
    );
    update(&mut s, Msg::Key(Key::char('y')));
    update(
        &mut s,
        Msg::Sampled {
            id: 7,
            result: Err("provider: no API key: set the environment variable OPENAI_API_KEY".into()),
        },
    );
    let AskView::Sample(card) = &s.asks.front().unwrap().view else {
        panic!()
    };
    assert_eq!(
        card.messages(),
        [("user".to_owned(), "Shorter.".to_owned())]
    );
    assert!(matches!(&card.stage, SampleStage::Failed(e) if e.contains("OPENAI_API_KEY")));
    insta::assert_snapshot!("ask_sampling_failed", support::tui::shot(&s, 100, 30));
    let cmds = update(&mut s, Msg::Key(Key::char('n')));
    assert!(matches!(answer(&cmds), Answer::Sample(Err(_))));
    assert_eq!(
        s.chat.entries.last().unwrap().text,
        "research asked to use the model: declined"
    );
}

#[test]
fn a_question_the_server_gave_up_on_leaves_the_screen() {
    let mut s = asked_form(trip());
    update(&mut s, Msg::AskGone(7));
    assert!(s.asks.is_empty());
    assert_eq!(
        s.chat.entries.last().unwrap().text,
        "weather asked for input: no longer waits for an answer"
    );
}

/// Ctrl+U erases the field being typed, as in a shell.
#[test]
fn ctrl_u_clears_the_field() {
    let mut s = asked_form(trip());
    typed(&mut s, "ann@example.org");
    assert_eq!(form(&s).fields[0].value, "ann@example.org");
    update(&mut s, Msg::Key(switchboard::keymap::Key::ctrl('u')));
    assert_eq!(form(&s).fields[0].value, "");
}
