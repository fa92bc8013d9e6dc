//! Seams that must hold: only `src/tui/` (and the thin CLI entry that starts it) may
//! use the terminal libraries.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn core_never_imports_the_ui_libraries() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let allowed = [root.join("src/tui"), root.join("src/cli/tui_cmd.rs")];
    let mut offenders = Vec::new();
    for file in files {
        if allowed.iter().any(|a| file.starts_with(a)) {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("ratatui")
                || code.contains("crossterm")
                || code.contains("tui_textarea")
            {
                offenders.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "UI imports outside src/tui/:\n{}",
        offenders.join("\n")
    );
}
