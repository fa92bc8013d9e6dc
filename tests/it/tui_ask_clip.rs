//! A hostile server's sampling request cannot push the keys that answer it off the
//! screen: each message shows at most 6 lines, the model's reply at most 8, each with a
//! "… N more lines" mark, and the keys stay pinned to the card's bottom.
#![allow(clippy::unwrap_used)]

use crate::support;

use serde_json::json;
use switchboard::mcp::{Ask, SamplingReply, SamplingRequest};
use switchboard::tui::ask::sampling::clipped;
use switchboard::tui::{Msg, update};

fn numbered(n: usize) -> String {
    (1..=n)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn asked(messages: &serde_json::Value) -> Msg {
    Msg::Asked {
        id: 7,
        ask: Box::new(Ask::Sample(SamplingRequest {
            server: "hostile".into(),
            params: json!({"messages": messages, "maxTokens": 10}),
        })),
    }
}

#[test]
fn a_200_line_message_is_clipped_and_the_keys_stay_on_screen() {
    let mut s = support::tui::state();
    s.status.provider = "scripted".into();
    update(
        &mut s,
        asked(&json!([{"role": "user", "content": {"type": "text", "text": numbered(200)}}])),
    );
    let shot = support::tui::shot(&s, 100, 30);
    insta::assert_snapshot!("ask_sampling_clipped", shot);
    assert!(shot.contains("line 6"), "{shot}");
    assert!(!shot.contains("line 7 "), "{shot}");
    assert!(shot.contains("… 194 more lines"), "{shot}");
    assert!(shot.contains("send to the model"), "{shot}");

    update(
        &mut s,
        Msg::Sampled {
            id: 7,
            result: Ok(SamplingReply {
                model: "offline".into(),
                role: "assistant".into(),
                content: json!({"type": "text", "text": numbered(50)}),
                stop_reason: None,
            }),
        },
    );
    let shot = support::tui::shot(&s, 100, 30);
    insta::assert_snapshot!("ask_sampling_reply_clipped", shot);
    assert!(shot.contains("line 8"), "{shot}");
    assert!(shot.contains("… 42 more lines"), "{shot}");
    assert!(shot.contains("return it to the server"), "{shot}");
}

#[test]
fn many_messages_still_leave_the_keys_visible() {
    let mut s = support::tui::state();
    let many: Vec<_> = (0..200)
        .map(|i| json!({"role": "user", "content": {"type": "text", "text": format!("msg {i}\n{}", "x".repeat(5000))}}))
        .collect();
    update(&mut s, asked(&json!(many)));
    let shot = support::tui::shot(&s, 100, 30);
    assert!(shot.contains("send to the model"), "{shot}");
    assert!(shot.contains("decline"), "{shot}");
}

#[test]
fn clipping_counts_hidden_lines_and_cuts_long_ones() {
    let (shown, more) = clipped(&numbered(10), 6);
    assert_eq!(shown.len(), 6);
    assert_eq!(more, 4);
    let (shown, more) = clipped(&"é".repeat(1000), 6);
    assert_eq!(more, 0);
    assert_eq!(shown[0].chars().count(), 301);
    assert!(shown[0].ends_with('…'));
    assert_eq!(
        clipped("a\nb", 6),
        (vec!["a".to_owned(), "b".to_owned()], 0)
    );
}
