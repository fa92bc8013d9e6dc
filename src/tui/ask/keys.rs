//! Keys while a server asks: form fields take typed keys; Enter accepts, Ctrl+D (or
//! `n` on a card) declines, Esc cancels; `o`/`c` open or copy a URL; `y` approves a
//! sampling request, then its reply; Ctrl+E edits the messages or the reply.

use serde_json::Map;

use crate::keymap::{Action, Key, KeyCode};
use crate::mcp::{Answer, ElicitationAnswer};

use super::super::msg::{AskCmd, Cmd, Handled, UiCmd};
use super::super::state::{ChatKind, NoticeLevel, State};
use super::sampling::SampleStage;
use super::{AskView, PendingAsk, note};

pub fn key(state: &mut State, key: Key, action: Option<Action>) -> Handled {
    let Some(front) = state.asks.front_mut() else {
        return Handled::nothing();
    };
    if let AskView::Form(form) = &mut front.view {
        // Typed keys belong to the form: the letter bindings are for the cards.
        if let Some(c) = key.typed_char() {
            if !(c == ' ' && form.toggle())
                && let Some(text) = form.text_mut()
            {
                text.push(c);
            }
            form.error = None;
            return Handled::nothing();
        }
        if key.code == KeyCode::Backspace || key.clears_line() {
            if let Some(text) = form.text_mut() {
                if key.clears_line() {
                    text.clear();
                } else {
                    text.pop();
                }
            }
            return Handled::nothing();
        }
    }
    match action {
        Some(Action::Activate | Action::ApproveOnce) => accept(state).into(),
        Some(Action::Deny) => refuse(state, false).into(),
        Some(Action::Close) => refuse(state, true).into(),
        Some(Action::Up | Action::Down | Action::PrevTab | Action::NextTab) => {
            if let AskView::Form(form) = &mut front.view {
                match action {
                    Some(Action::Up) => form.sel = form.sel.saturating_sub(1),
                    Some(Action::Down) => {
                        form.sel = (form.sel + 1).min(form.fields.len().saturating_sub(1));
                    }
                    Some(Action::PrevTab) => form.cycle(-1),
                    _ => form.cycle(1),
                }
            }
            Handled::nothing()
        }
        Some(Action::OpenUrl | Action::CopyUrl) => url_action(state, action).into(),
        Some(Action::ExternalEditor) => match &front.view {
            AskView::Sample(card) => match &card.stage {
                SampleStage::Review => edit(card.messages_json(), ".json"),
                SampleStage::Reply(reply) => {
                    edit(super::sampling::content_text(&reply.content), ".md")
                }
                _ => Handled::nothing(),
            },
            _ => Handled::nothing(),
        },
        Some(other) => Handled::Unhandled(other),
        None => Handled::nothing(),
    }
}

fn edit(text: String, suffix: &str) -> Handled {
    vec![
        UiCmd::EditExternally {
            text,
            suffix: suffix.into(),
        }
        .into(),
    ]
    .into()
}

fn url_action(state: &mut State, action: Option<Action>) -> Vec<Cmd> {
    let Some(AskView::Url(url)) = state.asks.front().map(|a| &a.view) else {
        return Vec::new();
    };
    if action == Some(Action::CopyUrl) {
        let cmd = UiCmd::CopyText(url.raw.clone()).into();
        state.notice(
            NoticeLevel::Info,
            "URL copied (if the terminal allows OSC 52)",
        );
        return vec![cmd];
    }
    if !url.web {
        state.notice(NoticeLevel::Warn, "only http and https pages are opened");
        return Vec::new();
    }
    vec![UiCmd::OpenUrl(url.raw.clone()).into()]
}

/// Enter / `y`: accept the form (once valid), say the page was visited, approve the
/// sampling request (then its reply).
fn accept(state: &mut State) -> Vec<Cmd> {
    let Some(front) = state.asks.front_mut() else {
        return Vec::new();
    };
    let id = front.id;
    let answer = match &mut front.view {
        AskView::Form(form) => match form.content() {
            Ok(content) => Answer::Elicit(ElicitationAnswer::Accept(content)),
            Err(e) => {
                form.error = Some(e);
                return Vec::new();
            }
        },
        AskView::Url(_) => Answer::Elicit(ElicitationAnswer::Accept(Map::new())),
        AskView::Sample(card) => match &card.stage {
            SampleStage::Review | SampleStage::Failed(_) => {
                card.stage = SampleStage::Running;
                return vec![
                    AskCmd::Sample {
                        id,
                        server: front.server.clone(),
                        params: card.params.clone(),
                    }
                    .into(),
                ];
            }
            SampleStage::Running => return Vec::new(),
            SampleStage::Reply(reply) => Answer::Sample(Ok(reply.clone())),
        },
    };
    finish(state, answer, "accepted")
}

/// Ctrl+D / `n` declines; Esc cancels (for sampling both reject).
fn refuse(state: &mut State, cancel: bool) -> Vec<Cmd> {
    let Some(front) = state.asks.front() else {
        return Vec::new();
    };
    let (answer, outcome) = match (&front.view, cancel) {
        (AskView::Sample(_), _) => (
            Answer::Sample(Err(crate::mcp::SampleRefusal::Declined)),
            "declined",
        ),
        (_, true) => (Answer::Elicit(ElicitationAnswer::Cancel), "cancelled"),
        (_, false) => (Answer::Elicit(ElicitationAnswer::Decline), "declined"),
    };
    finish(state, answer, outcome)
}

fn finish(state: &mut State, answer: Answer, outcome: &str) -> Vec<Cmd> {
    let Some(ask): Option<PendingAsk> = state.asks.pop_front() else {
        return Vec::new();
    };
    if !ask.waits {
        // Nobody waits: the card goes, and nothing is sent.
        let outcome = if outcome == "accepted" {
            "done"
        } else {
            "closed"
        };
        note(state, &ask, outcome, ChatKind::Note);
        return Vec::new();
    }
    note(state, &ask, outcome, ChatKind::Note);
    vec![
        AskCmd::Answer {
            id: ask.id,
            answer: Box::new(answer),
        }
        .into(),
    ]
}
