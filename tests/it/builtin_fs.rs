//! The `fs` tool: what it does, and an attack corpus where each case checks the
//! refusal message and that nothing changed on disk.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use switchboard::config::FsToolConfig;
use switchboard::gate::Preview;
use switchboard::tools::Tool;
use switchboard::tools::builtin::{FsTool, Root};

use crate::support;
use crate::support::builtin::{args, assert_refused, bench};

#[tokio::test]
async fn writes_reads_lists_stats_and_deletes() {
    let b = bench("").await;
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "docs/a.md", "content": "one\ntwo\nthree\n"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text_content());
    assert_eq!(r.text_content(), "created docs/a.md (14 bytes)");
    assert_eq!(
        std::fs::read_to_string(b.workspace.join("docs/a.md")).unwrap(),
        "one\ntwo\nthree\n"
    );
    let r = b
        .call("fs", json!({"operation": "read", "path": "docs/a.md"}))
        .await;
    assert_eq!(r.text_content(), "one\ntwo\nthree\n");
    let r = b
        .call(
            "fs",
            json!({"operation": "read", "path": "docs/a.md", "start_line": 2, "end_line": 3}),
        )
        .await;
    assert_eq!(r.text_content(), "two\nthree");
    let r = b
        .call("fs", json!({"operation": "list", "path": "."}))
        .await;
    assert_eq!(r.text_content(), "docs/");
    let r = b
        .call("fs", json!({"operation": "list", "path": "docs"}))
        .await;
    assert_eq!(r.text_content(), "a.md\t14");
    let r = b
        .call("fs", json!({"operation": "exists", "path": "docs/b.md"}))
        .await;
    assert_eq!(r.text_content(), "false");
    let r = b
        .call("fs", json!({"operation": "stat", "path": "docs/a.md"}))
        .await;
    let stat: serde_json::Value = serde_json::from_str(&r.text_content()).unwrap();
    assert_eq!(stat["type"], "file");
    assert_eq!(stat["size"], 14);
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "docs/a.md", "content": "new\n"}),
        )
        .await;
    assert_eq!(r.text_content(), "replaced docs/a.md (4 bytes)");
    let r = b
        .call("fs", json!({"operation": "delete", "path": "docs"}))
        .await;
    assert_refused(&r, "is a directory that is not empty");
    let r = b
        .call("fs", json!({"operation": "delete", "path": "docs/a.md"}))
        .await;
    assert_eq!(r.text_content(), "deleted docs/a.md (4 bytes)");
    let r = b
        .call("fs", json!({"operation": "delete", "path": "docs"}))
        .await;
    assert_eq!(r.text_content(), "deleted directory docs");
    assert!(std::fs::read_dir(&b.workspace).unwrap().next().is_none());
}

#[tokio::test]
async fn parent_dir_escapes_are_refused() {
    let b = bench("").await;
    let before = b.snapshot();
    for path in ["../outside/secret.txt", "docs/../../outside/x", "a/../b"] {
        let r = b
            .call("fs", json!({"operation": "read", "path": path}))
            .await;
        assert_refused(&r, "`..` is not allowed");
        let r = b
            .call(
                "fs",
                json!({"operation": "write", "path": path, "content": "pwned"}),
            )
            .await;
        assert_refused(&r, "`..` is not allowed");
        let r = b
            .call("fs", json!({"operation": "delete", "path": path}))
            .await;
        assert_refused(&r, "`..` is not allowed");
    }
    assert_eq!(b.snapshot(), before);
}

#[tokio::test]
async fn absolute_paths_outside_the_root_are_refused() {
    let b = bench("").await;
    std::fs::write(b.workspace.join("in.txt"), "inside\n").unwrap();
    let before = b.snapshot();
    let secret = b.outside.join("secret.txt");
    for path in ["/etc/passwd", secret.to_str().unwrap()] {
        let r = b
            .call("fs", json!({"operation": "read", "path": path}))
            .await;
        assert_refused(&r, "is outside the root");
        let r = b
            .call(
                "fs",
                json!({"operation": "write", "path": path, "content": "x"}),
            )
            .await;
        assert_refused(&r, "is outside the root");
    }
    assert_eq!(b.snapshot(), before);
    // An absolute path inside the root is fine.
    let inside = b.workspace.canonicalize().unwrap().join("in.txt");
    let r = b
        .call(
            "fs",
            json!({"operation": "read", "path": inside.to_str().unwrap()}),
        )
        .await;
    assert_eq!(r.text_content(), "inside\n");
}

#[tokio::test]
async fn a_symlink_inside_the_root_pointing_outside_is_refused() {
    let b = bench("").await;
    symlink(b.outside.join("secret.txt"), b.workspace.join("link.txt")).unwrap();
    let before = b.snapshot();
    for op in ["read", "stat", "exists", "delete"] {
        let r = b
            .call("fs", json!({"operation": op, "path": "link.txt"}))
            .await;
        assert_refused(&r, "link.txt is a symbolic link");
    }
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "link.txt", "content": "pwned"}),
        )
        .await;
    assert_refused(&r, "link.txt is a symbolic link");
    assert_eq!(b.snapshot(), before);
}

#[tokio::test]
async fn a_symlinked_parent_directory_is_refused() {
    let b = bench("").await;
    symlink(&b.outside, b.workspace.join("sub")).unwrap();
    let before = b.snapshot();
    let r = b
        .call("fs", json!({"operation": "read", "path": "sub/secret.txt"}))
        .await;
    assert_refused(&r, "sub is a symbolic link");
    let r = b
        .call("fs", json!({"operation": "list", "path": "sub"}))
        .await;
    assert_refused(&r, "sub is a symbolic link");
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "sub/new.txt", "content": "pwned"}),
        )
        .await;
    assert_refused(&r, "sub is a symbolic link");
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "sub/deeper/new.txt", "content": "x"}),
        )
        .await;
    assert_refused(&r, "sub is a symbolic link");
    assert_eq!(b.snapshot(), before);
}

/// Swaps `WS/a` (a real directory) for a symlink to the outside directory.
fn swap_in_symlink(workspace: &Path, outside: &Path) -> impl Fn(&Path) + Send + Sync + 'static {
    let ws = workspace.to_path_buf();
    let out = outside.to_path_buf();
    move |_checked: &Path| {
        if ws.join("a").is_dir() && !ws.join("a").is_symlink() {
            std::fs::rename(ws.join("a"), ws.join("a_real")).unwrap();
            symlink(&out, ws.join("a")).unwrap();
        }
    }
}

#[tokio::test]
async fn a_symlink_swapped_in_after_the_check_is_caught() {
    let b = bench("").await;
    std::fs::create_dir(b.workspace.join("a")).unwrap();
    std::fs::write(b.workspace.join("a/secret.txt"), "inside copy\n").unwrap();
    let root = Root::new(&b.workspace)
        .unwrap()
        .with_race_hook(Arc::new(swap_in_symlink(&b.workspace, &b.outside)));
    b.swap("fs", Arc::new(FsTool::new(root, FsToolConfig::default())))
        .await;
    let r = b
        .call("fs", json!({"operation": "read", "path": "a/secret.txt"}))
        .await;
    assert_refused(&r, "a is a symbolic link");
    assert!(!r.text_content().contains("top secret"));
    let outside_before = support::builtin::snapshot(&b.outside);
    // Again for a write: the swap happens between the check and the temp file.
    std::fs::remove_file(b.workspace.join("a")).unwrap();
    std::fs::rename(b.workspace.join("a_real"), b.workspace.join("a")).unwrap();
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "a/secret.txt", "content": "pwned"}),
        )
        .await;
    assert_refused(&r, "a is a symbolic link");
    assert_eq!(support::builtin::snapshot(&b.outside), outside_before);
    assert_eq!(
        std::fs::read_to_string(b.outside.join("secret.txt")).unwrap(),
        "top secret\n"
    );
}

#[tokio::test]
async fn a_hard_linked_file_is_not_written() {
    let b = bench("").await;
    std::fs::hard_link(b.outside.join("secret.txt"), b.workspace.join("linked.txt")).unwrap();
    let before = b.snapshot();
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "linked.txt", "content": "pwned"}),
        )
        .await;
    assert_refused(&r, "linked.txt has 2 hard links");
    assert_eq!(b.snapshot(), before);
}

#[tokio::test]
async fn nul_bytes_in_paths_are_refused() {
    let b = bench("").await;
    let before = b.snapshot();
    for op in ["read", "write", "delete", "list"] {
        let r = b
            .call(
                "fs",
                json!({"operation": op, "path": "a\u{0}b", "content": "x"}),
            )
            .await;
        assert_refused(&r, "contains a NUL byte");
    }
    assert_eq!(b.snapshot(), before);
}

#[tokio::test]
async fn a_2gb_sparse_file_is_read_only_up_to_the_cap() {
    let b = bench("[tools.fs]\nmax_read_bytes = 65536\n").await;
    let path = b.workspace.join("huge.log");
    let line = "a line of log text that repeats\n";
    std::fs::write(&path, line.repeat(4096)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let r = b
        .call("fs", json!({"operation": "read", "path": "huge.log"}))
        .await;
    let text = r.text_content();
    assert!(!r.is_error, "{text}");
    assert!(text.contains("[truncated: only the first 65536 of 2147483648 bytes were read"));
    assert!(text.len() < 65536 + 200);
    // A sparse file of zeros is binary, refused without reading it all.
    let zeros = b.workspace.join("zeros.bin");
    std::fs::File::create(&zeros)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let r = b
        .call("fs", json!({"operation": "read", "path": "zeros.bin"}))
        .await;
    assert_refused(&r, "looks binary");
}

#[tokio::test]
async fn limits_and_switches_refuse_with_their_names() {
    let b = bench("[tools.fs]\nallow_write = false\n").await;
    let before = b.snapshot();
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "x", "content": "x"}),
        )
        .await;
    assert_refused(&r, "allow_write = false");
    assert_eq!(b.snapshot(), before);
    let b = bench("[tools.fs]\nmax_write_bytes = 4\n").await;
    let r = b
        .call(
            "fs",
            json!({"operation": "write", "path": "x", "content": "12345"}),
        )
        .await;
    assert_refused(&r, "more than [tools.fs] max_write_bytes (4 bytes)");
    assert!(!b.workspace.join("x").exists());
    let r = b
        .call("fs", json!({"operation": "delete", "path": "."}))
        .await;
    assert_refused(&r, "the workspace root itself");
}

#[tokio::test]
async fn previews_show_a_diff_for_writes_and_the_head_for_deletes() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a.txt"), "one\ntwo\n").unwrap();
    let tool = FsTool::new(Root::new(tmp.path()).unwrap(), FsToolConfig::default());
    let write = args(json!({"operation": "write", "path": "a.txt", "content": "one\nTWO\n"}));
    let Some(Preview::Diff { path, unified }) = tool.preview(&write) else {
        panic!("no diff");
    };
    assert_eq!(path, "a.txt");
    assert!(unified.contains("--- a/a.txt\n+++ b/a.txt\n"), "{unified}");
    assert!(unified.contains("-two\n+TWO\n"), "{unified}");
    let create = args(json!({"operation": "write", "path": "new.txt", "content": "hi\n"}));
    let Some(Preview::Diff { unified, .. }) = tool.preview(&create) else {
        panic!("no diff");
    };
    assert!(
        unified.contains("--- /dev/null\n+++ b/new.txt\n"),
        "{unified}"
    );
    let delete = args(json!({"operation": "delete", "path": "a.txt"}));
    assert_eq!(
        tool.preview(&delete),
        Some(Preview::Text("delete a.txt (8 bytes)\none\ntwo".into()))
    );
}
