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

/// Every relative link in README.md, ARCHITECTURE.md and the book (docs/src/**/*.md)
/// points at a file that exists, and every `#anchor` at a heading of its target (GitHub's
/// slugs); docs/src/SUMMARY.md lists every chapter and only chapters that exist; the docs
/// never cite files users do not have.
#[test]
fn docs_links_resolve() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("docs/src");
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    markdown_files(&src, &mut files);
    let shown = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let mut anchors: std::collections::HashMap<PathBuf, Vec<String>> =
        std::collections::HashMap::new();
    let mut broken = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for cited in ["STACK.md", "../shared"] {
            if text.contains(cited) {
                broken.push(format!("{}: cites {cited}", shown(file)));
            }
        }
        for (line, target) in markdown_links(&text) {
            let Some((path, anchor)) = local_target(&target) else {
                continue;
            };
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                normalize(&file.parent().unwrap().join(path))
            };
            let at = format!("{}:{line}: `{target}`", shown(file));
            if !resolved.exists() {
                broken.push(format!("{at}: no file {}", shown(&resolved)));
            } else if let Some(anchor) = anchor {
                let headings = anchors.entry(resolved.clone()).or_insert_with(|| {
                    fs::read_to_string(&resolved)
                        .map(|t| heading_slugs(&t))
                        .unwrap_or_default()
                });
                if !headings.contains(&anchor) {
                    broken.push(format!(
                        "{at}: no heading #{anchor} in {}",
                        shown(&resolved)
                    ));
                }
            }
        }
    }
    let summary = src.join("SUMMARY.md");
    let listed: Vec<PathBuf> = markdown_links(&fs::read_to_string(&summary).unwrap())
        .into_iter()
        .filter_map(|(_, target)| local_target(&target).map(|(p, _)| normalize(&src.join(p))))
        .collect();
    for chapter in &listed {
        if !chapter.starts_with(&src) || !chapter.is_file() {
            broken.push(format!(
                "docs/src/SUMMARY.md lists {}, which is no file under docs/src",
                shown(chapter)
            ));
        }
    }
    for chapter in files
        .iter()
        .filter(|f| f.starts_with(&src) && **f != summary)
    {
        if !listed.contains(chapter) {
            broken.push(format!(
                "docs/src/SUMMARY.md does not list {}",
                shown(chapter)
            ));
        }
    }
    assert!(
        broken.is_empty(),
        "broken doc links:\n{}",
        broken.join("\n")
    );
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// `path` and `#anchor` of a link to a file of this repository; `None` for a link
/// elsewhere (`http(s)://`, `mailto:`).
fn local_target(target: &str) -> Option<(&str, Option<String>)> {
    if ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| target.starts_with(scheme))
    {
        return None;
    }
    Some(match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor.to_string())),
        None => (target, None),
    })
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The text outside fenced code blocks, fenced lines blanked so line numbers stay.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut fence: Option<(char, usize)> = None;
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let mark = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
            let run = mark.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
            match (fence, mark) {
                (None, Some(c)) if run >= 3 => {
                    fence = Some((c, run));
                    ""
                }
                (Some((c, n)), Some(m))
                    if m == c && run >= n && trimmed.trim_end().len() == run * c.len_utf8() =>
                {
                    fence = None;
                    ""
                }
                (Some(_), _) => "",
                (None, _) => line,
            }
        })
        .collect()
}

/// `(line, target)` of every `[text](target)` and `![alt](target)` outside code (fenced
/// blocks and inline code spans, which may run over lines within a paragraph).
fn markdown_links(text: &str) -> Vec<(usize, String)> {
    // Blank out inline code spans, keeping newlines so line numbers stay.
    let prose = prose_lines(text).join("\n");
    let chars: Vec<char> = prose.chars().collect();
    let mut clean = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            clean.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '\n' && chars.get(j + 1) == Some(&'\n') {
                break; // a code span never crosses a paragraph
            }
            if chars[j] == '`' {
                let n = chars[j..].iter().take_while(|c| **c == '`').count();
                if n == run {
                    close = Some(j + n);
                    break;
                }
                j += n;
            } else {
                j += 1;
            }
        }
        let end = close.unwrap_or(i + run);
        clean.extend(
            chars[i..end]
                .iter()
                .map(|c| if *c == '\n' { '\n' } else { ' ' }),
        );
        i = end;
    }
    let mut links = Vec::new();
    let mut line = 1;
    for (k, c) in clean.iter().enumerate() {
        if *c == '\n' {
            line += 1;
        }
        if *c != ']' || clean.get(k + 1) != Some(&'(') {
            continue;
        }
        let mut depth = 0;
        let mut target = String::new();
        for t in &clean[k + 2..] {
            match t {
                '(' => depth += 1,
                ')' if depth == 0 => break,
                ')' => depth -= 1,
                '\n' => break,
                _ => {}
            }
            target.push(*t);
        }
        let target = target.split_whitespace().next().unwrap_or("");
        let target = target.trim_start_matches('<').trim_end_matches('>');
        links.push((line, target.to_string()));
    }
    links
}

/// GitHub's anchors for the headings of a Markdown file: lowercased, spaces to `-`,
/// punctuation but `-` and `_` dropped, `-1`, `-2` … after a repeated one.
fn heading_slugs(text: &str) -> Vec<String> {
    let mut slugs: Vec<String> = Vec::new();
    for line in prose_lines(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let title = line[hashes..].trim().trim_end_matches('#').trim();
        let base: String = title
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut slug = base.clone();
        let mut n = 0;
        while slugs.contains(&slug) {
            n += 1;
            slug = format!("{base}-{n}");
        }
        slugs.push(slug);
    }
    slugs
}

/// Which top-level modules each module may import (`crate::X`), lowest layers first.
/// An import not listed fails, and so does a listed one no longer used, so the table
/// stays the true picture of ARCHITECTURE.md's layers. `config → hooks, keymap,
/// policy` is the knot of cross-module validation (config/validate.rs asks those
/// modules to check their own values); it is to move to the load step above them.
const ALLOWED: &[(&str, &[&str])] = &[
    ("catalog_filter", &[]),
    ("logging", &[]),
    ("paths", &[]),
    ("sanitize", &[]),
    ("sse", &[]),
    ("theme", &[]),
    ("tls", &[]),
    ("config", &["paths"]),
    ("keymap", &["config"]),
    ("policy", &["config", "paths"]),
    ("hooks", &["config", "policy"]),
    ("gate", &["policy"]),
    (
        "settings",
        &["config", "hooks", "keymap", "paths", "policy"],
    ),
    ("skills", &["config", "paths"]),
    ("sandbox", &["config"]),
    (
        "tools",
        &[
            "config", "gate", "hooks", "paths", "policy", "sanitize", "skills", "tls",
        ],
    ),
    ("cases", &["config", "sanitize", "tools"]),
    ("a2a", &["sse", "tls"]),
    ("llm", &["config", "sse", "tls", "tools"]),
    (
        "mcp",
        &[
            "config", "logging", "paths", "policy", "sandbox", "sanitize", "sse", "tls", "tools",
        ],
    ),
    ("registry", &["config", "paths", "policy", "tls"]),
    (
        "config_write",
        &["config", "mcp", "paths", "sanitize", "settings"],
    ),
    ("trust", &["config", "llm", "paths", "sanitize", "settings"]),
    (
        "agent",
        &[
            "config", "gate", "hooks", "llm", "mcp", "paths", "policy", "sanitize", "tools",
        ],
    ),
    (
        "agents",
        &["a2a", "agent", "config", "gate", "llm", "policy", "tools"],
    ),
    (
        "replay",
        &["agent", "config", "gate", "mcp", "policy", "tools"],
    ),
    (
        "workbench",
        &[
            "agent", "agents", "config", "gate", "hooks", "mcp", "paths", "policy", "tools",
        ],
    ),
    ("apps", &["gate", "mcp", "policy", "sanitize", "tools"]),
    (
        "serve",
        &[
            "agent",
            "config",
            "gate",
            "mcp",
            "policy",
            "sse",
            "tools",
            "workbench",
        ],
    ),
    (
        "tui",
        &[
            "a2a",
            "agent",
            "agents",
            "apps",
            "cases",
            "catalog_filter",
            "config",
            "config_write",
            "gate",
            "keymap",
            "llm",
            "logging",
            "mcp",
            "paths",
            "policy",
            "registry",
            "sandbox",
            "sanitize",
            "serve",
            "theme",
            "tools",
            "trust",
        ],
    ),
    (
        "cli",
        &[
            "a2a",
            "agent",
            "agents",
            "apps",
            "cases",
            "config",
            "config_write",
            "gate",
            "hooks",
            "keymap",
            "llm",
            "logging",
            "mcp",
            "paths",
            "policy",
            "registry",
            "replay",
            "sandbox",
            "sanitize",
            "serve",
            "settings",
            "theme",
            "tools",
            "trust",
            "tui",
            "workbench",
        ],
    ),
];

/// The top-level modules `code` (one module's source, comments dropped) imports.
fn imports_of(code: &str, own: &str) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    for line in code.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != own {
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn every_module_imports_only_what_its_layer_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for entry in fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" || name == "main" {
            continue;
        }
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else {
            files.push(path.clone());
        }
        let code: String = files
            .iter()
            .map(|f| fs::read_to_string(f).unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        let found = imports_of(&code, &name);
        let Some((_, allowed)) = ALLOWED.iter().find(|(m, _)| *m == name) else {
            problems.push(format!("src/{name}: not in the table of layers"));
            continue;
        };
        seen.push(name.clone());
        for import in &found {
            if !allowed.contains(&import.as_str()) {
                problems.push(format!(
                    "src/{name} imports crate::{import}, which its layer does not allow"
                ));
            }
        }
        for allowed in *allowed {
            if !found.contains(*allowed) {
                problems.push(format!(
                    "src/{name} no longer imports crate::{allowed}: take it out of the table"
                ));
            }
        }
    }
    for (module, _) in ALLOWED {
        if !seen.iter().any(|s| s == module) {
            problems.push(format!(
                "the table names src/{module}, which does not exist"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
