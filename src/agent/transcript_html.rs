//! A saved session as one self-contained HTML page (`switchboard export --format
//! html`): the messages in order, and a card per call with its tool, arguments, who
//! decided, how it ended and its result. The page has its style inline and loads
//! nothing (its Content-Security-Policy forbids it, and scripts); every text from the
//! session is escaped, and secrets are masked as the wire capture masks them
//! (`mcp::wire::mask`: members with secret names, credentials in URLs).

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::event::AgentEvent;
use super::store::StoredEvent;
use crate::gate::{CallEnd, GateEvent};
use crate::llm::Usage;
use crate::mcp::wire::mask;
use crate::policy::Origin;

use crate::sanitize::escape_markup as escape;

/// Free text with credentials masked as the wire capture masks a string.
fn masked(text: &str) -> String {
    match mask::message(&Value::String(text.to_owned())) {
        Value::String(text) => text,
        _ => String::new(),
    }
}

/// JSON with secret members masked, pretty-printed.
fn masked_json(value: &Value) -> String {
    serde_json::to_string_pretty(&mask::message(value)).unwrap_or_default()
}

/// One call (or read, prompt) as its card shows it.
#[derive(Debug, Default)]
struct Card {
    call_id: String,
    what: String,
    origin: Option<Origin>,
    args: Option<Value>,
    effect: Option<&'static str>,
    /// Why the gate asked the person.
    asked: Option<String>,
    /// Who decided, from the gate's ruling.
    decision: Option<String>,
    outcome: Option<CallEnd>,
    duration_ms: Option<u64>,
    result: Option<String>,
    is_error: bool,
    truncated: bool,
    structured: Option<Value>,
}

/// What the page shows, in order.
enum Item {
    Started { text: String, time: String },
    User { text: String, time: String },
    Assistant { text: String },
    Card(usize),
    Note { class: &'static str, text: String },
}

#[derive(Default)]
struct Page {
    items: Vec<Item>,
    cards: Vec<Card>,
    /// The latest card of each call id.
    open: HashMap<String, usize>,
    usage: Usage,
}

impl Page {
    fn card(&mut self, call_id: &str, what: &str) -> &mut Card {
        let index = match self.open.get(call_id) {
            Some(&i) => i,
            None => self.new_card(call_id, what),
        };
        &mut self.cards[index]
    }

    fn new_card(&mut self, call_id: &str, what: &str) -> usize {
        let index = self.cards.len();
        self.cards.push(Card {
            call_id: call_id.to_owned(),
            what: what.to_owned(),
            ..Card::default()
        });
        self.items.push(Item::Card(index));
        self.open.insert(call_id.to_owned(), index);
        index
    }

    fn add(&mut self, stored: &StoredEvent) {
        match &stored.event {
            AgentEvent::SessionStarted {
                provider,
                model,
                workspace,
                ..
            } => {
                let mut text = format!("{provider} · {model}");
                if let Some(workspace) = workspace {
                    let _ = write!(text, " · {workspace}");
                }
                self.items.push(Item::Started {
                    text,
                    time: stored.time.clone(),
                });
            }
            AgentEvent::TurnStarted { text, .. } => self.items.push(Item::User {
                text: text.clone(),
                time: stored.time.clone(),
            }),
            AgentEvent::ModelResponse { text, .. } if !text.trim().is_empty() => {
                self.items.push(Item::Assistant { text: text.clone() });
            }
            AgentEvent::HookNote { hook, text, .. } => self.items.push(Item::Note {
                class: "note",
                text: format!("hook {hook}: {text}"),
            }),
            AgentEvent::Notice { message, .. } => self.items.push(Item::Note {
                class: "note",
                text: message.clone(),
            }),
            AgentEvent::Error { message, .. } => self.items.push(Item::Note {
                class: "failure",
                text: message.clone(),
            }),
            AgentEvent::TurnDone { usage, .. } => self.usage += *usage,
            AgentEvent::Gate(event) => self.gate(event),
            event => self.call(event),
        }
    }

    /// A call asked for, a request, and what they gave.
    fn call(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::ToolCallRequested {
                call_id,
                tool,
                args,
                origin,
                ..
            } => {
                let index = self.new_card(call_id.as_str(), tool);
                self.cards[index].origin = Some(*origin);
                self.cards[index].args = Some(args.clone());
            }
            AgentEvent::RequestStarted { call_id, label, .. } => {
                let index = self.new_card(call_id.as_str(), label);
                self.cards[index].origin = Some(Origin::Manual);
            }
            AgentEvent::ToolResult {
                call_id,
                tool,
                is_error,
                content,
                truncated,
                outcome,
                structured,
                ..
            } => {
                let card = self.card(call_id.as_str(), tool);
                card.result = Some(content.clone());
                card.is_error = *is_error;
                card.truncated = *truncated;
                card.structured.clone_from(structured);
                card.outcome = outcome.or(card.outcome);
            }
            AgentEvent::RequestFinished {
                call_id,
                outcome,
                text,
                duration_ms,
                ..
            } => {
                let card = self.card(call_id.as_str(), "request");
                card.result = Some(text.clone());
                card.is_error = *outcome != CallEnd::Ok;
                card.outcome = Some(*outcome);
                card.duration_ms = Some(*duration_ms);
            }
            _ => {}
        }
    }

    fn gate(&mut self, event: &GateEvent) {
        match event {
            GateEvent::ToolCallStarted {
                call_id,
                tool,
                effect,
                origin,
                ..
            } => {
                let card = self.card(call_id.as_str(), tool);
                card.effect = Some(effect.as_str());
                card.origin = card.origin.or(Some(*origin));
            }
            GateEvent::ApprovalRequested(request) => {
                let card = self.card(request.call_id.as_str(), &request.tool);
                card.asked = Some(request.reason.clone());
            }
            GateEvent::ApprovalResolved { .. } => {}
            GateEvent::ToolCallFinished {
                call_id,
                tool,
                outcome,
                ruling,
                summary,
                duration_ms,
                ..
            } => {
                let card = self.card(call_id.as_str(), tool);
                card.outcome = Some(*outcome);
                card.decision = ruling.as_ref().map(crate::gate::Ruling::describe);
                card.duration_ms = Some(*duration_ms);
                // A nested call (an agent's) has no result of its own: the summary.
                if card.result.is_none() {
                    card.result = Some(summary.clone());
                    card.is_error = *outcome != CallEnd::Ok;
                }
            }
        }
    }
}

const STYLE: &str = "
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e;
  --line: #d1d9e0; --card: #f6f8fa; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117;
  --muted: #9198a1; --line: #3d444d; --card: #151b23; --ok: #3fb950; --bad: #f85149;
  --warn: #d29922; } }
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg);
  max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.3rem; } h2 { font-size: 1rem; margin: 0 0 .3rem; }
h3 { font-size: .95rem; margin: 0 0 .4rem; }
.meta, time, .muted { color: var(--muted); font-size: .85rem; font-weight: normal; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0;
  font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
section { margin: 1.2rem 0; }
section.user { border-left: 3px solid var(--muted); padding-left: .8rem; }
article.card { background: var(--card); border: 1px solid var(--line);
  border-left: 4px solid var(--muted); border-radius: 6px; padding: .6rem .8rem;
  margin: .8rem 0; }
article.ok { border-left-color: var(--ok); }
article.error, article.denied, article.failed { border-left-color: var(--bad); }
article.aborted, article.cancelled { border-left-color: var(--warn); }
.outcome { font-weight: 600; } .ok .outcome { color: var(--ok); }
.error .outcome, .denied .outcome, .failed .outcome { color: var(--bad); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem .8rem; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; min-width: 0; }
dd.failure pre, p.failure { color: var(--bad); }
p.note, p.failure { font-size: .9rem; }
footer { border-top: 1px solid var(--line); margin-top: 2rem; padding-top: .6rem; }
";

/// The session `id` as one HTML page.
pub fn to_html(id: &str, events: &[StoredEvent]) -> String {
    let mut page = Page::default();
    for event in events {
        page.add(event);
    }
    let id = escape(id);
    let mut out = String::with_capacity(4096 + events.len() * 256);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'\">\n<title>switchboard session {id}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n\
         <header><h1>switchboard session <code>{id}</code></h1></header>\n<main>\n"
    );
    for item in &page.items {
        item_html(&mut out, item, &page.cards);
    }
    let _ = write!(
        out,
        "</main>\n<footer class=\"muted\">Tokens: {} in, {} out.</footer>\n</body>\n</html>\n",
        page.usage.input_tokens, page.usage.output_tokens
    );
    out
}

fn item_html(out: &mut String, item: &Item, cards: &[Card]) {
    match item {
        Item::Started { text, time } => {
            let _ = writeln!(
                out,
                "<p class=\"meta\">{} · started <time>{}</time></p>",
                escape(&masked(text)),
                escape(time)
            );
        }
        Item::User { text, time } => {
            let _ = writeln!(
                out,
                "<section class=\"user\"><h2>You <time>{}</time></h2><pre>{}</pre></section>",
                escape(time),
                escape(&masked(text))
            );
        }
        Item::Assistant { text } => {
            let _ = writeln!(
                out,
                "<section class=\"assistant\"><h2>Assistant</h2><pre>{}</pre></section>",
                escape(&masked(text))
            );
        }
        Item::Note { class, text } => {
            let _ = writeln!(out, "<p class=\"{class}\">{}</p>", escape(&masked(text)));
        }
        Item::Card(index) => {
            if let Some(card) = cards.get(*index) {
                card_html(out, card);
            }
        }
    }
}

fn card_html(out: &mut String, card: &Card) {
    let outcome = card.outcome.map_or("unfinished", CallEnd::as_str);
    let by = match card.origin {
        Some(Origin::Manual) => "you",
        Some(origin) => origin.as_str(),
        None => "",
    };
    let _ = write!(
        out,
        "<article class=\"card {outcome}\">\n<h3><code>{}</code> <span class=\"muted\">{by}\
         </span> · <span class=\"outcome\">{outcome}</span></h3>\n<dl>\n",
        escape(&masked(&card.what))
    );
    let mut facts = vec![format!("<code>{}</code>", escape(&card.call_id))];
    facts.extend(card.effect.map(str::to_owned));
    facts.extend(card.duration_ms.map(|ms| format!("{ms} ms")));
    let _ = writeln!(out, "<dt>Call</dt><dd>{}</dd>", facts.join(" · "));
    if let Some(asked) = &card.asked {
        let _ = writeln!(out, "<dt>Asked</dt><dd>{}</dd>", escape(&masked(asked)));
    }
    if let Some(decision) = &card.decision {
        let _ = writeln!(
            out,
            "<dt>Decision</dt><dd>{}</dd>",
            escape(&masked(decision))
        );
    }
    if let Some(args) = &card.args {
        let _ = writeln!(
            out,
            "<dt>Arguments</dt><dd><pre>{}</pre></dd>",
            escape(&masked_json(args))
        );
    }
    if let Some(result) = &card.result {
        let (label, class) = if card.is_error {
            ("Error", " class=\"failure\"")
        } else {
            ("Result", "")
        };
        let cut = if card.truncated {
            " <span class=\"muted\">(cut for the model)</span>"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<dt>{label}</dt><dd{class}><pre>{}</pre>{cut}</dd>",
            escape(&masked(result))
        );
    }
    if let Some(structured) = &card.structured {
        let _ = writeln!(
            out,
            "<dt>Structured</dt><dd><pre>{}</pre></dd>",
            escape(&masked_json(structured))
        );
    }
    out.push_str("</dl>\n</article>\n");
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::gate::CallId;

    fn at(event: AgentEvent) -> StoredEvent {
        StoredEvent {
            time: "2026-01-02T03:04:05Z".into(),
            event,
        }
    }

    #[test]
    fn escapes_everything_that_could_be_markup() {
        assert_eq!(
            escape("<script>alert(\"x\" & 'y')</script>\u{7}"),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;\u{fffd}"
        );
    }

    #[test]
    fn a_card_has_its_call_masked_and_escaped() {
        let events = [
            at(AgentEvent::ToolCallRequested {
                run_id: "r".into(),
                call_id: CallId::new("c1"),
                tool: "demo__echo".into(),
                args: json!({"text": "<b>hi</b>", "api_key": "sk-live-123"}),
                origin: Origin::Model,
            }),
            at(AgentEvent::ToolResult {
                run_id: "r".into(),
                call_id: CallId::new("c1"),
                tool: "demo__echo".into(),
                is_error: true,
                content: "https://u:hunter2@example.com/?access_token=abc".into(),
                truncated: false,
                outcome: Some(CallEnd::Error),
                structured: Some(json!({"password": "pw", "ok": false})),
            }),
        ];
        let html = to_html("s1", &events);
        assert!(html.contains("&lt;b&gt;hi&lt;/b&gt;"), "{html}");
        assert!(
            !html.contains("sk-live-123") && !html.contains("hunter2"),
            "{html}"
        );
        assert!(
            !html.contains("access_token=abc") && !html.contains("\"pw\""),
            "{html}"
        );
        assert!(html.contains("<article class=\"card error\">"), "{html}");
        assert!(
            html.contains("<dt>Error</dt><dd class=\"failure\">"),
            "{html}"
        );
        assert!(
            !html.contains("<script") && !html.contains("src="),
            "{html}"
        );
    }
}
