//! The `memory` tool: each `memory_20250818` command's success and error texts, the
//! path rules, and the read-only listing for a Memory pane.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;

use serde_json::{Value, json};
use switchboard::gate::Preview;
use switchboard::tools::Tool;
use switchboard::tools::builtin::{MemoryTool, Root, list_memory_files, read_memory_file};

use crate::support::builtin::{Bench, args, assert_refused, bench};

async fn memory(b: &Bench, call: Value) -> (bool, String) {
    let r = b.call("memory", call).await;
    (r.is_error, r.text_content())
}

async fn ok(b: &Bench, call: Value) -> String {
    let (is_error, text) = memory(b, call).await;
    assert!(!is_error, "{text}");
    text
}

async fn err(b: &Bench, call: Value) -> String {
    let (is_error, text) = memory(b, call).await;
    assert!(is_error, "expected an error, got {text}");
    text
}

#[tokio::test]
async fn lives_under_the_data_dir_per_project() {
    let b = bench("").await;
    let dir = b.summary.memory_dir.clone().unwrap();
    assert!(
        dir.ends_with("switchboard/memories/ws"),
        "{}",
        dir.display()
    );
    let b2 = bench("[tools.memory]\ndir = \"mem\"\n").await;
    assert!(b2.summary.memory_dir.unwrap().ends_with("ws/mem"));
}

#[tokio::test]
async fn create_and_view() {
    let b = bench("").await;
    assert_eq!(
        ok(&b, json!({"command": "view", "path": "/memories"})).await,
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0\t/memories\n"
    );
    assert_eq!(
        ok(&b, json!({"command": "create", "path": "/memories/notes.md", "file_text": "one\ntwo\nthree\n"})).await,
        "File created successfully at: /memories/notes.md"
    );
    assert_eq!(
        err(
            &b,
            json!({"command": "create", "path": "/memories/notes.md", "file_text": "x"})
        )
        .await,
        "Error: File /memories/notes.md already exists"
    );
    assert_eq!(
        ok(&b, json!({"command": "view", "path": "/memories/notes.md"})).await,
        "Here's the content of /memories/notes.md with line numbers:\n     1\tone\n     2\ttwo\n     3\tthree\n"
    );
    assert_eq!(
        ok(
            &b,
            json!({"command": "view", "path": "/memories/notes.md", "view_range": [2, -1]})
        )
        .await,
        "Here's the content of /memories/notes.md with line numbers:\n     2\ttwo\n     3\tthree\n"
    );
    assert_eq!(
        ok(
            &b,
            json!({"command": "view", "path": "/memories/notes.md", "view_range": [1, 1]})
        )
        .await,
        "Here's the content of /memories/notes.md with line numbers:\n     1\tone\n"
    );
    assert_eq!(
        err(
            &b,
            json!({"command": "view", "path": "/memories/notes.md", "view_range": [5, 6]})
        )
        .await,
        "Error: Invalid `view_range`: [5, 6]. Its first element `5` should be within the range of lines of the file: [1, 3]"
    );
    assert_eq!(
        err(&b, json!({"command": "view", "path": "/memories/nope.md"})).await,
        "The path /memories/nope.md does not exist. Please provide a valid path."
    );
}

#[tokio::test]
async fn directory_view_is_two_levels_deep_with_sizes() {
    let b = bench("").await;
    for (path, text) in [
        ("/memories/a.md", "12345"),
        ("/memories/proj/b.md", "1234567890"),
        ("/memories/proj/deep/c.md", "x"),
        ("/memories/proj/deep/deeper/d.md", "x"),
    ] {
        ok(
            &b,
            json!({"command": "create", "path": path, "file_text": text}),
        )
        .await;
    }
    std::fs::write(b.summary.memory_dir.as_ref().unwrap().join(".hidden"), "h").unwrap();
    assert_eq!(
        ok(&b, json!({"command": "view", "path": "/memories"})).await,
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n\
         18\t/memories\n\
         5\t/memories/a.md\n\
         12\t/memories/proj/\n\
         10\t/memories/proj/b.md\n\
         2\t/memories/proj/deep/\n"
    );
}

#[tokio::test]
async fn str_replace_needs_exactly_one_match() {
    let b = bench("").await;
    ok(
        &b,
        json!({"command": "create", "path": "/memories/x.md", "file_text": "a\nb\na\n"}),
    )
    .await;
    assert_eq!(
        err(&b, json!({"command": "str_replace", "path": "/memories/x.md", "old_str": "zzz", "new_str": "y"})).await,
        "No replacement was performed, old_str `zzz` did not appear verbatim in /memories/x.md."
    );
    assert_eq!(
        err(&b, json!({"command": "str_replace", "path": "/memories/x.md", "old_str": "a", "new_str": "y"})).await,
        "No replacement was performed. Multiple occurrences of old_str `a` in lines: 1, 3. Please ensure it is unique"
    );
    let text = ok(
        &b,
        json!({"command": "str_replace", "path": "/memories/x.md", "old_str": "b", "new_str": "B"}),
    )
    .await;
    assert!(
        text.starts_with("The memory file has been edited."),
        "{text}"
    );
    assert!(text.contains("     2\tB\n"), "{text}");
    assert_eq!(
        read_memory_file(b.summary.memory_dir.as_ref().unwrap(), "/memories/x.md").unwrap(),
        "a\nB\na\n"
    );
    assert_eq!(
        err(&b, json!({"command": "str_replace", "path": "/memories/none.md", "old_str": "a", "new_str": "b"})).await,
        "Error: The path /memories/none.md does not exist. Please provide a valid path."
    );
}

#[tokio::test]
async fn insert_at_the_top_the_end_and_out_of_range() {
    let b = bench("").await;
    ok(
        &b,
        json!({"command": "create", "path": "/memories/x.md", "file_text": "a\nb\n"}),
    )
    .await;
    assert_eq!(
        ok(&b, json!({"command": "insert", "path": "/memories/x.md", "insert_line": 0, "insert_text": "top"})).await,
        "The file /memories/x.md has been edited."
    );
    ok(&b, json!({"command": "insert", "path": "/memories/x.md", "insert_line": 3, "insert_text": "end\nmore"})).await;
    let dir = b.summary.memory_dir.clone().unwrap();
    assert_eq!(
        read_memory_file(&dir, "/memories/x.md").unwrap(),
        "top\na\nb\nend\nmore\n"
    );
    assert_eq!(
        err(&b, json!({"command": "insert", "path": "/memories/x.md", "insert_line": 9, "insert_text": "x"})).await,
        "Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 5]"
    );
    assert_eq!(
        err(&b, json!({"command": "insert", "path": "/memories/no.md", "insert_line": 0, "insert_text": "x"})).await,
        "Error: The path /memories/no.md does not exist"
    );
}

#[tokio::test]
async fn delete_and_rename() {
    let b = bench("").await;
    ok(
        &b,
        json!({"command": "create", "path": "/memories/a/x.md", "file_text": "x"}),
    )
    .await;
    assert_eq!(
        err(&b, json!({"command": "delete", "path": "/memories"})).await,
        "Error: Cannot delete the /memories directory itself"
    );
    assert_eq!(
        ok(&b, json!({"command": "rename", "old_path": "/memories/a/x.md", "new_path": "/memories/b/c/y.md"})).await,
        "Successfully renamed /memories/a/x.md to /memories/b/c/y.md"
    );
    let dir = b.summary.memory_dir.clone().unwrap();
    assert_eq!(
        list_memory_files(&dir),
        vec![("/memories/b/c/y.md".to_owned(), 1)]
    );
    ok(
        &b,
        json!({"command": "create", "path": "/memories/z.md", "file_text": "z"}),
    )
    .await;
    assert_eq!(
        err(&b, json!({"command": "rename", "old_path": "/memories/z.md", "new_path": "/memories/b/c/y.md"})).await,
        "Error: The destination /memories/b/c/y.md already exists"
    );
    assert_eq!(
        err(
            &b,
            json!({"command": "rename", "old_path": "/memories/q.md", "new_path": "/memories/r.md"})
        )
        .await,
        "Error: The path /memories/q.md does not exist"
    );
    assert_eq!(
        ok(&b, json!({"command": "delete", "path": "/memories/b"})).await,
        "Successfully deleted /memories/b"
    );
    assert_eq!(
        err(&b, json!({"command": "delete", "path": "/memories/b"})).await,
        "Error: The path /memories/b does not exist"
    );
    assert_eq!(
        list_memory_files(&dir),
        vec![("/memories/z.md".to_owned(), 1)]
    );
}

#[tokio::test]
async fn paths_stay_under_memories() {
    let b = bench("").await;
    let dir = b.summary.memory_dir.clone().unwrap();
    symlink(&b.outside, dir.join("out")).unwrap();
    let before = b.snapshot();
    let text = err(&b, json!({"command": "view", "path": "/etc/passwd"})).await;
    assert_eq!(
        text,
        "Error: The path /etc/passwd is not allowed: memory paths must start with /memories"
    );
    let text = err(
        &b,
        json!({"command": "create", "path": "/memories/../escape.md", "file_text": "x"}),
    )
    .await;
    assert!(text.contains("`..` is not allowed"), "{text}");
    let text = err(
        &b,
        json!({"command": "view", "path": "/memories/out/secret.txt"}),
    )
    .await;
    assert!(text.contains("out is a symbolic link"), "{text}");
    let text = err(
        &b,
        json!({"command": "create", "path": "/memories/out/new.md", "file_text": "x"}),
    )
    .await;
    assert!(text.contains("out is a symbolic link"), "{text}");
    let text = err(&b, json!({"command": "delete", "path": "/memories/out"})).await;
    assert!(text.contains("out is a symbolic link"), "{text}");
    let r = b
        .call(
            "memory",
            json!({"command": "rename", "old_path": "/memories/out", "new_path": "/memories/in"}),
        )
        .await;
    assert_refused(&r, "out is a symbolic link");
    let text = err(&b, json!({"command": "view", "path": "/memoriesx"})).await;
    assert!(text.contains("must start with /memories"), "{text}");
    assert_eq!(b.snapshot(), before);
}

#[test]
fn edits_preview_as_diffs() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("x.md"), "keep\nold\n").unwrap();
    let tool = MemoryTool::new(Root::new(tmp.path()).unwrap());
    let a = args(
        json!({"command": "str_replace", "path": "/memories/x.md", "old_str": "old", "new_str": "new"}),
    );
    let Some(Preview::Diff { unified, .. }) = tool.preview(&a) else {
        panic!("no diff")
    };
    assert!(unified.contains("-old\n+new\n"), "{unified}");
    let a = args(json!({"command": "create", "path": "/memories/n.md", "file_text": "hello\n"}));
    let Some(Preview::Diff { unified, .. }) = tool.preview(&a) else {
        panic!("no diff")
    };
    assert!(unified.contains("+hello\n"), "{unified}");
}
