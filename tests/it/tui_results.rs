#![allow(clippy::unwrap_used)]
//! Reading a resource from the composer and saving it with `/save`: the read is kept,
//! binary items get a hint, `/save` becomes a command with the read's contents, and
//! its outcome lands in the transcript.

use crate::support;
use switchboard::agent::AgentEvent;
use switchboard::gate::{CallId, GateEvent};
use switchboard::keymap::{Key, KeyCode};
use switchboard::mcp::ResourceRead;
use switchboard::policy::{Origin, ToolEffect};
use switchboard::tools::ContentBlock;
use switchboard::tui::result_view::{describe_read, save_blocks};
use switchboard::tui::state::{ChatEntry, ChatKind, LastContents, State};
use switchboard::tui::{CallCmd, Cmd, FileCmd, Msg, update};

use crate::support::tui::state;

fn send(state: &mut State, line: &str) -> Vec<Cmd> {
    let mut cmds = update(state, Msg::Paste(line.into()));
    cmds.extend(update(state, Msg::Key(Key::plain(KeyCode::Enter))));
    cmds
}

fn png_and_text() -> ResourceRead {
    ResourceRead {
        contents: vec![
            ContentBlock::EmbeddedResource {
                uri: "test://logo".into(),
                mime: Some("image/png".into()),
                text: None,
                blob: Some("iVBORw0KGgo=".into()),
            },
            ContentBlock::EmbeddedResource {
                uri: "test://readme".into(),
                mime: Some("text/plain".into()),
                text: Some("hello".into()),
                blob: None,
            },
        ],
        ui_meta: None,
    }
}

#[test]
fn read_then_save_sends_the_kept_contents() {
    let mut s = state();
    assert_eq!(
        send(&mut s, "/read files test://logo"),
        vec![Cmd::Call(CallCmd::ReadResource {
            call_id: CallId::new("manual-1"),
            server: "files".into(),
            uri: "test://logo".into()
        })]
    );
    let last = LastContents {
        source: "files read test://logo".into(),
        blocks: png_and_text().contents,
    };
    update(&mut s, Msg::Contents(Box::new(last.clone())));
    assert_eq!(s.last_contents, Some(last));

    assert_eq!(
        send(&mut s, "/save logo.png"),
        vec![Cmd::Files(FileCmd::SaveContents {
            blocks: png_and_text().contents,
            item: 1,
            path: "logo.png".into(),
            overwrite: false,
        })]
    );
    assert_eq!(
        send(&mut s, "/save! notes.txt 2"),
        vec![Cmd::Files(FileCmd::SaveContents {
            blocks: png_and_text().contents,
            item: 2,
            path: "notes.txt".into(),
            overwrite: true,
        })]
    );

    update(
        &mut s,
        Msg::Saved(Ok("saved 8 bytes (image/png) to logo.png".into())),
    );
    update(&mut s, Msg::Saved(Err("logo.png exists".into())));
    let tail: Vec<_> = s.chat.entries.iter().rev().take(2).rev().cloned().collect();
    assert_eq!(
        tail,
        vec![
            ChatEntry::new(ChatKind::Note, "saved 8 bytes (image/png) to logo.png"),
            ChatEntry::new(ChatKind::Error, "save: logo.png exists"),
        ]
    );
}

#[test]
fn save_without_a_read_or_with_bad_words_says_how() {
    let mut s = state();
    assert!(send(&mut s, "/save out.bin").is_empty());
    assert!(
        s.chat
            .entries
            .last()
            .unwrap()
            .text
            .contains("/read SERVER URI or call a tool first")
    );
    s.last_contents = Some(LastContents {
        source: "f read u".into(),
        blocks: png_and_text().contents,
    });
    assert!(send(&mut s, "/save").is_empty());
    assert!(
        s.chat
            .entries
            .last()
            .unwrap()
            .text
            .starts_with("usage: /save FILE [ITEM]")
    );
    assert!(send(&mut s, "/save a.bin two").is_empty());
    assert_eq!(s.chat.entries.last().unwrap().kind, ChatKind::Error);
}

#[test]
fn binary_items_get_a_save_hint_and_saving_writes_the_bytes() {
    let text = describe_read(&png_and_text());
    assert!(text.contains("[blob test://logo image/png"), "{text}");
    assert!(text.contains("/save FILE 1 writes it to a file"), "{text}");
    assert!(!text.contains("FILE 2"), "text items need no hint: {text}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("logo.png");
    let path = path.to_str().unwrap();
    let said = save_blocks(&png_and_text().contents, 1, path, false).unwrap();
    assert!(said.starts_with("saved 8 bytes (image/png)"), "{said}");
    assert_eq!(
        std::fs::read(path).unwrap(),
        [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]
    );
    let refused = save_blocks(&png_and_text().contents, 1, path, false).unwrap_err();
    assert!(refused.contains("/save! "), "{refused}");
}

#[test]
fn long_results_keep_their_whole_text_and_fold_until_expanded() {
    use switchboard::tui::transcript::{TranscriptLine, layout_transcript};
    let mut s = state();
    let text = (1..=100)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    support::tui::request_done(&mut s, "manual-1", "read files test://big", &text, true);
    let entry = s.chat.entries.last().unwrap();
    let card = entry.card.as_ref().unwrap();
    assert!(
        card.result.as_ref().unwrap().contains("line 100"),
        "full text kept"
    );
    let shown = |expanded| {
        layout_transcript(std::slice::from_ref(entry), 80, expanded)
            .into_iter()
            .filter_map(|l| match l {
                TranscriptLine::Body(_, pieces) => Some(pieces[0].1.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let folded = shown(false);
    assert_eq!(folded.len(), 41);
    assert_eq!(folded[40], "… 60 more lines (e shows all)");
    let all = shown(true);
    assert_eq!(all.last().unwrap(), "line 100");
}

fn mixed() -> switchboard::tools::ToolResult {
    switchboard::tools::ToolResult {
        content: vec![
            ContentBlock::Text {
                text: "hello \u{1b}[31mworld".into(),
            },
            ContentBlock::Image {
                mime: "image/png".into(),
                data: "aGVsbG8=".into(),
            },
            ContentBlock::Audio {
                mime: "audio/wav".into(),
                data: "A".repeat(4 * 2048),
            },
            ContentBlock::ResourceLink {
                uri: "test://text/1".into(),
                name: "text-1".into(),
                mime: Some("text/plain".into()),
            },
            ContentBlock::EmbeddedResource {
                uri: "test://text/2".into(),
                mime: Some("text/plain".into()),
                text: Some("embedded".into()),
                blob: None,
            },
        ],
        structured: Some(serde_json::json!({"sum": 3, "items": ["a"]})),
        structured_mismatch: Vec::new(),
        oversized: None,
        is_error: false,
        metadata: serde_json::Value::Null,
    }
}

#[test]
fn a_result_with_mixed_blocks_labels_each_one() {
    use switchboard::tui::result_view::describe_result;
    let text = describe_result(&mixed());
    assert_eq!(
        text,
        "▸ text\nhello world\n▸ image image/png · 5 bytes  · /save FILE 2\n\
         ▸ audio audio/wav · 6.0 KiB  · /save FILE 3\n\
         ▸ link test://text/1 · text-1 · text/plain\n▸ resource test://text/2 · text/plain\n\
         embedded\n▸ structured content\n{\n  \"sum\": 3,\n  \"items\": [\n    \"a\"\n  ]\n}\n"
    );
    // A lone text block stays as it is.
    assert_eq!(
        describe_result(&switchboard::tools::ToolResult::text("just this")),
        "just this\n"
    );

    let mut s = state();
    support::tui::request_done(&mut s, "manual-1", "prompt t mixed", &text, true);
    insta::assert_snapshot!(support::tui::shot(&s, 100, 32));
}

#[test]
fn a_running_call_shows_its_progress_bar() {
    let mut s = state();
    s.catalog
        .items
        .tools
        .push(switchboard::tui::state::CatalogEntry {
            name: "test__slow".into(),
            ..Default::default()
        });
    let cmds = send(&mut s, "/call test__slow seconds=10");
    assert_eq!(cmds.len(), 1, "{cmds:?}");
    // What the executor records for it: requested, then started at the gate.
    let call_id = CallId::new("manual-1");
    update(
        &mut s,
        Msg::Agent(Box::new(AgentEvent::ToolCallRequested {
            run_id: "manual-1".into(),
            call_id: call_id.clone(),
            tool: "test__slow".into(),
            args: serde_json::json!({"seconds": 10}),
            origin: Origin::Manual,
        })),
    );
    update(
        &mut s,
        Msg::Agent(Box::new(AgentEvent::Gate(GateEvent::ToolCallStarted {
            call_id,
            run_id: "manual-1".into(),
            tool: "test__slow".into(),
            effect: ToolEffect::Read,
            origin: Origin::Manual,
        }))),
    );
    update(&mut s, Msg::Tick(2_300));
    update(
        &mut s,
        Msg::Progress {
            server: "test".into(),
            call_id: Some(CallId::new("manual-1")),
            progress: 7.0,
            total: Some(10.0),
            message: Some("copying \u{1b}[2Jfiles".into()),
        },
    );
    insta::assert_snapshot!(support::tui::shot(&s, 100, 16));
}

#[test]
fn an_oversized_result_shows_its_first_part_and_can_be_saved_whole() {
    use switchboard::tui::result_view::describe_result;
    let whole = (1..=5000)
        .map(|i| format!("row {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut result = switchboard::tools::ToolResult::error(
        "mcp_call_failed: server t: limit max_result_chars (200000) exceeded",
    );
    result.oversized = Some(vec![ContentBlock::Text {
        text: whole.clone(),
    }]);
    let text = describe_result(&result);
    assert!(text.starts_with("mcp_call_failed"), "{text}");
    assert!(text.contains("the whole result is kept for you: /save FILE"));
    assert!(text.contains("row 1\n") && text.contains("row 5000"));
    // The card folds it after 40 lines; /save writes the kept blocks whole.
    let mut s = state();
    s.chat.entries.clear();
    support::tui::request_done(&mut s, "manual-1", "t__big", &text, false);
    let screen = support::tui::shot(&s, 100, 50);
    assert!(screen.contains("more lines (e shows all)"), "{screen}");

    let mut mismatch = switchboard::tools::ToolResult::text("sum is 3");
    mismatch.structured = Some(serde_json::json!({"sum": "three"}));
    mismatch.structured_mismatch = vec!["sum: expected a number".into()];
    assert!(describe_result(&mismatch).contains(
        "⚠ the structured content does not match the tool's output schema: sum: expected a number"
    ));
}
