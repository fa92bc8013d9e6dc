//! What servers ask the person, queued in arrival order: an elicitation form, a URL
//! to visit, a sampling request to approve. The front one is drawn over everything
//! and takes the keys (`Layer::Ask`) until it is answered; the answer goes back to the
//! waiting server through `AskCmd::Answer` (the executor holds the reply channel).

mod keys;

pub use keys::key;

pub use super::state::{AskId, AskView, PendingAsk, UrlAsk, elicit, sampling};

use crate::mcp::{Ask, ElicitationKind};
use crate::sanitize::sanitize_line;

use super::msg::Cmd;
use super::state::elicit::ElicitForm;
use super::state::sampling::SampleCard;
use super::state::{ChatEntry, ChatKind, NoticeLevel, State};

/// A question arrived: queued, with a notice naming the server.
pub fn arrived(state: &mut State, id: AskId, ask: Ask) -> Vec<Cmd> {
    let (server, message, view) = match ask {
        Ask::Elicit(request) => {
            let view = match &request.kind {
                ElicitationKind::Form { schema } => AskView::Form(ElicitForm::from_schema(schema)),
                ElicitationKind::Url { url, .. } => AskView::Url(UrlAsk::new(url)),
            };
            (request.server, request.message, view)
        }
        Ask::Sample(request) => {
            let card = SampleCard::new(request.params);
            (
                request.server,
                String::new(),
                AskView::Sample(Box::new(card)),
            )
        }
    };
    let server = sanitize_line(&server);
    let what = match &view {
        AskView::Sample(_) => "asks to use the model".to_owned(),
        _ => format!("asks: {}", crate::mcp::untrusted(&message, 80)),
    };
    state.notice(NoticeLevel::Warn, format!("{server} {what}"));
    state.asks.push_back(PendingAsk {
        id,
        server,
        message: crate::sanitize::sanitize(&message).into_owned(),
        view,
        waits: true,
    });
    Vec::new()
}

/// A request failed until the person visits pages (URLElicitationRequiredError,
/// -32042): a URL card for each, which only opens or copies it (the request is
/// over; it is run again once the page is done).
pub fn pages_required(
    state: &mut State,
    server: &str,
    request: &str,
    pages: &[crate::mcp::RequiredPage],
) {
    let server = sanitize_line(server);
    for page in pages {
        let why = page.message.as_deref().map_or_else(String::new, |m| {
            format!("\n{}", crate::sanitize::sanitize(m))
        });
        state.asks.push_back(PendingAsk {
            id: 0,
            server: server.clone(),
            message: format!(
                "{} failed until you visit this page; run it again after.{why}",
                sanitize_line(request)
            ),
            view: AskView::Url(UrlAsk::new(&page.url)),
            waits: false,
        });
    }
    let pages = super::words::count(pages.len(), "page", "pages");
    state.notice(
        NoticeLevel::Warn,
        format!(
            "{server}: {} needs you to visit {pages}",
            sanitize_line(request)
        ),
    );
}

/// The server stopped waiting (its call was cancelled or failed): the question goes.
pub fn gone(state: &mut State, id: AskId) {
    if let Some(at) = state.asks.iter().position(|a| a.waits && a.id == id)
        && let Some(ask) = state.asks.remove(at)
    {
        note(state, &ask, "no longer waits for an answer", ChatKind::Note);
    }
}

/// A line in the transcript: what was asked and what became of it.
pub(super) fn note(state: &mut State, ask: &PendingAsk, outcome: &str, kind: ChatKind) {
    let what = match &ask.view {
        AskView::Form(_) => "asked for input",
        AskView::Url(_) => "asked to visit a page",
        AskView::Sample(_) => "asked to use the model",
    };
    state.chat.show(ChatEntry::new(
        kind,
        format!("{} {what}: {outcome}", ask.server),
    ));
}

/// The provider answered an approved sampling request (or failed).
pub fn sampled(state: &mut State, id: AskId, result: Result<crate::mcp::SamplingReply, String>) {
    let card = state.asks.iter_mut().find(|a| a.id == id);
    if let Some(PendingAsk {
        view: AskView::Sample(card),
        ..
    }) = card
    {
        card.stage = match result {
            Ok(reply) => sampling::SampleStage::Reply(reply),
            Err(e) => sampling::SampleStage::Failed(sanitize_line(&e)),
        };
    }
}

/// The external editor returned the sampling messages or reply.
pub fn edited(state: &mut State, result: Result<String, String>) {
    let Some(PendingAsk {
        view: AskView::Sample(card),
        ..
    }) = state.asks.front_mut()
    else {
        return;
    };
    let outcome = result.and_then(|text| card.edited(&text));
    if let Err(e) = outcome {
        state.notice(NoticeLevel::Error, e);
    }
}
