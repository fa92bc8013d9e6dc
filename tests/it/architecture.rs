//! Seams that must hold: only `src/tui/` (and the thin CLI entry that starts it) may
//! use the terminal libraries, and the layers point one way: the gate's vocabulary
//! lives below the tools and the agent, the policy below the tools, and nothing but
//! the front ends knows the front ends.
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

/// `file:line: text` for every line of the files under `dirs` (relative to the crate)
/// whose code (comments dropped) contains one of `needles`.
fn uses(dirs: &[&str], needles: &[&str], except: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in dirs {
        let path = root.join(dir);
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else {
            files.push(path);
        }
    }
    let except: Vec<PathBuf> = except.iter().map(|e| root.join(e)).collect();
    let mut found = Vec::new();
    for file in files {
        if except.iter().any(|e| file.starts_with(e)) {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if needles.iter().any(|needle| code.contains(needle)) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn tools_never_import_the_agent() {
    let found = uses(&["src/tools"], &["crate::agent"], &[]);
    assert!(
        found.is_empty(),
        "src/tools imports the agent:\n{}",
        found.join("\n")
    );
}

#[test]
fn policy_never_imports_the_tools_or_the_agent() {
    let found = uses(&["src/policy"], &["crate::tools", "crate::agent"], &[]);
    assert!(
        found.is_empty(),
        "src/policy imports upward:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_gate_vocabulary_sits_below_tools_and_agent() {
    let found = uses(
        &["src/gate"],
        &["crate::tools", "crate::agent", "crate::mcp", "crate::llm"],
        &[],
    );
    assert!(
        found.is_empty(),
        "src/gate imports upward:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_sandbox_sits_below_mcp() {
    let found = uses(
        &["src/sandbox"],
        &[
            "crate::mcp",
            "crate::tools",
            "crate::agent",
            "crate::workbench",
        ],
        &[],
    );
    assert!(
        found.is_empty(),
        "src/sandbox imports upward:\n{}",
        found.join("\n")
    );
}

#[test]
fn only_the_front_ends_know_the_front_ends() {
    let found = uses(
        &["src"],
        &["crate::tui", "crate::cli"],
        &["src/tui", "src/cli", "src/main.rs", "src/lib.rs"],
    );
    assert!(
        found.is_empty(),
        "core imports the TUI or the CLI:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_source_file_is_longer_than_450_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = fs::read_to_string(f).unwrap().lines().count();
            (n > 450).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over 450 lines:\n{}",
        long.join("\n")
    );
}
