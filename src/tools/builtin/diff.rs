//! Unified diffs for approval previews.

use similar::TextDiff;

/// A unified diff from `old` to `new`, headed `a/PATH` → `b/PATH` (`/dev/null` when a
/// side does not exist).
pub fn unified(path: &str, old: Option<&str>, new: Option<&str>) -> String {
    let from = old.map_or_else(|| "/dev/null".to_owned(), |_| format!("a/{path}"));
    let to = new.map_or_else(|| "/dev/null".to_owned(), |_| format!("b/{path}"));
    let old = old.unwrap_or("");
    let new = new.unwrap_or("");
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&from, &to)
        .to_string()
}

/// The first `n` lines of `text`, with a note when there are more.
pub fn head(text: &str, n: usize) -> String {
    let mut lines = text.lines();
    let mut out: Vec<&str> = lines.by_ref().take(n).collect();
    let rest = lines.count();
    let more;
    if rest > 0 {
        more = format!("… ({rest} more lines)");
        out.push(&more);
    }
    out.join("\n")
}
