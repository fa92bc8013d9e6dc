//! Long values in `$VISUAL` / `$EDITOR` (then `vi`): the text goes to a temporary file,
//! the editor runs on the real terminal, and what was saved comes back. The runtime
//! leaves the full screen and stops reading keys while it runs.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The editor command line: `$VISUAL`, else `$EDITOR`, else `vi`; split like a shell
/// would split words (no shell runs it).
pub fn editor_argv(visual: Option<&str>, editor: Option<&str>) -> Result<Vec<String>, String> {
    let line = [visual, editor]
        .into_iter()
        .flatten()
        .find(|v| !v.trim().is_empty())
        .unwrap_or("vi");
    match shlex::split(line) {
        Some(argv) if !argv.is_empty() => Ok(argv),
        _ => Err(format!("cannot split the editor command {line:?}")),
    }
}

/// Runs `argv FILE` on a temporary file holding `text`; returns the saved text with
/// the one trailing newline editors add removed. The file is removed afterwards.
/// `suffix` (e.g. `.json`) lets the editor pick a syntax.
pub fn edit_with(argv: &[String], text: &str, suffix: &str) -> Result<String, String> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (program, args) = argv.split_first().ok_or("no editor command")?;
    let path: PathBuf = std::env::temp_dir().join(format!(
        "switchboard-{}-{}{suffix}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::File::create(&path).map_err(|e| e.to_string())?;
        file.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        drop(file);
        let status = Command::new(program)
            .args(args)
            .arg(&path)
            .status()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        if !status.success() {
            return Err(format!("{program} exited with {status}; value unchanged"));
        }
        let saved = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        Ok(saved
            .strip_suffix("\r\n")
            .or_else(|| saved.strip_suffix('\n'))
            .unwrap_or(&saved)
            .to_owned())
    })();
    let _ = std::fs::remove_file(&path);
    result
}

/// [`edit_with`] the user's editor.
pub fn edit(text: &str, suffix: &str) -> Result<String, String> {
    let visual = std::env::var("VISUAL").ok();
    let editor = std::env::var("EDITOR").ok();
    let argv = editor_argv(visual.as_deref(), editor.as_deref())?;
    edit_with(&argv, text, suffix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visual_then_editor_then_vi_split_like_words() {
        assert_eq!(editor_argv(None, None).unwrap(), ["vi"]);
        assert_eq!(editor_argv(Some(" "), Some("nano")).unwrap(), ["nano"]);
        assert_eq!(
            editor_argv(Some("code --wait"), Some("nano")).unwrap(),
            ["code", "--wait"]
        );
        assert_eq!(
            editor_argv(None, Some("'/opt/my editor/bin/ed' -q")).unwrap(),
            ["/opt/my editor/bin/ed", "-q"]
        );
        assert!(editor_argv(None, Some("vim 'open")).is_err());
    }

    #[test]
    fn the_saved_text_comes_back_and_the_file_goes() {
        // An "editor" that appends a line to the file it is given and notes its path.
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("path");
        let script = format!(
            "printf 'second\\n' >> \"$0\"; printf %s \"$0\" > '{}'",
            record.display()
        );
        let argv: Vec<String> = vec!["sh".into(), "-c".into(), script];
        let out = edit_with(&argv, "first\n", ".json").unwrap();
        assert_eq!(out, "first\nsecond");
        let used = std::fs::read_to_string(&record).unwrap();
        assert_eq!(std::path::Path::new(&used).extension().unwrap(), "json");
        assert!(!std::path::Path::new(&used).exists(), "temp file removed");
    }

    #[test]
    fn a_failing_editor_leaves_the_value_alone() {
        let argv: Vec<String> = ["sh", "-c", "exit 3"].map(String::from).to_vec();
        let err = edit_with(&argv, "keep", "").unwrap_err();
        assert!(err.contains("value unchanged"), "{err}");
        let missing = vec!["/nonexistent/editor".to_string()];
        assert!(
            edit_with(&missing, "x", "")
                .unwrap_err()
                .contains("cannot start")
        );
    }
}
